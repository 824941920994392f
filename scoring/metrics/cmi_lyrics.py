"""CMI-Bench lyrics transcription (DSing), as ``evaluate.py`` scores it.

``batch_wer_cer`` of nicolaus625/CMI-bench ``evaluate.py``: the response loses its first
``... lyrics ... are ...:``, ``... content ... is ...:``, ``... transcription ... is ...:`` and
``... text ... is ...:`` matches (every match of each pattern, in that order; ``.`` stops at a
newline) and ``<s>``/``</s>``;
both texts lose ASCII punctuation except the apostrophe, are lower-cased, newlines become spaces,
and words made of digits are spelled out with ``num2words``; then ``jiwer.wer`` and ``jiwer.cer``
per utterance, averaged over utterances (printed x100). A digit word ``num2words`` cannot spell
(``²``, or a number beyond its range), where the publisher's script stops, is kept as written.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import ItemScores, MetricFamily, register_family
from scoring.metrics.cmi_classification import CMI_EVALUATE
from scoring.task_types import Prediction, Reference
from scoring.versions import library_version

PREFIXES = tuple(re.compile(p) for p in (
    r".*? lyrics .*?are.*?:", r".*? content .*?is.*?:", r".*? transcription .*?is.*?:", r".*? text .*?is.*?:",
    "<s>", "</s>"))
_PUNCTUATION = str.maketrans("", "", string.punctuation.replace("'", ""))


def cmi_strip_prefix(response: str) -> str:
    """The response without the prefixes evaluate.py removes."""
    for pattern in PREFIXES:
        response = pattern.sub("", response).strip()
    return response


def _spelled(word: str) -> str:
    from num2words import num2words

    if not word.isdigit():
        return word
    try:
        return str(num2words(int(word)))
    except (ValueError, OverflowError):
        return word


def cmi_clean_lyrics(text: str) -> str:
    """evaluate.py ``clean_string``: punctuation but ``'`` removed, lower case, digits spelled out."""
    text = text.translate(_PUNCTUATION).lower().replace("\n", " ")
    return " ".join(_spelled(word) for word in text.split())


def cmi_wer_cer(response: str, reference: str) -> tuple[float, float]:
    """Word and character error rate of one utterance, as ``compute_wer_cer``."""
    import jiwer

    prediction = cmi_clean_lyrics(cmi_strip_prefix(response))
    gold = cmi_clean_lyrics(reference)
    return float(jiwer.wer(gold, prediction)), float(jiwer.cer(gold, prediction))


@register_family
class CmiLyricsErrorRates(MetricFamily):
    """Per-utterance WER and CER after the publisher's cleaning (lower is better)."""

    name: ClassVar[str] = "cmi_wer"
    outputs: ClassVar[tuple[str, ...]] = ("wer", "cer")
    task_types: ClassVar[tuple[str, ...]] = ("generation",)

    @classmethod
    def value_range(cls, params: Mapping[str, Any], output: str) -> tuple[float, float]:
        return (0.0, math.inf)  # insertions take an error rate past 1

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        rates = np.array([cmi_wer_cer(p.text, r.answers[0]) for r, p in zip(references, predictions)],
                         dtype=float).reshape(-1, 2)
        return {"wer": ItemScores(rates[:, 0]), "cer": ItemScores(rates[:, 1])}

    def signature_fields(self, output: str) -> dict[str, str]:
        return {"impl": f"{CMI_EVALUATE} compute_wer_cer", "jiwer": library_version("jiwer"),
                "num2words": library_version("num2words")}
