"""Hypothesis properties of the engine: order invariance, maxima, the random expectation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.engine import Scorer
from scoring.specs import get_benchmark
from scoring.task_types import Reference

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

words = st.sampled_from(["warm", "bass", "line", "bright", "synth", "lead", "slow", "tempo", "drums", "guitars",
                         "playing", "the"])
sentences = st.lists(words, min_size=4, max_size=12).map(" ".join)


@st.composite
def ranking_items(draw, min_k: int = 2, max_k: int = 5):
    k = draw(st.integers(min_k, max_k))
    n = draw(st.integers(1, 12))
    scores = np.array(draw(st.lists(st.lists(st.integers(0, 3), min_size=k, max_size=k), min_size=n, max_size=n)),
                      dtype=float)
    relevance = np.array([draw(st.permutations(range(k))) for _ in range(n)], dtype=float)
    return scores, relevance


def report(benchmark, refs, preds, profile=None):
    scorer = Scorer(get_benchmark(benchmark), refs, profile=profile)
    return scorer.report([scorer.score_run(preds)], n_bootstrap=5)


def assert_same_metrics(a, b) -> None:
    assert a.metrics.keys() == b.metrics.keys()
    for key in a.metrics:
        if a.metrics[key] is None:
            assert b.metrics[key] is None
        else:
            assert b.metrics[key] == pytest.approx(a.metrics[key], rel=1e-12, abs=1e-12), key
    assert a.diagnostics == b.diagnostics
    assert a.n_scored == b.n_scored


@pytest.mark.slow
@SETTINGS
@given(ranking_items(), st.randoms(use_true_random=False), st.sampled_from(["official", "linear-gain"]))
def test_permuting_ranking_items_changes_no_aggregate(synth, items, rnd, profile) -> None:
    scores, relevance = items
    order = list(range(len(scores)))
    rnd.shuffle(order)
    refs, preds = synth.ranking_objects(scores, relevance)
    assert_same_metrics(report("dialbgm", refs, preds, profile),
                        report("dialbgm", [refs[i] for i in order], [preds[i] for i in order], profile))


@st.composite
def jamendo_items(draw):
    n = draw(st.integers(1, 10))
    answers, predictions, qa_types = [], [], []
    for _ in range(n):
        qa_type = draw(st.sampled_from(["yes_no", "short_answer", "sentence"]))
        if qa_type == "yes_no":
            answers.append(draw(st.sampled_from(["Yes", "No", "yes, it is", "No."])))
            predictions.append(draw(st.sampled_from(["yes", "no", "True", "false", "maybe", "No way"])))
        elif qa_type == "short_answer":
            answers.append(draw(st.sampled_from(["track_a", "rock_Song", "Track B"])))
            predictions.append(draw(st.sampled_from(["track_a", "TRACK B", "rock", "none", "rock_song is it"])))
        else:
            answers.append(draw(sentences))
            predictions.append(draw(sentences))
        qa_types.append(qa_type)
    return answers, predictions, qa_types


@pytest.mark.slow
@SETTINGS
@given(jamendo_items(), st.randoms(use_true_random=False))
def test_permuting_text_items_changes_no_aggregate(synth, items, rnd) -> None:
    answers, predictions, qa_types = items
    order = list(range(len(answers)))
    rnd.shuffle(order)
    refs, preds = synth.text_objects(answers, predictions, qa_types)
    shuffled = ([refs[i] for i in order], [preds[i] for i in order])
    a, b = report("jamendo-mt-qa", refs, preds), report("jamendo-mt-qa", *shuffled)
    assert_same_metrics(a, b)
    assert a.metrics["bleu"] == b.metrics["bleu"]  # corpus BLEU sums integer statistics: exactly equal
    generation_refs = [Reference(r.id, r.line, {}, r.answers) for r in refs]
    generation_shuffled = [generation_refs[i] for i in order]
    for benchmark in ("musicqa", "music4way-any2t"):
        assert_same_metrics(report(benchmark, generation_refs, preds), report(benchmark, generation_shuffled,
                                                                                shuffled[1]))


@pytest.mark.slow
@SETTINGS
@given(ranking_items())
def test_perfect_ranking_scores_the_maximum(synth, items) -> None:
    _, relevance = items
    refs, preds = synth.ranking_objects(relevance * 2.5 + 1, relevance)
    for profile in ("official", "linear-gain"):
        result = report("dialbgm", refs, preds, profile)
        assert result.metrics == {"hit_at_1": 1.0, "mrr": 1.0, "ndcg_at_4": pytest.approx(1.0, abs=1e-15),
                                  "kendall_tau_b": pytest.approx(1.0, abs=1e-15)}
        assert result.diagnostics == {"all_tied": [0]}


@pytest.mark.slow
@SETTINGS
@given(st.lists(sentences, min_size=1, max_size=8))
def test_perfect_text_prediction_scores_the_maximum(synth, texts) -> None:
    refs, preds = synth.text_objects(texts, texts)
    musicqa = report("musicqa", refs, preds)
    for key in ("bleu", "bleu1", "bleu4", "rougeL_recall"):
        assert musicqa.metrics[key] == pytest.approx(1.0, abs=1e-15), key
    table = report("music4way-mv2t", refs, preds)
    for key in ("bleu1", "bleu", "rougeL_precision", "rougeL_recall", "rougeL_f1"):
        assert table.metrics[key] == pytest.approx(100.0, abs=1e-12), key
    word = report("musicqa", refs, preds, "word-bleu")
    assert word.metrics["bleu"] == pytest.approx(1.0, abs=1e-15)

    qa_types = ["sentence"] * len(texts) + ["yes_no", "short_answer"]
    answers = [*texts, "No, it is not", "rock_Song"]
    refs, preds = synth.text_objects(answers, answers, qa_types)
    jamendo = report("jamendo-mt-qa", refs, preds)
    assert jamendo.metrics["yes_no_accuracy"] == 1.0
    assert jamendo.metrics["short_answer_accuracy"] == 1.0
    for key in ("bleu", "rouge1", "rouge2", "rougeL"):
        assert jamendo.metrics[key] == pytest.approx(100.0, abs=1e-12), key


def random_expectation(k: int, gain: str, cutoff: int = 4) -> dict[str, float]:
    """Exact metrics of a uniformly random order of k candidates (nDCG@cutoff)."""
    positions = range(1, k + 1)
    gains = [2.0**r - 1 if gain == "exponential" else float(r) for r in range(k - 1, -1, -1)]
    discounts = [1 / math.log2(p + 1) if p <= cutoff else 0.0 for p in positions]
    ideal = sum(g * d for g, d in zip(gains, discounts))
    return {
        "hit_at_1": 1 / k,
        "mrr": sum(1 / r for r in positions) / k,
        "ndcg_at_4": sum(gains) * (sum(discounts) / k) / ideal,
        "kendall_tau_b": 0.0,
    }


@pytest.mark.slow
@SETTINGS
@given(st.integers(2, 7), st.integers(1, 10), st.floats(-1e6, 1e6, allow_nan=False), st.data())
def test_all_tied_predictions_give_exactly_the_random_expectation(synth, k, n, value, data) -> None:
    relevance = np.array([data.draw(st.permutations(range(k))) for _ in range(n)], dtype=float)
    refs, preds = synth.ranking_objects(np.full((n, k), value), relevance)
    for profile, gain in (("official", "exponential"), ("linear-gain", "linear")):
        result = report("dialbgm", refs, preds, profile)
        expected = random_expectation(k, gain)
        for key, target in expected.items():
            assert result.metrics[key] == pytest.approx(target, rel=1e-12, abs=1e-15), key
        assert result.diagnostics == {"all_tied": [n]}


def test_random_expectation_for_four_candidates() -> None:
    expected = random_expectation(4, "exponential")
    assert expected["mrr"] == pytest.approx(0.5208333, abs=1e-7)
    assert expected["ndcg_at_4"] == pytest.approx(0.750, abs=5e-4)
    assert random_expectation(4, "linear")["ndcg_at_4"] == pytest.approx(0.807, abs=5e-4)

