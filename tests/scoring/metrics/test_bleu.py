"""BLEU: our NLTK-exact sentence BLEU and our sacrebleu corpus BLEU against the libraries."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
import sacrebleu
from nltk.translate.bleu_score import sentence_bleu

from scoring.metrics.base import ScoringContext
from scoring.metrics.bleu import (
    SENTENCE_BLEU_WEIGHTS,
    CorpusBleu,
    SentenceBleu,
    bleu_from_stats,
    sentence_bleu_stats,
)

WEIGHTS = [(1.0, 0.0, 0.0, 0.0), (0.25, 0.25, 0.25, 0.25), (0.0, 0.0, 0.0, 1.0)]


def nltk_bleu(references: list, hypothesis, weights) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "The hypothesis contains 0 counts of N-gram overlaps"
        return float(sentence_bleu(references, hypothesis, weights=weights))


def ours(references: list, hypothesis, weights) -> float:
    return bleu_from_stats(sentence_bleu_stats(references, hypothesis), weights)


def random_text(rng: random.Random, alphabet: str, low: int, high: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))


@pytest.mark.parametrize("weights", WEIGHTS)
def test_character_bleu_on_raw_strings_equals_nltk(weights) -> None:
    rng = random.Random(7)
    for _ in range(400):
        refs = [random_text(rng, "ab c", 1, 30) for _ in range(rng.randint(1, 3))]
        hyp = random_text(rng, "ab cd", 1, 30)
        # NLTK sees strings as sequences of characters (spaces included)
        assert ours(refs, hyp, weights) == pytest.approx(nltk_bleu(refs, hyp, weights), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("weights", WEIGHTS)
def test_word_bleu_on_whitespace_tokens_equals_nltk(weights) -> None:
    rng = random.Random(11)
    vocab = ["bass", "drums", "slow", "fast", "guitar", "the", "a", "warm"]
    for _ in range(400):
        refs = [rng.choices(vocab, k=rng.randint(1, 15)) for _ in range(rng.randint(1, 3))]
        hyp = rng.choices(vocab, k=rng.randint(1, 15))
        assert ours(refs, hyp, weights) == pytest.approx(nltk_bleu(refs, hyp, weights), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize(
    ("refs", "hyp"),
    [
        (["abcd"], "abc"),  # hypothesis shorter than 4 characters: no 4-grams at all
        (["ab"], "ab"),  # identical but too short for 3- and 4-grams
        (["abcdef"], "xyz"),  # no overlap at all -> 0
        (["abababab"], "abba"),  # unigram/bigram overlap, empty 3- and 4-gram overlap
        (["the cat sat", "a cat sat down"], "the cat sat down"),  # multi-reference, closest length
        (["aaaa", "aaaaaaaa"], "aaaaaa"),  # two references equally close: the shorter length wins
        (["x" * 40], "x"),  # strong brevity penalty
        (["hello"], "hello world, hello again"),  # longer hypothesis: no brevity penalty
    ],
)
@pytest.mark.parametrize("weights", WEIGHTS)
def test_edge_cases_equal_nltk(refs, hyp, weights) -> None:
    expected = nltk_bleu(refs, hyp, weights)
    assert ours(refs, hyp, weights) == pytest.approx(expected, rel=1e-12, abs=1e-300)
    word_refs, word_hyp = [r.split() for r in refs], hyp.split()
    assert ours(word_refs, word_hyp, weights) == pytest.approx(
        nltk_bleu(word_refs, word_hyp, weights), rel=1e-12, abs=1e-300)


def test_no_overlap_is_exactly_zero_and_identical_is_exactly_one() -> None:
    for weights in WEIGHTS:
        assert ours(["abcdef"], "xyz", weights) == 0.0
        assert ours(["warm bass line"], "warm bass line", weights) == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("tokenize", ["char", "word"])
def test_sentence_bleu_family_outputs_equal_nltk(tokenize, synth) -> None:
    rng = random.Random(5)
    answers = [[synth.sentence(rng, 2, 12) for _ in range(rng.randint(1, 2))] for _ in range(60)]
    hyps = [synth.sentence(rng, 1, 12) for _ in range(60)]
    refs, preds = synth.text_objects(answers, hyps)
    family = SentenceBleu({"tokenize": tokenize}, ScoringContext())
    result = family.score(refs, preds, SENTENCE_BLEU_WEIGHTS)
    split = (lambda s: s.split()) if tokenize == "word" else (lambda s: s)
    for name, weights in SENTENCE_BLEU_WEIGHTS.items():
        expected = [nltk_bleu([split(a) for a in ans], split(h), weights) for ans, h in zip(answers, hyps)]
        np.testing.assert_allclose(result[name].values, expected, rtol=1e-12, atol=1e-300)


# --- sacrebleu corpus BLEU -------------------------------------------------------------------


def corpus_family() -> CorpusBleu:
    return CorpusBleu({"tokenize": "13a", "smooth": "exp"}, ScoringContext())


def test_corpus_bleu_aggregate_equals_sacrebleu_exactly(synth) -> None:
    rng = random.Random(3)
    answers = [synth.sentence(rng, 5, 30) + rng.choice([".", "!", ""]) for _ in range(300)]
    hyps = [synth.sentence(rng, 5, 30) + rng.choice([".", ",", ""]) for _ in range(300)]
    refs, preds = synth.text_objects(answers, hyps)
    family = corpus_family()
    scores = family.score(refs, preds, ["bleu"])["bleu"]
    aggregate = family.aggregate("bleu", scores, np.ones((1, len(hyps))))[0]
    assert aggregate == sacrebleu.corpus_bleu(hyps, [answers]).score
    # per-item value: sacrebleu's sentence BLEU (effective order)
    for i in (0, 17, 299):
        assert scores.values[i] == sacrebleu.sentence_bleu(hyps[i], [answers[i]]).score


def test_corpus_bleu_with_multiple_references_equals_sacrebleu(synth) -> None:
    rng = random.Random(4)
    first = [synth.sentence(rng) for _ in range(120)]
    second = [synth.sentence(rng) for _ in range(120)]
    hyps = [synth.sentence(rng) for _ in range(120)]
    refs, preds = synth.text_objects(list(zip(first, second)), hyps)
    family = corpus_family()
    scores = family.score(refs, preds, ["bleu"])["bleu"]
    assert family.aggregate("bleu", scores, np.ones((1, 120)))[0] == sacrebleu.corpus_bleu(hyps, [first, second]).score
    # a variable number of references: a missing one is None in its stream
    answers = [(a, b) if i % 3 else (a,) for i, (a, b) in enumerate(zip(first, second))]
    refs, preds = synth.text_objects(answers, hyps)
    scores = family.score(refs, preds, ["bleu"])["bleu"]
    streams = [first, [b if i % 3 else None for i, b in enumerate(second)]]
    assert family.aggregate("bleu", scores, np.ones((1, 120)))[0] == sacrebleu.corpus_bleu(hyps, streams).score


def test_corpus_bleu_bootstrap_row_equals_sacrebleu_on_resampled_lists(synth) -> None:
    from scoring.stats import bootstrap_weights

    rng = random.Random(8)
    answers = [synth.sentence(rng) for _ in range(200)]
    hyps = [synth.sentence(rng) for _ in range(200)]
    refs, preds = synth.text_objects(answers, hyps)
    family = corpus_family()
    scores = family.score(refs, preds, ["bleu"])["bleu"]
    weights = next(bootstrap_weights(200, 5, seed=42))
    aggregates = family.aggregate("bleu", scores, weights)
    for row, value in zip(weights, aggregates):
        counts = row.astype(int)
        assert counts.sum() == 200
        resampled_hyps = [h for h, c in zip(hyps, counts) for _ in range(c)]
        resampled_refs = [a for a, c in zip(answers, counts) for _ in range(c)]
        assert value == sacrebleu.corpus_bleu(resampled_hyps, [resampled_refs]).score
    assert len(set(aggregates.tolist())) == 5  # the rows really differ
