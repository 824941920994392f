"""CMI-Bench Guzheng playing-technique detection: frame-level micro and macro F1.

As ``convert_to_frame_labels`` and ``calculate_frame_f1`` in CMI-Bench's ``evaluate.py``: the text
from the first ``[`` to before the last ``]``, plus ``]``, is read as a Python literal (the publisher
calls ``eval``; we read it with :mod:`scoring.pyliteral`, which gives the same value for every
literal and evaluates nothing). A list whose first element is a dict becomes
``(float(start), float(end), technique)``; a list of 3-tuples ``(float, float, str)``; any other
list is taken as is. Each event becomes ``(start % 10, end % 10, normalise(technique))``, and frames
``int(start * 100)`` to ``int(end * 100)`` (exclusive) of a 1,000-frame, 7-class grid are set
(an end before its start sets nothing). A single ``No Tech`` event is an empty grid.

Sufficient statistics per item: true positives, false positives and false negatives per class
(7 x 3 integers). ``micro_f1`` is F1 of the counts pooled over all classes and items; ``macro_f1``
is the unweighted mean over the 7 classes of each class's F1 over all items (a class with no
predicted or no true frame has F1 0). The publisher's function returns ``(micro_f1, macro_f1)``
but its caller unpacks them as ``marco_f1, micro_f1`` and prints ``Marco F1: <micro>`` and
``Micro F1: <macro>``: our keys follow the computation, not the printed labels.

Where the publisher's code raises (no ``[``, ``[]``, an unknown technique, a name in the list, a
start that is not a number, ``No Tech`` beside other events), its whole evaluation stops; we score
that answer as predicting no technique (an empty grid) and count it in the ``unparsed_outputs``
diagnostic. So are the answers ``eval`` would compute but that are not literals (arithmetic such as
``0.5+0.5``, f-strings, ``and``/``or``, sets: nothing is executed), and times given as
strings inside a list rather than a tuple (``["0.5", "1.0", "Vibrato"]``, which the publisher would
printf-format).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import ItemScores, MetricFamily, Totals
from scoring.pyliteral import LiteralError, parse_literal
from scoring.task_types import Prediction, Reference

PUBLISHER = "nicolaus625/CMI-bench evaluate.py calculate_frame_f1"
TECHNIQUES = ("Vibrato", "Point Note", "Upward Portamento", "Downward Portamento", "Plucks", "Glissando",
              "Tremolo")
FRAME_RATE = 100
FRAMES = 10 * FRAME_RATE
OUTPUTS = ("micro_f1", "macro_f1")
_CONVERSION_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError)


def cmi_normalise(text: Any) -> str:
    """The publisher's ``normalise``: first element of a list; ``_ - ' . space`` removed, ``#`` -> ``♯``,
    lower case. Raises (IndexError, AttributeError) where it does."""
    if type(text) is list:
        text = text[0]
    if not isinstance(text, str):
        raise AttributeError(f"{type(text).__name__} has no replace")
    return (text.replace("_", "").replace("-", "").replace("#", "\u266f").replace("'", "").replace(" ", "")
            .replace(".", "").lower())


CLASSES = tuple(cmi_normalise(t) for t in TECHNIQUES)


def technique_frames(text: str) -> np.ndarray | None:
    """The publisher's ``convert_to_frame_labels`` (1,000 x 7 of 0/1), or None where it raises."""
    try:
        events = _events(parse_literal(text[text.find("[") : text.rfind("]")] + "]"))
    except LiteralError:
        return None
    if events is None:
        return None
    frames = np.zeros((FRAMES, len(CLASSES)))
    try:
        if len(events) == 1 and cmi_normalise(events[0][-1]) == "notech":
            return frames
        for start, end, label in events:
            column = CLASSES.index(cmi_normalise(label))
            frames[int(float(start) * FRAME_RATE) : int(float(end) * FRAME_RATE), column] = 1
    except _CONVERSION_ERRORS:  # an unknown technique, a NaN time
        return None
    return frames


