"""CMI-Bench Guzheng playing-technique detection: frame-level micro and macro F1.

As ``convert_to_frame_labels`` and ``calculate_frame_f1`` in the ``evaluate.py`` CMI-Bench releases
(nicolaus625/CMI-bench @ 4c15f410, with the ``convert_to_frame_labels`` of commit f44d952), which reads answers
and references alike:

* Only the text from the first ``[`` to before the first ``)``, plus ``)]``, is read (without its first two
  characters when it starts ``["[``), as a Python literal
  (the publisher calls ``eval``; we read it with :mod:`scoring.reading.pyliteral`, which gives the same value for
  every literal and evaluates nothing). In a list of tuples only the first event counts. Text without ``[``
  or ``)``, or with its first ``)`` before its first ``[``, is read as "No Tech".
* A list whose first element is a dict becomes ``(float(start), float(end), technique)`` of each element. A
  list of 3-tuples keeps the tuples whose start is a string whose first character is a digit
  (``str.isdigit``: ``' 0.5'`` and ``'.1741'`` are dropped), as ``(float, float, str)``; none kept is "No
  Tech". Any other list is taken as is.
* Each event becomes ``(start % 10, (end - 1e-4) % 10 + 1e-4, normalise(technique))``, so an event ending at
  10.0 s (or 20.0 s) keeps its frames to the end of the clip. A single ``No Tech`` event is an empty grid;
  otherwise frames ``int(start * 100)`` to ``int(end * 100)`` (exclusive) of the technique's column of a
  1,000-frame, 7-class grid are set; an event of another technique (or ``No Tech`` beside another event) sets
  none.

Where that reading raises: a text that is not a literal (a name such as JSON's ``true``, an unclosed string;
and, as nothing is evaluated here, arithmetic, calls and sets, which ``eval`` would compute), a tuple start
that is not a string (``(0.5, 1.0, 'Vibrato')``: ``0.5[0]`` raises) or that ``float`` refuses, a dict without
``start``/``end``/``technique``, a start of ``inf`` or ``nan`` (``int(nan)``), we score the answer as
predicting no technique (an empty grid, as "No Tech") and count it in the ``unparsed_outputs`` diagnostic
(``unparsed`` too, the name every family with a parser reports), with the answers read as "No Tech" by
default (no list, no start beginning with a digit). A string time outside a tuple, which evaluate.py would
printf-format (``'%d' % 10``), is unreadable here too.

Sufficient statistics per item: true positives, false positives and false negatives per class (7 x 3
integers). ``micro_f1`` is F1 of the counts pooled over all classes and items; ``macro_f1`` is the
unweighted mean over the 7 classes of each class's F1 over all items (a class with no predicted or no true
frame has F1 0). The publisher's function returns ``(micro_f1, macro_f1)`` but its caller unpacks them as
``marco_f1, micro_f1`` and prints ``Marco F1: <micro>`` and ``Micro F1: <macro>``: our keys follow the
computation, not the printed labels.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import UNPARSED, ItemScores, MetricFamily, Totals, register_family
from scoring.reading.pyliteral import LiteralError, parse_literal
from scoring.task_types import Prediction, Reference

PUBLISHER = "nicolaus625/CMI-bench evaluate.py@4c15f410 calculate_frame_f1"
TECHNIQUES = ("Vibrato", "Point Note", "Upward Portamento", "Downward Portamento", "Plucks", "Glissando",
              "Tremolo")
FRAME_RATE = 100
FRAMES = 10 * FRAME_RATE
CLIP_SECONDS = 10
END_NUDGE = 1e-4  # evaluate.py's (end - 1e-4) % 10 + 1e-4: an end at 10.0 s stays 10.0, not 0.0
NO_TECH = "notech"
OUTPUTS = ("micro_f1", "macro_f1")
_CONVERSION_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError)

Event = tuple[Any, Any, Any]


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
    """evaluate.py's ``convert_to_frame_labels`` (1,000 x 7 of 0/1) of an answer or a reference; None where
    it reads no event (no list, no start starting with a digit) or raises: both an empty grid here."""
    try:
        events = _events(text)
        return None if events is None else _grid([_placed(event) for event in events])
    except (LiteralError, *_CONVERSION_ERRORS):
        return None


def _events(text: str) -> list[Event] | None:
    """The events evaluate.py reads from ``text``, before they are placed in the clip; None: "No Tech"."""
    start, end = text.find("["), text.find(")")
    if start == -1 or start >= end:
        return None
    literal = text[start:end] + ")]"
    value = parse_literal(literal[2:] if literal.startswith('["[') else literal)
    if not isinstance(value, list) or not value:
        raise LiteralError("not a list of events")
    if isinstance(value[0], dict):
        return [(float(e["start"]), float(e["end"]), e["technique"]) for e in value]
    if all(isinstance(e, tuple) and len(e) == 3 for e in value):
        # e[0][0] raises on a number, as in evaluate.py
        kept = [(float(e[0]), float(e[1]), str(e[2])) for e in value if e[0][0].isdigit()]
        return kept or None
    return value


def _placed(event: Any) -> tuple[Any, Any, str]:
    """``(start % 10, (end - 1e-4) % 10 + 1e-4, normalise(technique))`` of one event."""
    start, end, label = event
    if isinstance(start, str) or isinstance(end, str):
        raise TypeError("a string time outside a tuple")  # evaluate.py would printf-format or raise
    return start % CLIP_SECONDS, (end - END_NUDGE) % CLIP_SECONDS + END_NUDGE, cmi_normalise(label)


def _grid(events: list[tuple[Any, Any, str]]) -> np.ndarray:
    frames = np.zeros((FRAMES, len(CLASSES)))
    if len(events) == 1 and cmi_normalise(events[0][-1]) == NO_TECH:
        return frames
    for start, end, label in events:
        first, last = int(float(start) * FRAME_RATE), int(float(end) * FRAME_RATE)
        if cmi_normalise(label) in CLASSES:  # another technique (or "No Tech" beside one) sets no frame
            frames[first:last, CLASSES.index(cmi_normalise(label))] = 1
    return frames


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


@register_family
class CmiGuzheng(MetricFamily):
    """Frame micro/macro F1 over the corpus of Guzheng technique events."""

    name: ClassVar[str] = "cmi_guzheng"
    outputs: ClassVar[tuple[str, ...]] = OUTPUTS
    task_types: ClassVar[tuple[str, ...]] = ("generation",)
    diagnostic_outputs: ClassVar[tuple[str, ...]] = ("unparsed_outputs", UNPARSED)
    rules: ClassVar[int] = 2

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
        scores["unparsed_outputs"] = scores[UNPARSED] = ItemScores(np.array(unparsed, dtype=float))
        return scores

    @classmethod
    def parse_rule(cls, params: Mapping[str, Any]) -> str | None:
        return ("evaluate.py reads no (start, end, technique) event from the answer: no list before the first ')' or "
                "no quoted start beginning with a digit (read as 'No Tech'), or a reading that raises")

    @classmethod
    def answer_warning(cls, text: str) -> str | None:
        if technique_frames(text) is not None:
            return None
        return ("evaluate.py reads no (start, end, technique) event from this answer (it reads from the first '[' "
                "up to the first ')', and a tuple's start must be a quoted time beginning with a digit; otherwise "
                "it reads 'No Tech' or stops); scored as predicting no technique")

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
                "read": "first ')'", "unreadable": "empty grid"}
