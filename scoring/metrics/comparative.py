"""Jamendo-MT-QA's released evaluator rules for yes/no and short-answer items.

normalise = lowercase, strip, collapse whitespace. Yes/no: a prediction is
"yes" if it starts with "yes" or equals "true", "no" if it starts with "no" or
equals "false"; the gold label likewise (without true/false). Short answer:
correct when the normalised gold is a substring of the prediction or vice
versa; an empty side is wrong.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import ClassVar

import numpy as np

from scoring.metrics.base import ItemScores, MetricFamily, register_family
from scoring.reading.jamendo_rules import normalize, yes_no_label
from scoring.task_types import Prediction, Reference

__all__ = ["normalize", "short_answer_correct", "yes_no_correct", "yes_no_label"]

def yes_no_correct(prediction: str, gold: str) -> bool:
    predicted = yes_no_label(prediction)
    return predicted is not None and predicted == yes_no_label(gold, accept_true_false=False)


def short_answer_correct(prediction: str, gold: str) -> bool:
    p, g = normalize(prediction), normalize(gold)
    if not p or not g:
        return False
    return g in p or p in g


@register_family
class YesNoAccuracy(MetricFamily):
    """1.0 when the yes/no label matches the gold label, else 0.0."""

    name: ClassVar[str] = "yes_no"
    outputs: ClassVar[tuple[str, ...]] = ("accuracy",)
    task_types: ClassVar[tuple[str, ...]] = ("comparative_qa",)

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        values = [float(yes_no_correct(p.text, r.answers[0])) for r, p in zip(references, predictions)]
        return {"accuracy": ItemScores(np.array(values, dtype=float))}

    def signature_fields(self, output: str) -> dict[str, str]:
        return {"impl": "jamendo-mt-qa-evaluate.py", "rule": "startswith-yes/no|true/false"}


@register_family
class ShortAnswerAccuracy(MetricFamily):
    """1.0 when gold and prediction contain one another after normalisation."""

    name: ClassVar[str] = "short_answer"
    outputs: ClassVar[tuple[str, ...]] = ("accuracy",)
    task_types: ClassVar[tuple[str, ...]] = ("comparative_qa",)

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        values = [float(short_answer_correct(p.text, r.answers[0])) for r, p in zip(references, predictions)]
        return {"accuracy": ItemScores(np.array(values, dtype=float))}

    def signature_fields(self, output: str) -> dict[str, str]:
        return {"impl": "jamendo-mt-qa-evaluate.py", "rule": "two-way-substring"}
