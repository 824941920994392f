"""CMI-Bench musical key estimation (GiantSteps key), as ``key_ensamble_score`` in ``evaluate.py`` scores it.

The response is read by the publisher's ``get_pred`` (:func:`cmi_key_read`): lower-cased, every ASCII space
and every character ``str.isdigit`` accepts deleted (other whitespace kept); what is left gets ``"inor"``
appended when it has at most 3 characters and ends in ``m`` (``"bbm"`` -> ``"bbminor"``), else ``"major"``
when it has at most 2 (``"d"`` -> ``"dmajor"``, ``""`` -> ``"major"``); when its second character is ``#`` or
``♯`` its first two characters are rewritten to the flat spelling (``c# d# f# g# a#`` -> ``db eb gb ab bb``;
another letter before the sharp, ``e#``, raises and the clip scores 0). The prediction is the first of the 24
classes, majors before minors, each from C up, whose lower-cased name without spaces is a substring of that text.
So only a leading sharp is rewritten; ``♭`` is never read as ``b``; ``"f sharp minor"`` and ``"key: d"`` name no
class; a response naming two keys is read as the first class in that order (``"E minor / G major"`` is G major).
A clip scores ``mir_eval.key.weighted_score(reference, prediction)``; a response read as no class scores 0 (the
publisher's bare ``except``); the task's value is the mean over clips.

Per item the value is the clip's weighted score, its note the class read (``choice``, ``"none"`` when none);
the ``unparsed`` diagnostic counts the responses read as no class. The reading never looks at the reference.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import UNPARSED, ItemScores, MetricFamily, register_family
from scoring.task_types import Prediction, Reference
from scoring.versions import library_version

PUBLISHER = "nicolaus625/CMI-bench evaluate.py@4c15f410 key_ensamble_score"
KEY_CLASSES: tuple[str, ...] = tuple(
    f"{tonic} {mode}" for mode in ("major", "minor")
    for tonic in ("C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B"))
_NEEDLES = tuple((key.lower().replace(" ", ""), key) for key in KEY_CLASSES)
_SHARP_TO_FLAT = {f"{letter}{sharp}": flat for sharp in ("#", "\u266f")
                  for letter, flat in (("c", "db"), ("d", "eb"), ("f", "gb"), ("g", "ab"), ("a", "bb"))}


def cmi_key_read(response: str) -> str | None:
    """The key class ``get_pred`` reads from a response, or None where it reads none (or raises)."""
    text = "".join(ch for ch in response.lower().replace(" ", "") if not ch.isdigit())
    if len(text) <= 3 and text.endswith("m"):
        text += "inor"
    elif len(text) <= 2:
        text += "major"
    if text[1] in ("#", "\u266f"):
        flat = _SHARP_TO_FLAT.get(text[:2])
        if flat is None:  # the publisher's dict lookup raises: scored 0
            return None
        text = flat + text[2:]
    return next((key for needle, key in _NEEDLES if needle in text), None)


def cmi_key_score(reference: str, response: str) -> tuple[float, str | None]:
    """One clip: (mir_eval weighted score, the class read); 0 where no class is read."""
    import mir_eval

    estimate = cmi_key_read(response)
    if estimate is None:
        return 0.0, None
    return float(mir_eval.key.weighted_score(reference, estimate)), estimate


def _checked_reference(reference: Reference) -> str:
    import mir_eval

    key = reference.answers[0]
    try:
        mir_eval.key.validate_key(key)
    except (ValueError, KeyError, AttributeError):
        raise ValueError(f"item {reference.id!r}: the reference {key!r} is not a key such as 'Eb minor'") from None
    return key


@register_family
class CmiKey(MetricFamily):
    """MIREX weighted key score of the key read from a free-text answer, mean over clips."""

    name: ClassVar[str] = "cmi_key"
    outputs: ClassVar[tuple[str, ...]] = ("weighted_score",)
    task_types: ClassVar[tuple[str, ...]] = ("generation",)
    diagnostic_outputs: ClassVar[tuple[str, ...]] = (UNPARSED,)

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        scored = [cmi_key_score(_checked_reference(r), p.text) for r, p in zip(references, predictions)]
        values = np.array([value for value, _ in scored], dtype=float)
        notes: list[dict[str, Any] | None] = [{"choice": key or "none"} for _, key in scored]
        unparsed = np.array([float(key is None) for _, key in scored])
        return {"weighted_score": ItemScores(values, notes=notes), UNPARSED: ItemScores(unparsed)}

    @classmethod
    def parse_rule(cls, params: Mapping[str, Any]) -> str | None:
        return ("key_ensamble_score's get_pred finds none of the 24 keys in the response (after its space, digit, "
                "'m' and leading-sharp rewriting), or raises on it (a sharp after e or b), and the clip scores 0")

    @classmethod
    def answer_warning(cls, text: str) -> str | None:
        if cmi_key_read(text) is not None:
            return None
        return ("evaluate.py's key_ensamble_score reads none of the 24 keys from this answer (e.g. 'F sharp minor' "
                "or 'D♭ major' are not read); scored 0, as the publisher scores it")

    def signature_fields(self, output: str) -> dict[str, str]:
        return {"impl": PUBLISHER, "metric": "mir_eval.key.weighted_score", "avg": "clips",
                "mir_eval": library_version("mir_eval")}
