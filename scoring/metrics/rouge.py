"""ROUGE-1/2/L(sum) precision, recall and F-measure through Google's ``rouge-score``.

Called as the publishers call it: ``RougeScorer(types, use_stemmer=True).score(reference,
prediction)`` (reference first), ``score_multi`` (best F) for several references.
The Porter stemmer is memoised per token: same output, fewer repeated calls.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import ItemScores, MetricFamily, register_family
from scoring.task_types import Prediction, Reference
from scoring.versions import library_version

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
STATS = {"precision": "precision", "recall": "recall", "f1": "fmeasure"}
OUTPUTS = tuple(f"{t}_{s}" for t in ROUGE_TYPES for s in STATS)


class _MemoStemmer:
    def __init__(self, stemmer: Any) -> None:
        self.stem = lru_cache(maxsize=200_000)(stemmer.stem)


def make_rouge_scorer(rouge_types: Sequence[str], use_stemmer: bool) -> Any:
    from rouge_score import rouge_scorer, tokenizers

    tokenizer = tokenizers.DefaultTokenizer(use_stemmer=use_stemmer)
    if use_stemmer:
        tokenizer._stemmer = _MemoStemmer(tokenizer._stemmer)
    return rouge_scorer.RougeScorer(list(rouge_types), tokenizer=tokenizer)


@register_family
class Rouge(MetricFamily):
    """Outputs ``<type>_<precision|recall|f1>`` (params: ``use_stemmer``, default True)."""

    name: ClassVar[str] = "rouge"
    outputs: ClassVar[tuple[str, ...]] = OUTPUTS
    task_types: ClassVar[tuple[str, ...]] = ("generation", "comparative_qa")

    def score(
        self,
        references: Sequence[Reference],
        predictions: Sequence[Prediction],
        outputs: Collection[str],
    ) -> dict[str, ItemScores]:
        wanted_types = [t for t in ROUGE_TYPES if any(o.startswith(t + "_") for o in outputs)]
        scorer = make_rouge_scorer(wanted_types, self.params.get("use_stemmer", True))
        columns: dict[str, list[float]] = {o: [] for o in outputs}
        split = {o: o.rsplit("_", 1) for o in outputs}
        for ref, pred in zip(references, predictions):
            if len(ref.answers) == 1:
                result = scorer.score(ref.answers[0], pred.text)
            else:
                result = scorer.score_multi(list(ref.answers), pred.text)
            for output, (rouge_type, stat) in split.items():
                columns[output].append(getattr(result[rouge_type], STATS[stat]))
        return {o: ItemScores(np.array(v, dtype=float)) for o, v in columns.items()}

    def signature_fields(self, output: str) -> dict[str, str]:
        rouge_type, stat = output.rsplit("_", 1)
        return {
            "impl": "rouge-score",
            "type": rouge_type,
            "stat": stat,
            "stem": "yes" if self.params.get("use_stemmer", True) else "no",
            "multi_ref": "max-f",
            "rouge-score": library_version("rouge-score"),
            "nltk": library_version("nltk"),
        }
