"""Tie-aware ranking metrics (DialBGM), vectorised over items with numpy.

Each metric is the expectation over all orders that break the predicted ties
uniformly at random (DialBGM §3.1): a candidate whose score is shared by ``e``
candidates, with ``g`` candidates scored strictly higher, is equally likely to
sit at any position ``g+1 .. g+e``. Kendall's tau-b uses the tie-corrected
denominator (``scipy.stats.kendalltau(variant="b")``); an all-tied prediction
makes it 0/0, which is counted as 0 and reported as a diagnostic.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import ItemScores, MetricFamily, Totals, mean_totals, register_family, sum_totals
from scoring.task_types import Prediction, Reference

GAINS = ("exponential", "linear")


def tie_aware_ranking_scores(
    scores: np.ndarray, relevance: np.ndarray, *, gain: str = "exponential", cutoff: int | None = None
) -> dict[str, np.ndarray]:
    """Per-item Hit@1, MRR, nDCG@cutoff and Kendall tau-b for ``n`` items of ``k`` candidates.

    ``scores`` (n, k): predicted scores, higher is better, ties allowed.
    ``relevance`` (n, k): gold relevance, ``k-1`` for the gold best down to 0.
    ``gain``: ``"exponential"`` (2**rel - 1, the DialBGM official profile) or ``"linear"``.
    Returns arrays of shape (n,) keyed ``hit_at_1, mrr, ndcg, kendall_tau_b, all_tied``.
    """
    if gain not in GAINS:
        raise ValueError(f"unknown gain {gain!r}; valid: {', '.join(GAINS)}")
    scores = np.asarray(scores, dtype=float)
    relevance = np.asarray(relevance, dtype=float)
    n, k = scores.shape
    cutoff = k if cutoff is None else cutoff
    above = (scores[:, None, :] > scores[:, :, None]).sum(axis=2)  # (n, k): strictly higher
    tied = (scores[:, None, :] == scores[:, :, None]).sum(axis=2)  # (n, k): tie group size

    positions = np.arange(1, k + 1)
    reciprocal_cum = np.concatenate([[0.0], np.cumsum(1.0 / positions)])
    discount = np.where(positions <= cutoff, 1.0 / np.log2(positions + 1), 0.0)
    discount_cum = np.concatenate([[0.0], np.cumsum(discount)])

    rows = np.arange(n)
    top = np.argmax(relevance, axis=1)
    top_above, top_tied = above[rows, top], tied[rows, top]
    hit = np.where(top_above == 0, 1.0 / top_tied, 0.0)
    mrr = (reciprocal_cum[top_above + top_tied] - reciprocal_cum[top_above]) / top_tied

    gains = np.power(2.0, relevance) - 1.0 if gain == "exponential" else relevance
    expected_discount = (discount_cum[above + tied] - discount_cum[above]) / tied
    dcg = (gains * expected_discount).sum(axis=1)
    ideal = (np.sort(gains, axis=1)[:, ::-1] * discount).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        ndcg = np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1.0), 0.0)

    tau, all_tied = _kendall_tau_b(scores, relevance)
    return {"hit_at_1": hit, "mrr": mrr, "ndcg": ndcg, "kendall_tau_b": tau, "all_tied": all_tied}


def _kendall_tau_b(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    k = x.shape[1]
    i, j = np.triu_indices(k, 1)
    sx = np.sign(x[:, i] - x[:, j])
    sy = np.sign(y[:, i] - y[:, j])
    pairs = len(i)
    untied_x = pairs - (sx == 0).sum(axis=1)
    untied_y = pairs - (sy == 0).sum(axis=1)
    denominator = np.sqrt(untied_x.astype(float) * untied_y)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(denominator > 0, (sx * sy).sum(axis=1) / np.where(denominator > 0, denominator, 1.0), 0.0)
    return tau, (untied_x == 0).astype(float)


def relevance_from_gold(candidates: Sequence[str], gold_ranking: Sequence[str]) -> list[float]:
    """Relevance ``k-1 .. 0`` of each candidate, in candidate order, from a best-to-worst list."""
    k = len(gold_ranking)
    position = {cand: i for i, cand in enumerate(gold_ranking)}
    return [float(k - 1 - position[c]) for c in candidates]


@register_family
class RankingMetrics(MetricFamily):
    """Hit@1, MRR, nDCG@k and Kendall tau-b, tie-aware (params: ``gain``, ``cutoff``)."""

    name: ClassVar[str] = "ranking"
    outputs: ClassVar[tuple[str, ...]] = ("hit_at_1", "mrr", "ndcg", "kendall_tau_b", "all_tied")
    task_types: ClassVar[tuple[str, ...]] = ("ranking",)
    diagnostic_outputs: ClassVar[tuple[str, ...]] = ("all_tied",)

    @classmethod
    def value_range(cls, params: Mapping[str, Any], output: str) -> tuple[float, float]:
        return (-1.0, 1.0) if output == "kendall_tau_b" else (0.0, 1.0)

    def score(
        self,
        references: Sequence[Reference],
        predictions: Sequence[Prediction],
        outputs: Collection[str],
    ) -> dict[str, ItemScores]:
        n = len(references)
        result = {name: np.full(n, np.nan) for name in self.outputs}
        by_size: dict[int, list[int]] = {}
        for index, ref in enumerate(references):
            by_size.setdefault(len(ref.candidates), []).append(index)
        for size, indices in by_size.items():
            scores = np.array([predictions[i].scores for i in indices], dtype=float).reshape(-1, size)
            relevance = np.array(
                [relevance_from_gold(references[i].candidates, references[i].gold_ranking) for i in indices],
                dtype=float,
            ).reshape(-1, size)
            values = tie_aware_ranking_scores(
                scores, relevance, gain=self.params.get("gain", "exponential"), cutoff=self.params.get("cutoff")
            )
            for name, array in values.items():
                result[name][indices] = array
        return {name: ItemScores(result[name]) for name in outputs}

    @classmethod
    def item_mean_is_value(cls, output: str) -> bool:
        return output != "all_tied"  # a count of all-tied queries, the others are means

    def aggregate(self, output: str, scores: ItemScores, weights: np.ndarray) -> np.ndarray:
        return self.totals(output, scores).of(weights)

    def totals(self, output: str, scores: ItemScores) -> Totals:
        return sum_totals(scores.values) if output == "all_tied" else mean_totals(scores.values)

    def signature_fields(self, output: str) -> dict[str, str]:
        fields = {"ties": "expected"}
        if output == "ndcg":
            fields["gain"] = "exp2" if self.params.get("gain", "exponential") == "exponential" else "linear"
            fields["cutoff"] = str(self.params.get("cutoff") or "all")
        if output == "kendall_tau_b":
            fields["all_tied"] = "0"
        return fields
