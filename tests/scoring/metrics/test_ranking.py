"""DialBGM ranking metrics against independent implementations.

The tie-aware metrics are the expectation over every order that breaks the
predicted ties; here that expectation is computed by brute force, enumerating
the permutations consistent with the scores and averaging the plain metrics.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import kendalltau

from scoring.engine import Scorer
from scoring.metrics.ranking import relevance_from_gold, tie_aware_ranking_scores
from scoring.specs import get_benchmark

RANDOM_BASELINE = {"hit_at_1": 0.25, "mrr": (1 + 1 / 2 + 1 / 3 + 1 / 4) / 4, "ndcg_at_4": 0.750, "kendall_tau_b": 0.0}


def brute_force(
    scores: list[float], relevance: list[float], gain: str = "exponential", cutoff: int | None = None
) -> tuple[float, float, float]:
    """Hit@1, reciprocal rank and nDCG@cutoff averaged over all tie-consistent orders (uniformly)."""
    k = len(scores)
    cutoff = k if cutoff is None else cutoff
    gains = [2.0**r - 1.0 if gain == "exponential" else float(r) for r in relevance]
    ideal = sum(g / math.log2(p + 2) for p, g in enumerate(sorted(gains, reverse=True)) if p < cutoff)
    top = max(range(k), key=lambda j: relevance[j])
    hits, rrs, ndcgs = [], [], []
    for order in itertools.permutations(range(k)):
        if any(scores[order[p]] < scores[order[p + 1]] for p in range(k - 1)):
            continue  # not consistent with the predicted scores
        position = order.index(top)
        hits.append(1.0 if position == 0 else 0.0)
        rrs.append(1.0 / (position + 1))
        dcg = sum(gains[c] / math.log2(p + 2) for p, c in enumerate(order) if p < cutoff)
        ndcgs.append(dcg / ideal)
    n = len(hits)
    return sum(hits) / n, sum(rrs) / n, sum(ndcgs) / n


def random_case(rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray]:
    # few distinct score levels -> many ties; relevance is a permutation of k-1..0
    levels = rng.integers(1, k + 1)
    scores = rng.integers(0, levels, size=k).astype(float)
    relevance = rng.permutation(k).astype(float)
    return scores, relevance


@pytest.mark.parametrize("gain", ["exponential", "linear"])
@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_tie_aware_metrics_equal_brute_force_over_tie_breaking_orders(k: int, gain: str) -> None:
    rng = np.random.default_rng(1000 + k)
    cases = [random_case(rng, k) for _ in range(150)]
    scores = np.array([c[0] for c in cases])
    relevance = np.array([c[1] for c in cases])
    ours = tie_aware_ranking_scores(scores, relevance, gain=gain)
    n_tied_cases = 0
    for i, (s, r) in enumerate(cases):
        hit, rr, ndcg = brute_force(list(s), list(r), gain)
        assert ours["hit_at_1"][i] == pytest.approx(hit, abs=1e-12)
        assert ours["mrr"][i] == pytest.approx(rr, abs=1e-12)
        assert ours["ndcg"][i] == pytest.approx(ndcg, abs=1e-12)
        n_tied_cases += len(set(s)) < k
    assert n_tied_cases > 50  # the cases really exercise ties


@pytest.mark.parametrize(("k", "cutoff"), [(4, 2), (5, 3), (5, 4), (6, 4)])
def test_ndcg_with_a_cutoff_equals_brute_force(k: int, cutoff: int) -> None:
    rng = np.random.default_rng(77 + k + cutoff)
    cases = [random_case(rng, k) for _ in range(80)]
    ours = tie_aware_ranking_scores(np.array([c[0] for c in cases]), np.array([c[1] for c in cases]), cutoff=cutoff)
    for i, (s, r) in enumerate(cases):
        assert ours["ndcg"][i] == pytest.approx(brute_force(list(s), list(r), cutoff=cutoff)[2], abs=1e-12)


def test_hand_case_top_item_in_two_way_top_tie() -> None:
    # gold best is c0 (relevance 3); it ties with c2 (relevance 1) at the top
    scores = np.array([[5.0, 1.0, 5.0, 0.0]])
    relevance = np.array([[3.0, 2.0, 1.0, 0.0]])
    ours = tie_aware_ranking_scores(scores, relevance)
    assert ours["hit_at_1"][0] == 0.5
    assert ours["mrr"][0] == pytest.approx((1 + 1 / 2) / 2)
    # c0 and c2 share positions 1-2, c1 at 3, c3 at 4; gains 7, 3, 1, 0
    d = [1 / math.log2(p + 1) for p in (1, 2, 3, 4)]
    dcg = (7 + 1) * (d[0] + d[1]) / 2 + 3 * d[2]
    ideal = 7 * d[0] + 3 * d[1] + 1 * d[2]
    assert ours["ndcg"][0] == pytest.approx(dcg / ideal, abs=1e-15)


def test_relevance_is_three_two_one_zero_for_gold_ranks_one_to_four() -> None:
    assert relevance_from_gold(["a", "b", "c", "d"], ["c", "a", "d", "b"]) == [2.0, 0.0, 3.0, 1.0]


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_kendall_tau_b_equals_scipy_variant_b(k: int) -> None:
    rng = np.random.default_rng(k)
    cases = [random_case(rng, k) for _ in range(300)]
    scores = np.array([c[0] for c in cases])
    relevance = np.array([c[1] for c in cases])
    ours = tie_aware_ranking_scores(scores, relevance)
    for i, (s, r) in enumerate(cases):
        expected = kendalltau(s, r, variant="b").statistic
        if np.isnan(expected):  # all predicted scores tied: 0/0, counted as 0
            assert len(set(s)) == 1
            assert ours["kendall_tau_b"][i] == 0.0
            assert ours["all_tied"][i] == 1.0
        else:
            assert ours["kendall_tau_b"][i] == pytest.approx(expected, abs=1e-12)
            assert ours["all_tied"][i] == 0.0


def test_kendall_tau_b_hand_values() -> None:
    relevance = np.array([[3.0, 2.0, 1.0, 0.0]] * 4)
    scores = np.array([
        [4.0, 3.0, 2.0, 1.0],  # perfect: +1
        [1.0, 2.0, 3.0, 4.0],  # reversed: -1
        [2.0, 2.0, 1.0, 0.0],  # one tied pair: 5 concordant / sqrt(5 * 6)
        [7.0, 7.0, 7.0, 7.0],  # all tied: 0
    ])
    tau = tie_aware_ranking_scores(scores, relevance)["kendall_tau_b"]
    assert tau.tolist() == pytest.approx([1.0, -1.0, 5 / math.sqrt(30), 0.0], abs=1e-15)


def _scorer(refs, profile=None):
    return Scorer(get_benchmark("dialbgm"), refs, profile=profile)


def test_all_tied_predictions_count_zero_and_are_reported(synth) -> None:
    scores = np.array([[1.0, 1.0, 1.0, 1.0], [2.0, 1.0, 0.5, 0.0], [0.0, 0.0, 0.0, 0.0]])
    relevance = np.array([[3.0, 2.0, 1.0, 0.0]] * 3)
    refs, preds = synth.ranking_objects(scores, relevance)
    scorer = _scorer(refs)
    report = scorer.report([scorer.score_run(preds)], n_bootstrap=20)
    assert report.diagnostics == {"all_tied": [2]}
    assert report.metrics["kendall_tau_b"] == pytest.approx(1 / 3, abs=1e-15)
    assert report.metrics["hit_at_1"] == pytest.approx((0.25 + 1 + 0.25) / 3, abs=1e-15)


def test_seeded_random_scorer_matches_the_random_baseline(synth) -> None:
    rng = np.random.default_rng(20250101)
    n = 4000
    relevance = np.array([rng.permutation(4) for _ in range(n)], dtype=float)
    scores = rng.random((n, 4))
    refs, preds = synth.ranking_objects(scores, relevance)
    scorer = _scorer(refs)
    report = scorer.report([scorer.score_run(preds)], n_bootstrap=10)
    for key, expected in RANDOM_BASELINE.items():
        assert report.metrics[key] == pytest.approx(expected, abs=0.01), key
    assert report.diagnostics == {"all_tied": [0]}

    linear = _scorer(refs, profile="linear-gain")
    linear_report = linear.report([linear.score_run(preds)], n_bootstrap=10)
    assert linear_report.metrics["ndcg_at_4"] == pytest.approx(0.807, abs=0.01)
    # the exact expectations of a uniformly random order of 4 (= an all-tied prediction)
    tied_refs, tied_preds = synth.ranking_objects(np.zeros((1, 4)), relevance[:1])
    for profile, expected in (("linear-gain", 0.8069), ("official", 0.7500)):
        tied = _scorer(tied_refs, profile=profile)
        value = tied.report([tied.score_run(tied_preds)], n_bootstrap=10).metrics["ndcg_at_4"]
        assert value == pytest.approx(expected, abs=5e-5), profile


def test_ranking_prediction_format_equals_scores_format(tmp_path, synth, jsonl) -> None:
    from scoring import load_predictions, load_references

    spec = get_benchmark("dialbgm")
    refs, preds = synth.dialbgm(50, seed=3)
    ranked = [{"id": p["id"], "ranking": sorted(p["scores"], key=lambda c: -p["scores"][c])} for p in preds]
    reference_set = load_references(spec, jsonl.write(tmp_path / "refs.jsonl", refs))
    by_scores = load_predictions(spec, reference_set, jsonl.write(tmp_path / "scores.jsonl", preds))
    by_ranking = load_predictions(spec, reference_set, jsonl.write(tmp_path / "ranking.jsonl", ranked))
    scorer = Scorer(spec, reference_set.references)
    a = scorer.report([scorer.score_run(by_scores)], n_bootstrap=10).metrics
    b = scorer.report([scorer.score_run(by_ranking)], n_bootstrap=10).metrics
    assert a == b


def test_items_with_different_candidate_counts_are_scored_each_by_its_own_size(synth) -> None:
    rng = np.random.default_rng(5)
    refs, preds, expected = [], [], []
    for i in range(60):
        k = int(rng.integers(2, 6))
        scores, relevance = random_case(rng, k)
        r, p = synth.ranking_objects(scores[None, :], relevance[None, :])
        refs.append(r[0].__class__(f"m{i}", i + 1, r[0].public, gold_ranking=r[0].gold_ranking))
        preds.append(p[0].__class__(f"m{i}", i + 1, scores=p[0].scores))
        hit, rr, ndcg = brute_force(list(scores), list(relevance), cutoff=4)
        tau = kendalltau(scores, relevance, variant="b").statistic
        expected.append((hit, rr, ndcg, 0.0 if np.isnan(tau) else tau))
    run = _scorer(refs).score_run(preds)
    for column, key in enumerate(("hit_at_1", "mrr", "ndcg_at_4", "kendall_tau_b")):
        assert run[key].values.tolist() == pytest.approx([e[column] for e in expected], abs=1e-12), key