def _events(value: Any) -> list[tuple[Any, Any, str]] | None:
    if not isinstance(value, list) or not value:
        return None  # eval gives a list here; events[0] of [] raises
    try:
        if isinstance(value[0], dict):
            value = [(float(e["start"]), float(e["end"]), e["technique"]) for e in value]
        elif all(isinstance(e, tuple) and len(e) == 3 for e in value):
            value = [(float(e[0]), float(e[1]), str(e[2])) for e in value]
        events = []
        for event in value:
            if not isinstance(event, (list, tuple, dict)) or len(event) != 3:
                return None  # unpacking fails (a 3-character string unpacks, then fails at % 10)
            start, end, label = event
            if isinstance(start, str) or isinstance(end, str):
                return None
            events.append((start % 10, end % 10, cmi_normalise(label)))
    except _CONVERSION_ERRORS:
        return None
    return events


def frame_counts(truth: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Per-class [tp, fp, fn] counts, flattened to 21 integers."""
    true, pred = truth == 1, predicted == 1
    return np.stack([(true & pred).sum(0), (~true & pred).sum(0), (true & ~pred).sum(0)], axis=1).reshape(-1)


def _f1(tp: float, fp: float, fn: float) -> float:
    precision = tp / (tp + fp) if (tp + fp) > 0 else 0
    recall = tp / (tp + fn) if (tp + fn) > 0 else 0
    return 2 * precision * recall / (precision + recall) if (precision + recall) > 0 else 0


def micro_f1(counts: np.ndarray) -> float:
    """F1 of the tp/fp/fn pooled over classes, from summed per-class counts."""
    tp, fp, fn = counts.reshape(len(CLASSES), 3).sum(0).tolist()
    return float(_f1(tp, fp, fn))


def macro_f1(counts: np.ndarray) -> float:
    """The mean over the 7 classes of each class's F1, from summed per-class counts."""
    return float(np.mean([_f1(tp, fp, fn) for tp, fp, fn in counts.reshape(len(CLASSES), 3).tolist()]))


FINISH = {"micro_f1": micro_f1, "macro_f1": macro_f1}


class CmiGuzheng(MetricFamily):
    """Frame micro/macro F1 over the corpus of Guzheng technique events."""

    name: ClassVar[str] = "cmi_guzheng"
    outputs: ClassVar[tuple[str, ...]] = OUTPUTS
    task_types: ClassVar[tuple[str, ...]] = ("generation",)
    diagnostic_outputs: ClassVar[tuple[str, ...]] = ("unparsed_outputs",)

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        empty = np.zeros((FRAMES, len(CLASSES)))
        rows, unparsed = [], []
        for reference, prediction in zip(references, predictions):
            truth = technique_frames(reference.answers[0])
            predicted = technique_frames(prediction.text)
            unparsed.append(float(predicted is None))
            rows.append(frame_counts(empty if truth is None else truth, empty if predicted is None else predicted))
        stats = np.array(rows, dtype=np.int64).reshape(-1, 3 * len(CLASSES))
        scores = {name: ItemScores(np.array([FINISH[name](row) for row in stats], dtype=float), stats)
                  for name in OUTPUTS}
        scores["unparsed_outputs"] = ItemScores(np.array(unparsed, dtype=float))
        return scores

    @classmethod
    def answer_warning(cls, text: str) -> str | None:
        if technique_frames(text) is not None:
            return None
        return ("no (start, end, technique) list that evaluate.py can read (its script stops on this answer); "
                "scored as predicting no technique")

    def aggregate(self, output: str, scores: ItemScores, weights: np.ndarray) -> np.ndarray:
        return self.totals(output, scores).of(weights)

    def totals(self, output: str, scores: ItemScores) -> Totals:
        finish = FINISH[output]
        if scores.stats is None:
            return Totals(np.zeros((len(scores.values), 0)), lambda totals: np.full(totals.shape[0], np.nan))
        defined = ~np.isnan(scores.values)
        columns = np.where(defined[:, None], scores.stats, 0).astype(float)
        return Totals(columns, lambda totals: np.array([finish(np.rint(row)) for row in totals], dtype=float))

    def signature_fields(self, output: str) -> dict[str, str]:
        return {"impl": PUBLISHER, "frames": f"{FRAMES}@{FRAME_RATE}Hz", "classes": str(len(CLASSES)),
                "avg": "pooled counts" if output == "micro_f1" else "mean of class F1 over pooled counts",
                "unreadable": "empty grid"}
