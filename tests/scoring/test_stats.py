"""Bootstrap intervals, paired comparison, chunking and signatures of the engine."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.engine import Scorer, concat_run_scores
from scoring.metrics.base import ItemScores
from scoring.specs import get_benchmark
from scoring.stats import bootstrap_weights, holm_adjusted, paired_bootstrap_p_value, percentile_interval, run_std
from scoring.task_types import Prediction, Reference


def jamendo_scorer(synth, n_pairs: int = 40, seed: int = 0):
    refs, preds = synth.jamendo(n_pairs, seed=seed)
    references = [Reference(r["id"], i + 1, {"qa_type": r["qa_type"]}, (r["answer"],), qa_type=r["qa_type"])
                  for i, r in enumerate(refs)]
    predictions = [Prediction(p["id"], i + 1, text=p["prediction"]) for i, p in enumerate(preds)]
    return Scorer(get_benchmark("jamendo-mt-qa"), references), references, predictions


def test_bootstrap_weights_are_resample_counts_and_deterministic() -> None:
    blocks = list(bootstrap_weights(50, 250, seed=3))
    assert [b.shape for b in blocks] == [(100, 50), (100, 50), (50, 50)]
    weights = np.vstack(blocks)
    assert (weights.sum(axis=1) == 50).all() and (weights >= 0).all()
    assert np.array_equal(weights, np.vstack(list(bootstrap_weights(50, 250, seed=3))))
    assert not np.array_equal(weights, np.vstack(list(bootstrap_weights(50, 250, seed=4))))


def test_bootstrap_weights_are_the_int64_draws_of_the_seed() -> None:
    # the weights the engine always used (int64 draws, one bincount per row): faster drawing must not move them
    for n, replicates, seed in ((1, 3, 0), (2, 150, 1), (997, 230, 2), (36_519, 100, 0)):
        rng = np.random.default_rng(seed)
        expected = []
        for start in range(0, replicates, 100):
            draws = rng.integers(0, n, size=(min(100, replicates - start), n))
            expected.append(np.array([np.bincount(row, minlength=n) for row in draws], dtype=float))
        got = list(bootstrap_weights(n, replicates, seed))
        assert len(got) == len(expected)
        for block, want in zip(got, expected):
            assert block.dtype == np.float64 and np.array_equal(block, want), (n, seed)


def test_ci95_deterministic_per_seed(synth) -> None:
    scorer, _, predictions = jamendo_scorer(synth)
    run = scorer.score_run(predictions)
    a = scorer.report([run], seed=5, n_bootstrap=300)
    b = scorer.report([run], seed=5, n_bootstrap=300)
    c = scorer.report([run], seed=6, n_bootstrap=300)
    assert a.ci95 == b.ci95
    assert a.metrics == c.metrics
    for key in a.ci95:
        assert a.ci95[key] != c.ci95[key], key
        low, high = a.ci95[key]
        assert low <= a.metrics[key] <= high
    assert a.bootstrap == {"replicates": 300, "seed": 5, "method": "percentile, items resampled"}


def test_ci95_of_a_mean_matches_a_direct_percentile_bootstrap(synth) -> None:
    scorer, _, predictions = jamendo_scorer(synth)
    run = scorer.score_run(predictions)
    report = scorer.report([run], seed=9, n_bootstrap=200)
    values = run["rouge1"].values * 100
    defined = ~np.isnan(values)
    replicates = []
    for weights in bootstrap_weights(len(values), 200, seed=9):
        for row in weights:
            replicates.append((row[defined] * values[defined]).sum() / row[defined].sum())
    expected = np.percentile(replicates, [2.5, 97.5])
    assert report.ci95["rouge1"] == pytest.approx(tuple(expected), abs=1e-9)


def test_paired_compare_of_identical_runs(synth) -> None:
    scorer, _, predictions = jamendo_scorer(synth)
    run = scorer.score_run(predictions)
    result = scorer.compare([run], [run], seed=1, n_bootstrap=200)
    for key, row in result.items():
        assert row["difference"] == 0.0, key
        assert row["ci95"] == (0.0, 0.0)
        assert row["p_value"] == pytest.approx(1.0)
        assert row["better"] is None


def test_paired_compare_of_a_clearly_better_run(synth) -> None:
    scorer, references, predictions = jamendo_scorer(synth)
    worse = scorer.score_run(predictions)
    better = scorer.score_run([Prediction(p.id, p.line, text=r.answers[0]) for r, p in zip(references, predictions)])
    result = scorer.compare([better], [worse], seed=1, n_bootstrap=500)
    for key, row in result.items():
        assert row["better"] == "a", key
        assert row["difference"] > 0
        assert row["p_value"] < 0.01, key
        assert row["p_value"] == pytest.approx(1 / 501)
        assert row["ci95"][0] > 0


def test_p_value_and_interval_helpers() -> None:
    samples = np.array([-1.0, 0.0, 1.0, 2.0])  # centred: -1.5 -0.5 0.5 1.5
    assert paired_bootstrap_p_value(1.0, samples) == (2 + 1) / 5
    assert np.isnan(paired_bootstrap_p_value(float("nan"), samples))
    assert percentile_interval(np.array([1.0, np.nan])) is None
    assert percentile_interval(np.arange(101.0)) == pytest.approx((2.5, 97.5), abs=1e-12)
    assert run_std([1.0]) is None
    assert run_std([1.0, 3.0]) == pytest.approx(2**0.5)


def _holm_rejects(p_values: list[float], alpha: float) -> set[int]:
    """Holm's step-down procedure as published: test the smallest p-value at alpha / m, the next at
    alpha / (m - 1), ..., stopping at the first that is not rejected."""
    rejected = set()
    for rank, (p, index) in enumerate(sorted((p, i) for i, p in enumerate(p_values))):
        if p > alpha / (len(p_values) - rank):
            break
        rejected.add(index)
    return rejected


def test_holm_adjusted_p_values_reject_what_the_step_down_procedure_rejects() -> None:
    assert holm_adjusted([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm_adjusted([0.5, None, 0.9]) == [pytest.approx(1.0), None, pytest.approx(1.0)]  # no test, no count
    assert holm_adjusted([]) == [] and holm_adjusted([0.2]) == [0.2]
    rng = np.random.default_rng(5)
    for m in (2, 3, 7, 25):
        p_values = (rng.random(m) ** 3).tolist()  # many small ones
        adjusted = holm_adjusted(p_values)
        for alpha in (0.01, 0.05, 0.1, 0.3):
            assert {i for i, a in enumerate(adjusted) if a is not None and a <= alpha} == \
                _holm_rejects(p_values, alpha), (m, alpha)
        assert all(a is not None and p <= a <= 1 for p, a in zip(p_values, adjusted))


def test_chunk_size_changes_nothing(synth) -> None:
    scorer, _, predictions = jamendo_scorer(synth, n_pairs=30)
    whole = scorer.score_run(predictions)
    chunked = scorer.score_run(predictions, chunk_size=7)
    assert whole.keys() == chunked.keys()
    for key in whole:
        np.testing.assert_array_equal(whole[key].values, chunked[key].values)
        if whole[key].stats is not None:
            np.testing.assert_array_equal(whole[key].stats, chunked[key].stats)
    assert scorer.report([whole], n_bootstrap=50).as_json() == scorer.report([chunked], n_bootstrap=50).as_json()


def test_progress_reports_every_chunk(synth) -> None:
    scorer, _, predictions = jamendo_scorer(synth, n_pairs=10)
    seen = []
    scorer.score_run(predictions, chunk_size=8, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(8, 30), (16, 30), (24, 30), (30, 30)]


def test_report_from_stored_values_in_a_fresh_scorer_has_the_same_signatures(synth) -> None:
    # the site rebuilds runs from stored per-item values and reports with a new Scorer
    scorer, references, predictions = jamendo_scorer(synth)
    run = scorer.score_run(predictions)
    original = scorer.report([run], n_bootstrap=50)
    stored = {k: ItemScores(v.values.copy(), None if v.stats is None else v.stats.copy()) for k, v in run.items()}
    fresh = Scorer(get_benchmark("jamendo-mt-qa"), references)
    again = fresh.report([stored], n_bootstrap=50)
    assert again.as_json() == original.as_json()
    assert "sacrebleu:nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0" in again.signatures["bleu"]


def test_bleu_signature_does_not_depend_on_other_scoring_in_the_process(synth) -> None:
    scorer, references, predictions = jamendo_scorer(synth)
    scorer.score_run(predictions)
    expected = scorer.signature("bleu")
    # score a corpus with two references per sentence in the same process
    two_refs = [Reference(r.id, r.line, r.public, (r.answers[0], "another reference"), qa_type=r.qa_type)
                for r in references]
    other = Scorer(get_benchmark("jamendo-mt-qa"), two_refs)
    other.score_run(predictions)
    assert "nrefs:2|" in other.signature("bleu")
    assert scorer.signature("bleu") == expected
    assert Scorer(get_benchmark("jamendo-mt-qa"), references).signature("bleu") == expected


def test_comparative_set_without_sentence_items_reports(synth) -> None:
    answers, predictions, qa_types = ["Yes", "No"], ["yes", "yes"], ["yes_no", "yes_no"]
    refs, preds = synth.text_objects(answers, predictions, qa_types)
    scorer = Scorer(get_benchmark("jamendo-mt-qa"), refs)
    report = scorer.report([scorer.score_run(preds)], n_bootstrap=20)
    assert report.metrics["yes_no_accuracy"] == 0.5
    assert report.metrics["short_answer_accuracy"] is None and report.metrics["bleu"] is None
    assert report.ci95["bleu"] is None and report.n_scored["bleu"] == 0
    assert "nrefs:1|" in report.signatures["bleu"]


def test_item_rows_and_concat(synth) -> None:
    scorer, _, predictions = jamendo_scorer(synth, n_pairs=5)
    run = scorer.score_run(predictions)
    rows = list(scorer.item_rows([run, run]))
    assert len(rows) == 30 and rows[0]["run"] == 1 and rows[-1]["run"] == 2
    assert concat_run_scores([]) == {}
