"""CMI-Bench single-label classification (genre, vocal technique, instrument), as ``evaluate.py`` scores it.

``get_multiclass_acc`` of nicolaus625/CMI-bench ``evaluate.py``: text is *normalised* (``_``, ``-``,
``'``, spaces and ``.`` removed, ``#`` made ``♯``, lower case); an answer is correct when the
normalised reference is a substring of the normalised response and no other label of the test file
(the set of all references, normalised) is. The rule is kept with its consequences: a label that
contains another label can never be correct (VocalSet ``trillo`` and ``lip_trill`` contain
``trill``), and letters, markdown and extra words are scored as text.

The ``unparsed`` diagnostic counts the responses that rule maps to no label: those holding no label of
the file, or more than one (``trillo`` holds ``trill`` too), which it credits for no gold. It depends
on the file's label set, so on a hidden-label split it is as hidden as the labels.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import UNPARSED, ItemScores, MetricFamily, register_family
from scoring.metrics.gold_digests import gold_keyed
from scoring.task_types import Prediction, Reference

CMI_EVALUATE = "nicolaus625/CMI-bench evaluate.py@2cafca5d"


def cmi_normalise(text: str) -> str:
    """evaluate.py ``normalise`` of a string."""
    return (text.replace("_", "").replace("-", "").replace("#", "\u266f").replace("'", "")
            .replace(" ", "").replace(".", "").lower())


def cmi_label_set(answers: Sequence[str]) -> frozenset[str]:
    """The normalised labels of a test file; two labels that normalise alike are refused, as the
    publisher's ``assert`` refuses them."""
    labels = frozenset(cmi_normalise(a) for a in answers)
    if len(labels) != len(set(answers)):
        raise ValueError("two reference labels are equal after CMI-Bench normalisation")
    return labels


def cmi_labels_named(response: str, labels: Collection[str]) -> int:
    """How many labels of the file the normalised response holds (exactly one: the only label it can be
    credited for)."""
    normalised = cmi_normalise(response)
    return sum(label in normalised for label in labels)


def cmi_label_correct(response: str, answer: str, labels: Collection[str]) -> bool:
    """One item of ``get_multiclass_acc``: the answer's label in the response, no other label in it."""
    normalised = cmi_normalise(response)
    gold = cmi_normalise(answer)
    return gold in normalised and all(label not in normalised for label in labels if label != gold)


@register_family
class CmiLabelAccuracy(MetricFamily):
    """1.0 when the response names the item's label and no other label of the file, else 0.0."""

    name: ClassVar[str] = "cmi_label"
    outputs: ClassVar[tuple[str, ...]] = ("accuracy",)
    task_types: ClassVar[tuple[str, ...]] = ("generation",)
    diagnostic_outputs: ClassVar[tuple[str, ...]] = (UNPARSED,)
    parse_reads_labels: ClassVar[bool] = True

    def __init__(self, params: Any, context: Any) -> None:
        super().__init__(params, context)
        self._labels: frozenset[str] = frozenset()

    def prepare(self, references: Sequence[Reference]) -> None:
        self._labels = cmi_label_set([r.answers[0] for r in references])

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        values = [float(cmi_label_correct(p.text, r.answers[0], self._labels))
                  for r, p in zip(references, predictions)]
        unparsed = [float(cmi_labels_named(p.text, self._labels) != 1) for p in predictions]
        return {"accuracy": ItemScores(np.array(values, dtype=float)), UNPARSED: ItemScores(np.array(unparsed))}

    @classmethod
    def parse_rule(cls, params: Mapping[str, Any]) -> str | None:
        return ("get_multiclass_acc finds no label of the test file in the normalised response, or more than one "
                "(then no gold could be credited)")

    def signature_fields(self, output: str) -> dict[str, str]:
        digest = hashlib.sha256("\n".join(sorted(self._labels)).encode()).hexdigest()[:12]
        key = self.context.label_key  # hidden labels: neither the set nor its size (guesses would test against it)
        return {"impl": f"{CMI_EVALUATE} get_multiclass_acc",
                "labels": gold_keyed(digest, key) if key else f"{len(self._labels)}:{digest}"}
