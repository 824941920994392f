"""Reading a song's structure (SongFormBench) into SongFormer's MSA list, from tidy or messy model output.

SongFormer's ``eval_infer_results.py`` reads MSA TXT: one ``start_seconds label`` line per section,
the last line ``end_time end``, every label one of its ``LABEL_TO_ID`` names. Any other file makes its
script skip the song. Here every answer is read into that form:

* **MSA TXT lines** (``12.5 verse``), also ``start end label`` lines; times in seconds, ``m:ss`` or
  ``h:mm:ss`` (decimals allowed);
* **a list literal** (JSON or Python, read without evaluating) of ``[start, end, label]`` segments,
  ``[start, label]`` pairs or ``{"start", "end", "label"}`` objects.

Segments become MSA lines as SongFormer's own ``convert_res2msa_txt`` writes them (each start with its
label; the end after the last), sorted by start, the end being the latest segment end (a gap between two
segments belongs to the earlier one, as MSA TXT has no gaps). Then the lines are normalised, each repair
noted: lines sorted by time (stably); an ``end`` line ends the song (the last one, if several; none: the
song's annotated end); times below 0 become 0 and above 30,000 s (mir_eval's limit) 30,000; of lines at the
same time the last is kept; lines at or after the end are dropped; a label outside the vocabulary is
matched case-insensitively (``Chorus``), or else kept as a label of its own that matches no reference
label. What is left has strictly increasing times and is what the publisher's script scores. An answer
with no readable section is *unreadable* (scored 0 on every metric by the family).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scoring.reading.pyliteral import LiteralError, parse_literal

# SongFormer dataset/label2id.py LABEL_TO_ID, in id order: the labels its loader accepts (besides "end")
VOCABULARY: tuple[str, ...] = (
    "intro", "verse", "chorus", "bridge", "inst", "outro", "silence", "intchorus", "prechorus", "gtrbreak",
    "solo", "quietchorus", "bre", "break", "introverse", "mainriff", "chorushalf", "instintro", "gtr",
    "vocaloutro", "verse_slow", "fadein", "saxobeat", "transition", "verse1a", "build", "pre-chorus", "outroa",
    "bigoutro", "fast", "instrumentalverse", "section", "choruspart", "instbridge", "guitar", "instrumental",
    "breakdown", "rhythmlessintro", "intropt", "interlude", "postchorus", "postverse", "opening", "altchorus",
    "stutter", "oddriff", "synth", "preverse", "quiet", "raps", "verseinst", "instchorus", "chorus_instrumental",
    "slowverse", "slow", "worstthingever", "transition2a", "miniverse", "refrain", "introchorus", "drumroll",
    "guitarsolo", "versepart", "chorusinst", "ending", "no-vocal-intro", "no-vocal-interlude", "no-vocal-outro",
    "NO_LABEL",
)
LABEL_IDS: dict[str, int] = {label: index for index, label in enumerate(VOCABULARY)}
EVAL_CLASSES: tuple[str, ...] = ("intro", "verse", "chorus", "bridge", "inst", "outro", "silence")
END = "end"
MAX_TIME = 30_000.0  # mir_eval's largest event time; SongFormer's script stops on a later one

_LOWER = {label.lower(): label for label in VOCABULARY}
_CLOCK = re.compile(r"^(\d+):([0-5]?\d)(?::([0-5]?\d))?(\.\d+)?$")

Msa = tuple[tuple[float, str], ...]


@dataclass(frozen=True)
class Reading:
    """An answer read as MSA: ``(time, label)`` pairs with strictly increasing times, then ``(end, "end")``.

    ``msa`` is empty when nothing could be read; ``notes`` says what was repaired or left out."""

    msa: Msa
    notes: tuple[str, ...]


def seconds(token: Any) -> float | None:
    """A time: a number, a decimal string (as ``float``), or ``m:ss`` / ``h:mm:ss``; None if none or not finite."""
    if isinstance(token, bool) or token is None:
        return None
    if isinstance(token, int | float):
        value = float(token)
        return value if math.isfinite(value) else None
    if not isinstance(token, str):
        return None
    text = token.strip()
    try:
        value = float(text)
    except ValueError:
        match = _CLOCK.match(text)
        if match is None:
            return None
        first, second, third, fraction = match.groups()
        whole = (int(first) * 3600 + int(second) * 60 + int(third)) if third else int(first) * 60 + int(second)
        value = whole + (float(fraction) if fraction else 0.0)
    return value if math.isfinite(value) else None


def read_answer(text: str, end_time: float | None = None) -> Reading:
    """The answer as the MSA list the publisher's script would score; ``end_time``: the song's end when the
    answer gives none (None: such an answer keeps its own lines and ``notes`` say the end is missing)."""
    notes: list[str] = []
    stripped = text.strip()
    if stripped[:1] in ("[", "("):
        entries = _literal_entries(stripped, notes)
    else:
        entries = _line_entries(stripped, notes)
    return _normalised(entries, end_time, notes)


def _literal_entries(text: str, notes: list[str]) -> list[tuple[float, str]]:
    try:
        value = parse_literal(text)
    except LiteralError as exc:
        notes.append(f"not a readable list ({exc})")
        return []
    if not isinstance(value, list | tuple):
        notes.append("not a list of segments")
        return []
    segments: list[tuple[float, float | None, str]] = []
    for position, item in enumerate(value, start=1):
        segment = _segment(item)
        if segment is None:
            notes.append(f"segment {position} is not [start, end, label] or [start, label]; left out")
        else:
            segments.append(segment)
    return _segments_to_lines(segments, notes)


def _segment(item: Any) -> tuple[float, float | None, str] | None:
    if isinstance(item, dict):
        item = [item.get("start"), item.get("end"), item.get("label")]
    if not isinstance(item, list | tuple) or len(item) not in (2, 3) or not isinstance(item[-1], str):
        return None
    start = seconds(item[0])
    end = seconds(item[1]) if len(item) == 3 else None
    if start is None or (len(item) == 3 and end is None):
        return None
    return start, end, item[-1]


def _line_entries(text: str, notes: list[str]) -> list[tuple[float, str]]:
    entries: list[tuple[float, str]] = []
    segments: list[tuple[float, float | None, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        tokens = line.split()
        if not tokens:
            continue
        if len(tokens) == 2 and seconds(tokens[0]) is not None:
            entries.append((seconds(tokens[0]) or 0.0, tokens[1]))
        elif len(tokens) == 3 and seconds(tokens[0]) is not None and seconds(tokens[1]) is not None:
            segments.append((seconds(tokens[0]) or 0.0, seconds(tokens[1]), tokens[2]))
        else:
            notes.append(f"answer line {number} is not 'time label' or 'start end label'; left out")
    if segments and entries:
        notes.append("'time label' and 'start end label' lines mixed; read as one list of sections")
    return sorted(entries + _segments_to_lines(segments, []), key=lambda entry: entry[0]) if segments else entries


def _segments_to_lines(
    segments: Sequence[tuple[float, float | None, str]], notes: list[str]
) -> list[tuple[float, str]]:
    """Segments as MSA lines, as SongFormer's convert_res2msa_txt writes them: sorted starts, then the end."""
    ordered = sorted(segments, key=lambda segment: segment[0])
    lines = [(start, label) for start, _, label in ordered]
    ends = [end for _, end, _ in ordered if end is not None]
    if ends:
        lines.append((max(ends), END))
    if any(a[1] is not None and a[1] > b[0] for a, b in itertools.pairwise(ordered)):
        notes.append("overlapping segments: each section runs until the next one starts")
    return lines


