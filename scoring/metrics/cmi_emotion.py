"""CMI-Bench emotion regression (EMO arousal and valence), as ``evaluate.py`` scores it.

``cal_r2`` of nicolaus625/CMI-bench ``evaluate.py``: each response gives one number by
``extract_int`` (after ``out of 9`` is removed; scale phrases, time signatures and ``Example n``
removed; the digit runs between 1 and 9 kept; two of them read as ``n.m`` when the response holds
``n.m``, a repeated one once, otherwise the first), or none. The numbers are z-scored with their own
mean and population std; responses without one get the mean (0 after z-scoring); R² against the
released z-scored references is torchmetrics' R² (``r2_score``: the update and compute that
``R2Score`` runs) on the publisher's tensors (the predictions float64, the references float32), so
the value is the publisher's to the last bit.

Where the script stops (every number equal, or no number at all: std 0 or undefined) the value is
not computed (null). Per item, the value is the extracted number (NaN when none) and the
``unanswered`` diagnostic counts the responses that were mean-imputed (``unparsed`` too, the name every
family with a parser reports: ``extract_int`` returned its -0.5). A bootstrap replicate is
the same computation on the resampled list (z-scoring included).
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import UNPARSED, ItemScores, MetricFamily, register_family
from scoring.metrics.cmi_classification import CMI_EVALUATE
from scoring.task_types import Prediction, Reference
from scoring.versions import library_version

_SCALE_WORDS = ((re.compile(r"\d-point scale"), "scale"), (re.compile(r"\d/\d time signature"), "time signature"),
                (re.compile(r"\d/\d beat"), "time signature"), (re.compile(r"Example \d"), ""))
_DIGITS = re.compile(r"\d+")


def _in_range(digits: str) -> bool:
    try:
        return 0 < int(digits) < 10
    except ValueError:  # beyond Python's int-from-string limit: far outside 1-9
        return False


def cmi_extract_score(response: str) -> float | None:
    """``extract_int(re.sub('out of 9', '', response))``; ``None`` where it returns its -0.5 marker."""
    text = response.replace("out of 9", "").replace("1-9 scale", "scale").replace("from 1 to 9", "scale")
    for pattern, replacement in _SCALE_WORDS:
        text = pattern.sub(replacement, text)
    numbers = [n for n in _DIGITS.findall(text) if _in_range(n)]
    if not numbers:
        return None
    if len(numbers) == 2 and f"{numbers[0]}.{numbers[1]}" in text:
        return float(f"{numbers[0]}.{numbers[1]}")
    return float(int(numbers[0]))


def cmi_r2(answers: np.ndarray, answered: np.ndarray, targets: np.ndarray) -> float:
    """R² of the z-scored answers (mean-imputed where ``answered`` is 0) against ``targets``, as
    ``cal_r2`` computes it; NaN where the publisher's script stops (no spread among the answers)."""
    import torch
    from torchmetrics.functional import r2_score

    given = answers[answered > 0]
    if len(given) == 0 or len(answers) < 2:
        return float("nan")
    mean, std = np.mean(given), np.std(given)
    if not std > 0:
        return float("nan")
    a, b = 1 / std, -mean / std
    predictions = a * np.where(answered > 0, answers, mean) + b
    value = r2_score(torch.from_numpy(np.ascontiguousarray(predictions, dtype=np.float64)),
                      torch.tensor(targets.tolist(), dtype=torch.float32))
    return float(value)


@register_family
class CmiEmotionR2(MetricFamily):
    """R² of z-scored numbers read from free-text ratings, against the released z-scored labels."""

    name: ClassVar[str] = "cmi_r2"
    outputs: ClassVar[tuple[str, ...]] = ("r2",)
    task_types: ClassVar[tuple[str, ...]] = ("generation",)
    diagnostic_outputs: ClassVar[tuple[str, ...]] = ("unanswered", UNPARSED)

    @classmethod
    def value_range(cls, params: Mapping[str, Any], output: str) -> tuple[float, float]:
        # per item the extracted rating (any number); aggregated, R² (unbounded below)
        return (-math.inf, math.inf)

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        extracted = [cmi_extract_score(p.text) for p in predictions]
        answered = np.array([x is not None for x in extracted], dtype=float)
        answers = np.array([np.nan if x is None else x for x in extracted], dtype=float)
        targets = np.array([_target(r) for r in references], dtype=float)
        stats = np.column_stack([np.nan_to_num(answers), answered, targets])
        return {"r2": ItemScores(answers, stats), "unanswered": ItemScores(1.0 - answered),
                UNPARSED: ItemScores(1.0 - answered)}

    @classmethod
    def parse_rule(cls, params: Mapping[str, Any]) -> str | None:
        return "extract_int reads no rating from 1 to 9 (the response gets the mean rating, 0 after z-scoring)"

    def aggregate(self, output: str, scores: ItemScores, weights: np.ndarray) -> np.ndarray:
        if scores.stats is None:
            raise ValueError("cmi_r2 needs the per-item statistics")
        out = np.empty(len(weights))
        for row, counts in enumerate(np.rint(weights).astype(np.int64)):
            picked = scores.stats[np.repeat(np.arange(len(counts)), counts)]
            out[row] = cmi_r2(picked[:, 0], picked[:, 1], picked[:, 2])
        return out

    def signature_fields(self, output: str) -> dict[str, str]:
        return {"impl": f"{CMI_EVALUATE} cal_r2", "torchmetrics": library_version("torchmetrics"),
                "torch": library_version("torch"), "numpy": library_version("numpy")}


def _target(reference: Reference) -> float:
    try:
        return float(reference.answers[0])
    except ValueError:
        raise ValueError(f"item {reference.id!r}: the reference {reference.answers[0]!r} is not a number") from None
