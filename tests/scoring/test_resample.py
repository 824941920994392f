"""Many bootstrap statistics from one matrix product per block (scoring.resample), against slow loops."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from scoring.engine import Scorer
from scoring.exact import slices as _slices
from scoring.metrics.base import ItemScores, Totals, mean_totals, sum_totals, weighted_nanmean
from scoring.metrics.bleu import CorpusBleu
from scoring.metrics.ranking import RankingMetrics
from scoring.resample import bootstrap_statistics
from scoring.specs import get_benchmark
from scoring.stats import bootstrap_weights
from scoring.task_types import Prediction, Reference


def jamendo_scorer(synth, n_pairs: int):
    refs, preds = synth.jamendo(n_pairs, seed=0)
    references = [Reference(r["id"], i + 1, {"qa_type": r["qa_type"]}, (r["answer"],), qa_type=r["qa_type"])
                  for i, r in enumerate(refs)]
    predictions = [Prediction(p["id"], i + 1, text=p["prediction"]) for i, p in enumerate(preds)]
    return Scorer(get_benchmark("jamendo-mt-qa"), references), references, predictions


def _columns(n: int, seed: int) -> dict[str, np.ndarray]:
    """Per-item values with different NaN patterns and scales (as metric columns have)."""
    rng = np.random.default_rng(seed)
    columns = {
        "f1": rng.random(n),
        "accuracy": rng.integers(0, 2, n).astype(float),
        "tiny": rng.random(n) * 1e-9 - 3e-10,
        "wide": rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n),
    }
    columns["f1"][rng.random(n) < 0.6] = np.nan  # a subset, as qa_type=sentence
    columns["accuracy"][rng.random(n) < 0.3] = np.nan
    columns["wide"][rng.random(n) < 0.1] = np.nan
    return columns


def _exact_mean(values: np.ndarray, weights: np.ndarray) -> float:
    """The weighted mean over defined items in exact rational arithmetic, rounded once."""
    defined = ~np.isnan(values)
    count = int(weights[defined].sum())
    if count == 0:
        return float("nan")
    total = sum((Fraction(int(w)) * Fraction(float(v)) for w, v in zip(weights[defined], values[defined])),
                Fraction(0))
    return float(total / count)


def test_stacked_means_equal_exact_rational_means_of_each_replicate() -> None:
    n, replicates, seed = 401, 130, 11  # two blocks, the second partial
    columns = _columns(n, seed=1)
    result = bootstrap_statistics({k: mean_totals(v) for k, v in columns.items()}, n, replicates, seed)
    weights = np.vstack(list(bootstrap_weights(n, replicates, seed)))
    for key, values in columns.items():
        expected = np.array([_exact_mean(values, row) for row in weights])
        assert result[key].shape == (replicates,)
        # each total is exact before one rounding (two for a column of three slices): within 1 ulp
        np.testing.assert_allclose(result[key], expected, rtol=3e-16, atol=0, err_msg=key)
        # and the old matrix-vector path (BLAS's own order) agrees to 1e-12
        defined = ~np.isnan(values)
        blas = (weights @ np.where(defined, values, 0.0)) / (weights @ defined.astype(float))
        np.testing.assert_allclose(result[key], blas, rtol=1e-12, err_msg=key)
        # the one-statistic path used for the plain score gives the same bits
        np.testing.assert_array_equal(weighted_nanmean(values, weights), result[key], err_msg=key)


def test_plain_score_is_the_all_ones_replicate_and_exact_on_any_number_of_threads() -> None:
    n = 36_519
    ones = np.ones((1, n))
    for key, values in _columns(n, seed=6).items():
        plain = weighted_nanmean(values, ones)
        with threadpool_limits(limits=1):
            np.testing.assert_array_equal(weighted_nanmean(values, ones), plain, err_msg=key)
        np.testing.assert_allclose(plain, [_exact_mean(values, ones[0])], rtol=3e-16, atol=0, err_msg=key)
        fractional = weighted_nanmean(values, np.full((1, n), 0.5))  # not counts: BLAS's sum
        np.testing.assert_allclose(fractional, plain, rtol=1e-12, err_msg=key)


def test_a_statistic_is_the_same_alone_beside_others_and_on_any_number_of_threads() -> None:
    n, replicates, seed = 2_003, 300, 5
    columns = _columns(n, seed=2)
    everything = {k: mean_totals(v) for k, v in columns.items()}
    everything["sum"] = sum_totals(columns["wide"])
    together = bootstrap_statistics(everything, n, replicates, seed)
    for key, statistic in everything.items():
        alone = bootstrap_statistics({key: statistic}, n, replicates, seed)[key]
        np.testing.assert_array_equal(alone, together[key], err_msg=key)
    with threadpool_limits(limits=1):
        single = bootstrap_statistics(everything, n, replicates, seed)
    for key in everything:
        np.testing.assert_array_equal(single[key], together[key], err_msg=key)


def test_slices_add_up_to_the_column_and_stay_on_their_grids() -> None:
    values = np.array([0.1, 1 / 3, -2.5, 1e-12, 0.0, 3.0])
    bits = 53 - (1_000 - 1).bit_length()
    parts = _slices(values, bits)
    assert 1 < len(parts) <= 3
    assert sum(Fraction(float(x)) for p in parts for x in p) == sum(Fraction(float(v)) for v in values)
    for k, part in enumerate(parts, start=1):
        steps = part / 2.0 ** (2 - k * bits)  # |values| < 2**2
        assert np.array_equal(steps, np.rint(steps)) and np.abs(steps).max() <= 2.0**bits
    assert len(_slices(np.array([0.0, 1.0, 3.0]), bits)) == 1  # integers and masks: one exact slice
    assert _slices(np.zeros(4), bits) == []


def test_callables_share_the_replicates_of_totals() -> None:
    n, replicates, seed = 300, 150, 3
    values = _columns(n, seed=3)["f1"]
    result = bootstrap_statistics(
        {"totals": mean_totals(values), "callable": lambda w: weighted_nanmean(values, w)}, n, replicates, seed)
    np.testing.assert_allclose(result["totals"], result["callable"], rtol=1e-12)
    assert bootstrap_statistics({"x": mean_totals(values)}, 0, 7, seed)["x"].shape == (7,)


def test_corpus_bleu_and_all_tied_totals_equal_their_aggregates_exactly() -> None:
    rng = np.random.default_rng(4)
    n = 500
    stats = rng.integers(0, 30, size=(n, 10))
    values = rng.random(n) * 100
    values[rng.random(n) < 0.5] = np.nan
    bleu = CorpusBleu({"tokenize": "13a", "smooth": "exp"}, None)  # type: ignore[arg-type]
    scores = ItemScores(values, stats)
    totals = bleu.totals("bleu", scores)
    weights = np.vstack(list(bootstrap_weights(n, 120, 8)))
    result = bootstrap_statistics({"bleu": totals}, n, 120, 8)["bleu"]
    np.testing.assert_array_equal(result, bleu.aggregate("bleu", scores, weights))
    tied = rng.integers(0, 2, n).astype(float)
    ranking = RankingMetrics({}, None)  # type: ignore[arg-type]
    result = bootstrap_statistics({"t": ranking.totals("all_tied", ItemScores(tied))}, n, 120, 8)["t"]
    np.testing.assert_array_equal(result, ranking.aggregate("all_tied", ItemScores(tied), weights))
    empty = bleu.totals("bleu", ItemScores(values))
    assert isinstance(empty, Totals) and np.isnan(bootstrap_statistics({"b": empty}, n, 5, 1)["b"]).all()


def test_compare_of_some_keys_equals_their_rows_of_the_full_compare(synth) -> None:
    scorer, _, predictions = jamendo_scorer(synth, n_pairs=60)
    a = scorer.score_run(predictions)
    b = scorer.score_run([Prediction(p.id, p.line, text=p.text + " extra") for p in predictions])
    full = scorer.compare([a], [b], seed=2, n_bootstrap=200)
    for key in ("rouge1", "bleu", "yes_no_accuracy"):
        assert scorer.compare([a], [b], seed=2, n_bootstrap=200, keys=[key])[key] == full[key]


@pytest.mark.parametrize("runs", [1, 3])
def test_report_intervals_match_a_slow_loop_over_replicates(synth, runs: int) -> None:
    scorer, _, predictions = jamendo_scorer(synth, n_pairs=50)
    run_list = [scorer.score_run(predictions[i:] + predictions[:i]) for i in range(runs)]
    report = scorer.report(run_list, seed=4, n_bootstrap=150)
    weights = np.vstack(list(bootstrap_weights(len(predictions), 150, 4)))
    for key in ("rouge2", "bleu", "short_answer_accuracy"):
        samples = np.mean([scorer.aggregate(key, [run], weights) for run in run_list], axis=0)
        expected = np.percentile(samples, [2.5, 97.5])
        assert report.ci95[key] == pytest.approx(tuple(expected), rel=1e-12), key