def _normalised(entries: list[tuple[float, str]], end_time: float | None, notes: list[str]) -> Reading:
    ends = [time for time, label in entries if label == END]
    if len(ends) > 1:
        notes.append(f"{len(ends)} 'end' lines; the last one ends the song")
    sections = [(time, _label(label, notes)) for time, label in entries if label != END]
    if [time for time, _ in sections] != sorted(time for time, _ in sections):
        notes.append("times not in order; sorted")
    end = _clamped(ends[-1], notes) if ends else None
    if end is None:
        notes.append("no 'end' line; the song's annotated end is used")
        end = end_time
    kept: list[tuple[float, str]] = []
    for time, label in sorted(((_clamped(t, notes), label) for t, label in sections), key=lambda s: s[0]):
        if kept and kept[-1][0] == time:
            notes.append(f"two sections start at {time:g} s; the later line is kept")
            kept.pop()
        kept.append((time, label))
    if end is not None and any(time >= end for time, _ in kept):
        notes.append("sections starting at or after the end left out")
        kept = [(time, label) for time, label in kept if time < end]
    if not kept:
        notes.append("no section could be read")
        return Reading((), tuple(dict.fromkeys(notes)))
    msa = (*kept, (end, END)) if end is not None else tuple(kept)
    return Reading(msa, tuple(dict.fromkeys(notes)))


def _clamped(time: float, notes: list[str]) -> float:
    if time < 0:
        notes.append("a negative time read as 0")
        return 0.0
    if time > MAX_TIME:
        notes.append("a time above 30,000 s read as 30,000 s")
        return MAX_TIME
    return time


def _label(label: str, notes: list[str]) -> str:
    if label in LABEL_IDS:
        return label
    known = _LOWER.get(label.strip().lower())
    if known is not None:
        notes.append(f"label {label!r} read as {known!r}")
        return known
    notes.append(f"label {label!r} is not in SongFormer's vocabulary; it matches no reference label")
    return label
