"""BLEU in two flavours, each reproducing a publisher's evaluator.

* :class:`SentenceBleu` reproduces ``nltk.translate.bleu_score.sentence_bleu``
  without smoothing, as the M2UGen / MU-LLaMA / MusiLingo evaluator calls it on
  raw strings: NLTK then counts *character* n-grams (spaces included). With
  ``tokenize="word"`` it counts whitespace-separated words instead (a named
  variant). Per-item sentence BLEU, averaged over items.
* :class:`CorpusBleu` is ``sacrebleu.corpus_bleu`` (Jamendo-MT-QA): the per-item
  sufficient statistics are summed before the score is computed, so the
  aggregate is not a mean of per-item BLEU.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Collection, Sequence
from functools import cache
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import ItemScores, MetricFamily, Totals, register_family
from scoring.task_types import Prediction, Reference
from scoring.versions import library_version

MAX_ORDER = 4
SENTENCE_BLEU_WEIGHTS: dict[str, tuple[float, ...]] = {
    "bleu1": (1.0, 0.0, 0.0, 0.0),
    "bleu": (0.25, 0.25, 0.25, 0.25),
    "bleu4": (0.0, 0.0, 0.0, 1.0),
}
TOKENIZATIONS = ("char", "word")


def _ngram_counts(tokens: Sequence[Any], n: int) -> Counter[Any]:
    if len(tokens) < n:
        return Counter()
    if isinstance(tokens, str):
        return Counter(tokens[i : i + n] for i in range(len(tokens) - n + 1))
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def sentence_bleu_stats(references: Sequence[Sequence[Any]], hypothesis: Sequence[Any]) -> list[int]:
    """``[hyp_len, closest_ref_len, matches_1..4, totals_1..4]`` exactly as NLTK counts them."""
    matches, totals = [], []
    for n in range(1, MAX_ORDER + 1):
        counts = _ngram_counts(hypothesis, n)
        max_ref: dict[Any, int] = {}
        for reference in references:
            ref_counts = _ngram_counts(reference, n)
            for gram in counts:
                max_ref[gram] = max(max_ref.get(gram, 0), ref_counts[gram])
        matches.append(sum(min(c, max_ref[g]) for g, c in counts.items()))
        totals.append(max(1, sum(counts.values())))
    hyp_len = len(hypothesis)
    closest = min((len(r) for r in references), key=lambda length: (abs(length - hyp_len), length))
    return [hyp_len, closest, *matches, *totals]


def bleu_from_stats(stats: Sequence[int], weights: Sequence[float]) -> float:
    """NLTK's unsmoothed BLEU (``SmoothingFunction().method0``) from one item's statistics."""
    hyp_len, ref_len = stats[0], stats[1]
    matches, totals = stats[2 : 2 + MAX_ORDER], stats[2 + MAX_ORDER :]
    if matches[0] == 0:
        return 0.0
    if hyp_len > ref_len:
        penalty = 1.0
    elif hyp_len == 0:
        penalty = 0.0
    else:
        penalty = math.exp(1 - ref_len / hyp_len)
    logs = (
        w * math.log(m / t if m != 0 else sys.float_info.min)
        for w, m, t in zip(weights, matches, totals)
    )
    return penalty * math.exp(math.fsum(logs))


@register_family
class SentenceBleu(MetricFamily):
    """Per-item NLTK sentence BLEU (params: ``tokenize`` = ``char`` | ``word``)."""

    name: ClassVar[str] = "nltk_sentence_bleu"
    outputs: ClassVar[tuple[str, ...]] = tuple(SENTENCE_BLEU_WEIGHTS)
    task_types: ClassVar[tuple[str, ...]] = ("generation", "comparative_qa")

    def score(
        self,
        references: Sequence[Reference],
        predictions: Sequence[Prediction],
        outputs: Collection[str],
    ) -> dict[str, ItemScores]:
        split = self.params.get("tokenize", "char") == "word"
        stats = np.array(
            [
                sentence_bleu_stats(
                    [a.split() if split else a for a in ref.answers],
                    pred.text.split() if split else pred.text,
                )
                for ref, pred in zip(references, predictions)
            ],
            dtype=np.int64,
        ).reshape(-1, 2 + 2 * MAX_ORDER)
        return {
            name: ItemScores(
                np.array([bleu_from_stats(row, SENTENCE_BLEU_WEIGHTS[name]) for row in stats.tolist()]),
                stats,
            )
            for name in outputs
        }

    def signature_fields(self, output: str) -> dict[str, str]:
        weights = ",".join(f"{w:g}" for w in SENTENCE_BLEU_WEIGHTS[output])
        return {
            "impl": "nltk-sentence_bleu",
            "tok": self.params.get("tokenize", "char"),
            "weights": weights,
            "smooth": "none",
            "avg": "items",
            "nltk": library_version("nltk"),
        }


@cache
def _sacrebleu(tokenize: str, smooth: str, effective_order: bool) -> Any:
    from sacrebleu.metrics import BLEU

    return BLEU(tokenize=tokenize, smooth_method=smooth, effective_order=effective_order)


@register_family
class CorpusBleu(MetricFamily):
    """sacrebleu corpus BLEU (0-100) from summed per-item statistics.

    The per-item value shown in breakdowns is sacrebleu's sentence BLEU
    (effective order) of that item's own statistics.
    """

    name: ClassVar[str] = "sacrebleu"
    outputs: ClassVar[tuple[str, ...]] = ("bleu",)
    task_types: ClassVar[tuple[str, ...]] = ("generation", "comparative_qa")

    @classmethod
    def value_range(cls, params: Any, output: str) -> tuple[float, float]:
        return (0.0, 100.0)  # sacrebleu reports 0-100

    def __init__(self, params: Any, context: Any) -> None:
        super().__init__(params, context)
        self._num_refs: int | None = None

    def _metric(self, *, sentence: bool) -> Any:
        return _sacrebleu(self.params.get("tokenize", "13a"), self.params.get("smooth", "exp"), sentence)

    def prepare(self, references: Sequence[Reference]) -> None:
        # sacrebleu's "nrefs": references per item, or -1 ("var") when it varies; 1 for an empty set
        counts = {len(r.answers) for r in references} or {1}
        self._num_refs = counts.pop() if len(counts) == 1 else -1

    def score(
        self,
        references: Sequence[Reference],
        predictions: Sequence[Prediction],
        outputs: Collection[str],
    ) -> dict[str, ItemScores]:
        metric = self._metric(sentence=False)
        hypotheses = [p.text for p in predictions]
        streams = _reference_streams(references)
        stats = np.array(metric._extract_corpus_statistics(hypotheses, streams), dtype=np.int64)
        stats = stats.reshape(len(hypotheses), -1)
        sentence = self._metric(sentence=True)
        values = np.array([sentence._compute_score_from_stats(row).score for row in stats.tolist()])
        return {"bleu": ItemScores(values, stats)}

    @classmethod
    def item_column(cls, key: str, output: str) -> str:
        """``<key>_sentence``: an item's value is its sentence BLEU; the column's value is corpus BLEU."""
        return f"{key}_sentence"

    def aggregate(self, output: str, scores: ItemScores, weights: np.ndarray) -> np.ndarray:
        return self.totals(output, scores).of(weights)

    def totals(self, output: str, scores: ItemScores) -> Totals:
        if scores.stats is None:
            return Totals(np.zeros((len(scores.values), 0)), lambda totals: np.full(totals.shape[0], np.nan))
        defined = ~np.isnan(scores.values)
        return Totals(np.where(defined[:, None], scores.stats, 0).astype(float), self._corpus_scores)

    def _corpus_scores(self, totals: np.ndarray) -> np.ndarray:
        """Corpus BLEU from each row of summed sufficient statistics (integers: exact in any order)."""
        metric = self._metric(sentence=False)
        rows = np.rint(totals).astype(np.int64).tolist()
        return np.array([metric._compute_score_from_stats(row).score for row in rows], dtype=float)

    def signature_fields(self, output: str) -> dict[str, str]:
        if self._num_refs is None:
            raise RuntimeError("CorpusBleu.prepare() must see the references before the signature")
        metric = self._metric(sentence=False)
        # built from this reference set, not from the shared metric's state (which the last
        # scored corpus in the process sets, and which is unset before any scoring)
        signature = metric._SIGNATURE_TYPE({**vars(metric), "num_refs": self._num_refs})
        return {
            "impl": "sacrebleu-corpus_bleu",
            "sacrebleu": signature.format(short=False),
        }


def _reference_streams(references: Sequence[Reference]) -> list[list[str]]:
    width = max((len(r.answers) for r in references), default=1)
    # sacrebleu takes one stream per reference position; a missing one is None
    return [[r.answers[i] if i < len(r.answers) else None for r in references] for i in range(width)]  # type: ignore[misc]
