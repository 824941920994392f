"""Exact MIDI pitch: 1 when a free-text answer names exactly the reference's MIDI pitch, else 0.

This site's own protocol for CMI-Bench NSynth pitch, never the publisher's: ``evaluate.py`` scores that task by
the substring rule of its label tasks (:mod:`scoring.metrics.cmi_classification`), under which 33 of the 106
pitches hold another pitch's number and can never be credited. Here every pitch can be.

Reading an answer: every *reading* of a pitch in it is collected, and the answer names a pitch when there is at
least one and all of them give the same MIDI number.

* A note name in scientific pitch notation: a letter A-G (either case) with nothing alphanumeric before it, an
  optional accidental (``#``, ``♯``, ``b``, ``♭`` right after the letter, or ``sharp``/``flat`` as a word, any
  case, spaces or a hyphen around it: ``C sharp 4``, ``C-sharp4``), an optional ``_`` (the instruction's
  ``A_0``), then the octave -1 to 9 with no letter, digit, ``_`` or decimal after it; or, as the instruction
  writes ``B 8``, a capital letter (and a symbol accidental) and one space before the octave. MIDI = 12 x
  (octave + 1) + pitch class, C = 0 ... B = 11, an accidental moving it by one: ``C4`` = 60, ``A4`` = 69,
  ``B#3`` = 60, ``Cb4`` = 59, ``E#4`` = 65. A name outside 0-127 (``G#9``) and one without an octave (``C``,
  ``A sharp``) name no pitch; ``DB4`` is no name (only a lower-case ``b`` is a flat).
* ``A440`` (the standard's name for A4) = 69.
* A MIDI number, read in what is left once the note names and ``A440`` are blanked out (the ``4`` of ``C sharp
  4`` is no number): an integer 0-127 in ASCII digits, written without a leading zero (``0`` itself is one),
  standing alone: no letter, digit, ``_`` or ``.`` right before it, no sign (``-1``, ``+12``: a sign is a ``+``,
  ``-`` or ``−`` that follows no letter or digit, so ``60-61`` is 60 and 61), no letter, digit or ``_`` right after
  it, not a decimal (``60.5``, ``60.0``; ``60.`` ending a sentence is 60), and not a list marker (a number and
  ``.`` or ``)`` opening a line, then a space and more text: ``1. A4 (69)``). So ``128``, ``0060``, ``1e2``,
  ``60th`` and ``６０`` give no MIDI number.
* A frequency: a number (integer or decimal, no sign) followed by ``Hz`` or ``kHz`` (any case, spaces between
  allowed, no letter after): the nearest MIDI number, 69 + 12 log2(f / 440) rounded, when it is within 0-127 and
  less than 50 cents from f (a frequency exactly halfway between two pitches names neither). ``440 Hz`` = 69,
  ``261.63 Hz`` = 60, ``60 Hz`` = 35.

None found, or two that disagree (``60 or 61``, ``C4 or D4``, ``C4 (61)``, an echo of the instruction's three
examples), is *unparsed* and scores 0. Each item's note is the pitch read (``choice``: the number, ``none`` or
the disagreeing numbers); the ``pitch_unparsed`` diagnostic counts the unparsed answers (the ``unparsed``
diagnostic stays the publisher's parser's). The reading never looks at the reference; a reference that is not
an integer 0-127 is an error naming the item.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import ItemScores, MetricFamily, register_family
from scoring.task_types import Prediction, Reference

OUTPUT = "pitch_accuracy"
UNREAD = "pitch_unparsed"
PITCH_CLASSES = {"c": 0, "d": 2, "e": 4, "f": 5, "g": 7, "a": 9, "b": 11}
_ACCIDENTALS = {"#": 1, "\u266f": 1, "sharp": 1, "b": -1, "\u266d": -1, "flat": -1}
_NUMBER = re.compile(
    r"(?<![\w.])([+\-\u2212]?)([0-9]+(?:\.[0-9]+)?)(?:\s*(k?hz)(?!\w)|(?!\w|\.[0-9]))", re.IGNORECASE)
_NOTE = re.compile(
    r"(?<!\w)([a-g])(?:([#\u266f\u266d]|(?-i:b))|[\s-]*(sharp|flat)(?![^\W\d])[\s-]*)?_?(-1|[0-9])(?!\w|\.[0-9])",
    re.IGNORECASE)
# the instruction's own spelling ("B 8"): a capital letter, one space, the octave
_SPACED_NOTE = re.compile(r"(?<!\w)([A-G])([#\u266f\u266db])?()[ ](-1|[0-9])(?!\w|\.[0-9])")
_A440 = re.compile(r"(?<!\w)A440(?!\w|\.[0-9])")
_LIST_MARKER = re.compile(r"^[ \t]*[0-9]+[.)][ \t]+(?=\S)", re.MULTILINE)


def _number(sign: str, digits: str, hertz: str | None) -> int | None:
    if sign:
        return None
    if hertz:
        return _nearest_midi(float(digits) * (1000 if hertz.lower() == "khz" else 1))
    if "." in digits or (digits.startswith("0") and digits != "0"):
        return None
    return int(digits)


def _nearest_midi(hertz: float) -> int | None:
    if hertz <= 0:
        return None
    exact = 69 + 12 * math.log2(hertz / 440)
    nearest = round(exact)
    return nearest if abs(exact - nearest) < 0.5 else None


def _note(letter: str, symbol: str | None, word: str | None, octave: str) -> int:
    accidental = symbol or word
    shift = _ACCIDENTALS[accidental.lower()] if accidental else 0
    return 12 * (int(octave) + 1) + PITCH_CLASSES[letter.lower()] + shift


def pitch_readings(text: str) -> list[int]:
    """Every MIDI pitch the answer names, in order: note names (and ``A440``) first, then the numbers and
    frequencies of the text left once those and list markers are blanked out (the ``4`` of ``C sharp 4`` and
    the ``1.`` of ``1. A4`` are no MIDI numbers)."""
    found = []
    text = _LIST_MARKER.sub(" ", text)
    for pattern in (_NOTE, _SPACED_NOTE):
        found += [_note(*m.groups()) for m in pattern.finditer(text)]
        text = pattern.sub(" ", text)
    found += [69 for _ in _A440.finditer(text)]
    found += [n for n in (_number(*m.groups()) for m in _NUMBER.finditer(_A440.sub(" ", text))) if n is not None]
    return [midi for midi in found if 0 <= midi <= 127]


def read_pitch(text: str) -> int | None:
    """The one MIDI pitch an answer names, or None (nothing read, or readings that disagree)."""
    readings = set(pitch_readings(text))
    return next(iter(readings)) if len(readings) == 1 else None


def _reference_pitch(reference: Reference) -> int:
    answer = reference.answers[0].strip()
    if not answer.isascii() or not answer.isdigit() or not 0 <= int(answer) <= 127:
        raise ValueError(f"item {reference.id!r}: the reference {reference.answers[0]!r} is not a MIDI pitch 0-127")
    return int(answer)


def _choice(readings: set[int]) -> str:
    if not readings:
        return "none"
    return str(next(iter(readings))) if len(readings) == 1 else "disagree: " + ", ".join(map(str, sorted(readings)))


@register_family
class ExactPitch(MetricFamily):
    """Share of answers naming exactly the reference's MIDI pitch (this site's protocol)."""

    name: ClassVar[str] = "exact_pitch"
    outputs: ClassVar[tuple[str, ...]] = (OUTPUT,)
    task_types: ClassVar[tuple[str, ...]] = ("generation",)
    diagnostic_outputs: ClassVar[tuple[str, ...]] = (UNREAD,)

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        gold = [_reference_pitch(r) for r in references]
        readings = [set(pitch_readings(p.text)) for p in predictions]
        values = np.array([float(r == {g}) for g, r in zip(gold, readings)], dtype=float)
        notes: list[dict[str, Any] | None] = [{"choice": _choice(r)} for r in readings]
        unread = np.array([float(len(r) != 1) for r in readings])
        return {OUTPUT: ItemScores(values, notes=notes), UNREAD: ItemScores(unread)}

    def signature_fields(self, output: str) -> dict[str, str]:
        return {"impl": "site exact MIDI pitch", "read": "MIDI 0-127, note+octave (C4=60), Hz within 50 cents, A440",
                "agree": "all readings", "avg": "items"}
