"""DialBGM ranking metrics on 100,000 synthetic items: our vectorised code vs per-item loops.

* ours (core): ``scoring.metrics.ranking.tie_aware_ranking_scores`` on (n, 4) arrays;
* ours (engine): ``Scorer.score_run`` on Reference/Prediction records (relevance built from each
  item's gold ranking, chunks of 2,000), what ``python -m scoring score`` runs;
* bare: ``scipy.stats.kendalltau(x, y, variant="b")`` per item plus a straightforward per-item
  Python loop for tie-aware Hit@1 / MRR / nDCG@4 (2^rel - 1 gain).

Scores are integers 0-10, as LLM raters give them, so ties are frequent. The script checks that
both sides give the same per-item values, then prints the times and ratios.

    .venv/bin/python bench/ranking_speed.py [--items 100000] [--seed 0]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np


def bare_tau(scores: np.ndarray, relevance: np.ndarray) -> np.ndarray:
    from scipy.stats import kendalltau

    tau = np.empty(len(scores))
    for i in range(len(scores)):
        t = kendalltau(scores[i], relevance[i], variant="b").statistic
        tau[i] = 0.0 if math.isnan(t) else t
    return tau


def bare_loop(scores: np.ndarray, relevance: np.ndarray) -> dict[str, np.ndarray]:
    n, k = scores.shape
    discounts = [1.0 / math.log2(p + 1) for p in range(1, k + 1)]
    hit, mrr, ndcg = (np.empty(n) for _ in range(3))
    for i in range(n):
        s, rel = scores[i].tolist(), relevance[i].tolist()
        top = rel.index(max(rel))
        above = sum(1 for x in s if x > s[top])
        tied = sum(1 for x in s if x == s[top])
        hit[i] = 1.0 / tied if above == 0 else 0.0
        mrr[i] = sum(1.0 / r for r in range(above + 1, above + tied + 1)) / tied
        dcg = 0.0
        for j in range(k):
            g = sum(1 for x in s if x > s[j])
            e = sum(1 for x in s if x == s[j])
            dcg += (2.0 ** rel[j] - 1.0) * sum(discounts[g:g + e]) / e
        ideal = sum((2.0 ** r - 1.0) * d for r, d in zip(sorted(rel, reverse=True), discounts))
        ndcg[i] = dcg / ideal
    return {"hit_at_1": hit, "mrr": mrr, "ndcg": ndcg}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from scoring.engine import Scorer
    from scoring.metrics.ranking import tie_aware_ranking_scores
    from scoring.specs import get_benchmark
    from scoring.task_types import Prediction, Reference

    rng = np.random.default_rng(args.seed)
    n = args.items
    scores = rng.integers(0, 11, size=(n, 4)).astype(float)
    relevance = np.array([rng.permutation(4) for _ in range(n)], dtype=float)

    start = time.perf_counter()
    ours = tie_aware_ranking_scores(scores, relevance)
    core_time = time.perf_counter() - start

    candidates = ["a", "b", "c", "d"]
    references, predictions = [], []
    for i in range(n):
        gold = tuple(c for _, c in sorted(zip(relevance[i].tolist(), candidates), reverse=True))
        references.append(Reference(f"d{i}", i + 1, {"candidates": candidates}, gold_ranking=gold))
        predictions.append(Prediction(f"d{i}", i + 1, scores=tuple(scores[i].tolist())))
    scorer = Scorer(get_benchmark("dialbgm"), references)
    start = time.perf_counter()
    run = scorer.score_run(predictions)
    engine_time = time.perf_counter() - start

    start = time.perf_counter()
    bare = bare_loop(scores, relevance)
    loop_time = time.perf_counter() - start
    start = time.perf_counter()
    bare["kendall_tau_b"] = bare_tau(scores, relevance)
    tau_time = time.perf_counter() - start
    bare_time = loop_time + tau_time

    for key, values in bare.items():
        np.testing.assert_allclose(ours[key], values, rtol=0, atol=1e-12, err_msg=key)
        engine_key = "ndcg_at_4" if key == "ndcg" else key
        np.testing.assert_allclose(run[engine_key].values, values, rtol=0, atol=1e-12, err_msg=key)

    tied = int(ours["all_tied"].sum())
    print(f"items: {n:,} x 4 candidates, integer scores 0-10 ({tied:,} all-tied); per-item values equal")
    print("means: " + ", ".join(f"{k}={float(np.mean(v)):.4f}" for k, v in ours.items() if k != "all_tied"))
    rows = [
        ("bare: per-item scipy.stats.kendalltau", tau_time, None),
        ("bare: per-item Python loop Hit@1/MRR/nDCG@4", loop_time, None),
        ("bare: total", bare_time, None),
        ("ours: vectorised core (all four metrics)", core_time, bare_time / core_time),
        ("ours: Scorer.score_run (records -> metrics)", engine_time, bare_time / engine_time),
    ]
    for label, seconds, ratio in rows:
        print(f"{label:45} {seconds:8.3f} s" + (f"   bare/ours = {ratio:.1f}x" if ratio else ""))

if __name__ == "__main__":
    main()
