"""CMI-Bench beat and downbeat tracking, as ``beat_tracking`` in CMI-Bench's ``evaluate.py`` scores it.

Timestamps are read by the publisher's ``get_beat`` (:func:`cmi_timestamps`): the text is split at
commas; in each piece every ``s`` is deleted and the rest stripped; a piece that starts with a digit
is ``float(piece)`` when it has no ``:`` and ``int(minutes) * 60 + float(seconds)`` for
``minutes:seconds`` (a third ``:`` field is ignored, an empty seconds field skips the piece); other
pieces are skipped; the times are sorted. A piece these conversions reject (``"1.5 and 2"``,
``"1.5:30"``, ``"2.0]"``) makes the whole answer unreadable, and the publisher then scores the track
0 on every metric, as it does when ``mir_eval`` refuses the times (one above 30,000 s). Per track:
``mir_eval.beat.f_measure`` (70 ms window) and the CMLt and AMLt of ``mir_eval.beat.continuity``,
on the times as read, without ``mir_eval.beat.trim_beats`` (the publisher calls the metric
functions directly, so beats in the first 5 s count); the mean over tracks. An empty answer has no
beats and scores 0. The ``unparsed_outputs`` diagnostic counts answers scored 0 because they could
not be read (``unparsed`` too, the name every family with a parser reports); an answer with no piece
starting with a digit is read, as no beats.
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import UNPARSED, ItemScores, MetricFamily, register_family
from scoring.task_types import Prediction, Reference
from scoring.versions import library_version

PUBLISHER = "nicolaus625/CMI-bench evaluate.py@2cafca5d beat_tracking"
OUTPUTS = ("f_measure", "cmlt", "amlt")


def cmi_timestamps(text: str) -> np.ndarray | None:
    """The publisher's ``get_beat``: sorted times in seconds, or None where it raises."""
    times: list[float] = []
    for piece in text.split(","):
        piece = piece.strip().replace("s", "")
        if not piece or not piece[0].isdigit():
            continue
        try:
            if ":" not in piece:
                times.append(float(piece.strip()))
            elif piece.split(":")[1] != "":
                minutes, seconds = piece.split(":")[:2]
                times.append(int(minutes) * 60 + float(seconds))
        except (ValueError, OverflowError):  # float("1.5 and 2"), int("1.5"), a huge int plus a float
            return None
    times.sort()
    return np.array(times)


def beat_scores(reference: np.ndarray, estimate: np.ndarray) -> tuple[float, float, float]:
    """(F-measure, CMLt, AMLt) of one track, untrimmed; zeros where mir_eval refuses the times."""
    import mir_eval

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mir_eval warns on empty or single-beat inputs, then scores 0
        # evaluate.py wraps each call in a bare except and scores any failure 0 (in practice
        # mir_eval's ValueError for a time above 30,000 s); so do we, and never stop a run
        try:
            f_measure = float(mir_eval.beat.f_measure(reference, estimate))
        except Exception:
            f_measure = 0.0
        try:
            _, cmlt, _, amlt = mir_eval.beat.continuity(reference, estimate)
        except Exception:
            cmlt, amlt = 0.0, 0.0
    return f_measure, float(cmlt), float(amlt)


@register_family
class CmiBeat(MetricFamily):
    """Per-track beat F-measure, CMLt and AMLt of CMI-Bench's beat and downbeat tasks."""

    name: ClassVar[str] = "cmi_beat"
    outputs: ClassVar[tuple[str, ...]] = OUTPUTS
    task_types: ClassVar[tuple[str, ...]] = ("generation",)
    diagnostic_outputs: ClassVar[tuple[str, ...]] = ("unparsed_outputs", UNPARSED)

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        rows, unparsed = [], []
        for reference, prediction in zip(references, predictions):
            truth = cmi_timestamps(reference.answers[0])
            estimate = cmi_timestamps(prediction.text)
            unparsed.append(float(estimate is None))
            rows.append((0.0, 0.0, 0.0) if truth is None or estimate is None else beat_scores(truth, estimate))
        values = np.array(rows, dtype=float).reshape(-1, len(OUTPUTS))
        scores = {name: ItemScores(values[:, column]) for column, name in enumerate(OUTPUTS)}
        scores["unparsed_outputs"] = scores[UNPARSED] = ItemScores(np.array(unparsed, dtype=float))
        return scores

    @classmethod
    def parse_rule(cls, params: Mapping[str, Any]) -> str | None:
        return ("get_beat raises on the answer (a comma-separated piece starting with a digit that is not a number "
                "or m:ss), and the track scores 0")

    @classmethod
    def answer_warning(cls, text: str) -> str | None:
        if cmi_timestamps(text) is not None:
            return None
        return ("evaluate.py's get_beat cannot read these beat times (a comma-separated piece starting with a "
                "digit is not a number or m:ss); scored 0, as the publisher scores it")

    def signature_fields(self, output: str) -> dict[str, str]:
        metric = "f_measure(window=0.07)" if output == "f_measure" else f"continuity.{output}"
        return {"impl": PUBLISHER, "metric": metric, "trim": "no", "avg": "tracks",
                "mir_eval": library_version("mir_eval")}
