"""Tag-set micro-F1: the tags a model emits, read as a set, against the item's exact reference tags.

This site's definition of the protocol the Qwen3-Omni Technical Report (arXiv 2509.17765, Section 5.1) describes
for MTG-Jamendo and MagnaTagATune ("micro F1 rather than AP/AUROC": a language model emits a discrete label set),
whose prompt, parsing rules and script are not published. It is not CMI-Bench's ``evaluate.py`` (which scores
ROC-AUC and PR-AUC from text similarity: :mod:`scoring.metrics.cmi_tagging`), and its numbers are never ranked
with a paper's micro-F1 measured by unpublished parsing.

Reading a response: split on ``,``, ``;``, ``/`` and newlines; each phrase and each vocabulary tag is
*normalised* by lowercasing and deleting every non-alphanumeric character (``acoustic guitar``,
``Acoustic-Guitar`` and ``acousticguitar`` are all ``acousticguitar``); the predicted set is the phrases equal to
a normalised vocabulary tag. Other phrases (out of the vocabulary, or a sentence around a tag) are ignored and
counted per item (``out_of_vocabulary``); no synonym is mapped (``drum and bass`` is not ``drumnbass``). The
reference set is the item's exact tags (the released ``output`` split on commas), normalised alike; not the
substring rule ``evaluate.py`` builds its truth with. Per item TP = |pred ∩ ref|, FP = |pred - ref|,
FN = |ref - pred|; ``micro_f1`` = 2 TP / (2 TP + FP + FN) over the summed counts of all items (0 when all three
are 0), ``micro_precision`` = TP / (TP + FP), ``micro_recall`` = TP / (TP + FN) (0 on a zero denominator).
Items without a reference tag (997 MagnaTagATune clips) are kept: each predicted tag there is a false positive.
Per item the value is the item's own F1 (NaN where it has no tag and predicts none).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import ItemScores, MetricFamily, Totals, register_family
from scoring.metrics.cmi_tag_vocabularies import NO_TAG, VOCABULARIES
from scoring.task_types import Prediction, Reference

OUTPUTS = ("micro_f1", "micro_precision", "micro_recall")
DIAGNOSTICS = ("out_of_vocabulary", "no_tag")
_SEPARATORS = re.compile(r"[,;/\n]")
DEFINITION = "this site's tag-set micro-F1 (split , ; / newline; alphanumeric match; exact reference tags)"


def tag_key(text: str) -> str:
    """A phrase or a tag as compared: lower case, every non-alphanumeric character deleted."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def response_tags(response: str, vocabulary: Mapping[str, str]) -> tuple[set[str], int]:
    """The vocabulary tags (normalised) a response names, and how many of its phrases name none."""
    found: set[str] = set()
    ignored = 0
    for phrase in _SEPARATORS.split(response):
        key = tag_key(phrase)
        if not key:
            continue
        if key in vocabulary:
            found.add(key)
        else:
            ignored += 1
    return found, ignored


def reference_tags(answer: str) -> set[str]:
    """The item's exact tags (the released comma-joined ``output``), normalised; none for :data:`NO_TAG`."""
    if answer == NO_TAG:
        return set()
    return {key for key in (tag_key(tag) for tag in answer.split(",")) if key}


def f1_of(tp: float, fp: float, fn: float) -> float:
    """2 TP / (2 TP + FP + FN), 0 when nothing is predicted or expected."""
    denominator = 2 * tp + fp + fn
    return 2 * tp / denominator if denominator > 0 else 0.0


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator > 0 else 0.0


FINISH = {
    "micro_f1": lambda tp, fp, fn: f1_of(tp, fp, fn),
    "micro_precision": lambda tp, fp, fn: _ratio(tp, tp + fp),
    "micro_recall": lambda tp, fp, fn: _ratio(tp, tp + fn),
}


@register_family
class TagSetF1(MetricFamily):
    """Micro precision, recall and F1 of emitted vocabulary tags against the exact reference tags."""

    name: ClassVar[str] = "tag_set_f1"
    outputs: ClassVar[tuple[str, ...]] = OUTPUTS
    task_types: ClassVar[tuple[str, ...]] = ("generation",)
    diagnostic_outputs: ClassVar[tuple[str, ...]] = DIAGNOSTICS

    def __init__(self, params: Mapping[str, Any], context: Any) -> None:
        super().__init__(params, context)
        name = str(self.params.get("vocabulary", ""))
        if name not in VOCABULARIES:
            raise ValueError(f"tag_set_f1: unknown vocabulary {name!r}; valid: {', '.join(VOCABULARIES)}")
        self._vocabulary = {tag_key(tag): tag for tag in VOCABULARIES[name]}

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        counts: list[tuple[int, int, int]] = []
        ignored: list[int] = []
        notes: list[dict[str, Any] | None] = []
        for reference, prediction in zip(references, predictions):
            predicted, outside = response_tags(prediction.text, self._vocabulary)
            expected = reference_tags(reference.answers[0])
            counts.append((len(predicted & expected), len(predicted - expected), len(expected - predicted)))
            ignored.append(outside)
            named = ", ".join(sorted(self._vocabulary[k] for k in predicted)) or "(none)"
            notes.append({"status": f"read: {named}" + (f"; {outside} phrase(s) outside the vocabulary"
                                                        if outside else "")})
        stats = np.array(counts, dtype=np.int64).reshape(-1, 3)
        values = np.array([f1_of(*row) if row.any() else np.nan for row in stats], dtype=float)
        scores: dict[str, ItemScores] = {}
        for name in OUTPUTS:
            per_item = values if name == "micro_f1" else np.array(
                [FINISH[name](*row) if row.any() else np.nan for row in stats], dtype=float)
            scores[name] = ItemScores(per_item, stats, notes if name == "micro_f1" else None)
        scores["out_of_vocabulary"] = ItemScores(np.array(ignored, dtype=float))
        scores["no_tag"] = ItemScores((stats[:, 0] + stats[:, 1] == 0).astype(float))
        return scores

    def aggregate(self, output: str, scores: ItemScores, weights: np.ndarray) -> np.ndarray:
        return self.totals(output, scores).of(weights)

    def totals(self, output: str, scores: ItemScores) -> Totals:
        finish = FINISH[output]
        if scores.stats is None:
            raise ValueError("tag_set_f1 needs the per-item counts")
        columns = scores.stats.astype(float)
        return Totals(columns, lambda totals: np.array([finish(*np.rint(row)) for row in totals], dtype=float))

    def signature_fields(self, output: str) -> dict[str, str]:
        return {"impl": "site tag-set micro-F1", "vocabulary": f"{self.params['vocabulary']}:{len(self._vocabulary)}",
                "split": ", ; / newline", "match": "lowercase alphanumeric", "reference": "exact tags",
                "empty_reference": "kept", "avg": "micro (summed counts)"}
