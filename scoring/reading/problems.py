"""Validation problems: every one names the file, the line and the field.

Two severities: an *error* stops a file from being scored; a *warning* is
something the publisher's evaluator accepts and scores (an empty prediction,
a reference item it leaves out) that the researcher should know about.

Problems that say the same thing (same file, kind, field and message up to its
quoted values and numbers) are one entry with a count and the first lines once
there are more than :data:`LINES_KEPT` of them (fewer are listed one by one), so
a file with one mistake on every line reads as one sentence, not a thousand.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input file, or ``count`` alike ones.

    ``line`` is 1-based (the first of ``lines``); 0 means the file as a whole.
    ``kind`` is a stable code (``not_json``, ``duplicate_id`` ...) used to count
    problems by kind. ``unit`` is what ``line`` counts: ``line``, or ``item`` in a
    JSON array (its 1-based position). ``lines`` holds the first
    :data:`LINES_KEPT` lines of a group; ``varied``: the group's messages differ
    in their values (``message`` is the first one's). Messages never quote
    hidden reference labels.
    """

    file: str
    line: int
    kind: str
    message: str
    field: str | None = None
    severity: str = "error"
    count: int = 1
    lines: tuple[int, ...] = ()
    unit: str = "line"
    varied: bool = False

    def __str__(self) -> str:
        where = f" {self.field}:" if self.field else ""
        prefix = "warning: " if self.severity == WARNING else ""
        if self.count == 1:
            return f"{self.file}:{self.line}:{where} {prefix}{self.message}"
        example = f"e.g. {self.unit} {self.line}: " if self.varied else ""
        return f"{self.file}: {self.where()}:{where} {prefix}{example}{self.message}"

    def where(self) -> str:
        """``"line 3"``, ``"lines 3, 4, 7 and 997 more"``, ``"item 12"``; ``"the file"`` for line 0."""
        shown = [n for n in (self.lines or (self.line,)) if n > 0]
        if not shown:
            return "the file" if self.count == 1 else f"the file ({self.count:,} times)"
        word = self.unit if self.count == 1 else f"{self.unit}s"
        more = self.count - len(shown)
        listed = ", ".join(str(n) for n in shown)
        return f"{word} {listed}" + (f" and {more:,} more" if more > 0 else "")

    def as_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "field": self.field,
            "kind": self.kind,
            "message": self.message,
            "severity": self.severity,
            "count": self.count,
            "lines": list(self.lines or (self.line,)),
            "unit": self.unit,
            "where": self.where(),
            "varied": self.varied,
        }


ERROR = "error"
WARNING = "warning"
LINES_KEPT = 3
"""Alike problems up to this many are listed one by one; more are one entry listing the first this many lines."""

_VALUES = re.compile(r'"(?:[^"\\]|\\.)*"|0x[0-9a-fA-F]+|\d[\d,.]*')


def template(message: str) -> str:
    """``message`` with its quoted values and numbers blanked: what alike problems share."""
    return _VALUES.sub("#", message)


@dataclass(slots=True)
class _Group:
    """Alike problems: how many, and the first :data:`LINES_KEPT` in full with the order they came in."""

    first: Problem
    count: int = 0
    members: list[tuple[int, Problem]] = dataclass_field(default_factory=list)
    varied: bool = False

    def take(self, problem: Problem, order: int) -> None:
        self.count += 1
        if len(self.members) < LINES_KEPT:
            self.members.append((order, problem))
        self.varied = self.varied or problem.message != self.first.message

    def entries(self, unit: str) -> list[tuple[int, Problem]]:
        """Each problem alone while there are at most :data:`LINES_KEPT`, else one entry for them all."""
        if self.count <= len(self.members):
            return [(order, replace(p, unit=unit)) for order, p in self.members]
        lines = tuple(dict.fromkeys(p.line for _, p in self.members))
        return [(self.members[0][0], replace(self.first, count=self.count, lines=lines, unit=unit,
                                             varied=self.varied))]


class _Groups:
    """Alike problems as one group each; at most ``keep`` groups."""

    def __init__(self) -> None:
        self.groups: dict[tuple[str, str, str | None, str], _Group] = {}
        self.order = 0

    def add(self, problem: Problem, keep: int | None) -> None:
        group = self._group(problem, keep)
        if group is not None:
            self.order += 1
            group.take(problem, self.order)

    def merge(self, other: _Group, file: str, keep: int | None) -> None:
        """``other``'s problems, named under ``file``."""
        group = self._group(replace(other.first, file=file), keep)
        if group is None:
            return
        for _, problem in other.members:
            self.order += 1
            group.take(replace(problem, file=file), self.order)
        group.count += other.count - len(other.members)
        group.varied = group.varied or other.varied

    def _group(self, problem: Problem, keep: int | None) -> _Group | None:
        key = (problem.file, problem.kind, problem.field, template(problem.message))
        group = self.groups.get(key)
        if group is None:
            if keep is not None and len(self.groups) >= keep:
                return None  # counted by kind, not listed
            group = self.groups[key] = _Group(problem)
        return group

    def listed(self, units: dict[str, str]) -> list[Problem]:
        entries = [entry for group in self.groups.values()
                   for entry in group.entries(units.get(group.first.file, "line"))]
        return [problem for _, problem in sorted(entries, key=lambda entry: entry[0])]


class ProblemLog:
    """Collects problems; counts all of them, keeps the first ``keep`` entries in full.

    A hostile file can produce millions of problems; the counts stay exact
    while memory stays bounded. Alike problems are one entry (a count, the first
    lines). Warnings are kept apart (``warnings``, ``warning_counts``, same
    bound): a log with only warnings is falsy, i.e. valid. ``refused``: the files
    refused as a whole (not UTF-8, a CSV, another benchmark's file), whose items
    are then not reported one by one.
    """

    def __init__(self, keep: int | None = None) -> None:
        self.keep = keep
        self.counts: Counter[str] = Counter()
        self.warning_counts: Counter[str] = Counter()
        self.units: dict[str, str] = {}
        self.refused: set[str] = set()
        self._errors = _Groups()
        self._warnings = _Groups()

    def add(
        self, file: str, line: int, kind: str, message: str, field: str | None = None, *, count: int = 1
    ) -> None:
        """Record an error; ``count`` > 1 when one entry stands for several (missing items)."""
        self.counts[kind] += count
        self._errors.add(Problem(file, line, kind, message, field), self.keep)

    def warn(
        self, file: str, line: int, kind: str, message: str, field: str | None = None, *, count: int = 1
    ) -> None:
        """Record something scored as the publisher scores it, not an error."""
        self.warning_counts[kind] += count
        self._warnings.add(Problem(file, line, kind, message, field, WARNING), self.keep)

    def refuse(self, file: str, line: int, kind: str, message: str, field: str | None = None) -> None:
        """Record the one error that refuses ``file`` as a whole."""
        self.refused.add(file)
        self.add(file, line, kind, message, field)

    def explained(self, file: str, kinds: Iterable[str]) -> None:
        """Drop ``file``'s errors and warnings of ``kinds``: one problem just logged says why every line has them
        (a misnamed key: each line's missing field)."""
        wanted = set(kinds)
        for groups, counts in ((self._errors, self.counts), (self._warnings, self.warning_counts)):
            for key in [k for k in groups.groups if k[0] == file and k[1] in wanted]:
                counts[key[1]] -= groups.groups.pop(key).count
                if counts[key[1]] <= 0:
                    del counts[key[1]]

    def name_items(self, file: str) -> None:
        """``file`` is a JSON array: its problems' ``line`` is an item's position."""
        self.units[file] = "item"

    @property
    def problems(self) -> list[Problem]:
        return self._errors.listed(self.units)

    @property
    def warnings(self) -> list[Problem]:
        return self._warnings.listed(self.units)

    @warnings.setter
    def warnings(self, kept: Iterable[Problem]) -> None:
        self._warnings = _Groups()
        for warning in kept:
            alone = replace(warning, count=1, lines=(), varied=False)
            members = [(0, replace(alone, line=n)) for n in warning.lines or (warning.line,)]
            group = _Group(alone, warning.count, members, warning.varied)
            self._warnings.merge(group, warning.file, self.keep)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def warning_total(self) -> int:
        return sum(self.warning_counts.values())

    def warnings_json_fields(self) -> dict[str, object]:
        """``warning_counts``, ``warning_summary``, ``warnings``: the site's JSON field names."""
        data = self.warnings_json()
        return {"warning_counts": data["counts"], "warning_summary": data["summary"], "warnings": data["first"]}

    def warnings_json(self) -> dict[str, object]:
        """The warnings as the CLI report and the site store them: counts by kind, the first ones."""
        return {
            "total": self.warning_total,
            "counts": dict(self.warning_counts.most_common()),
            "summary": warning_summary(self.warning_counts),
            "first": [w.as_dict() for w in self.warnings],
        }

    def __bool__(self) -> bool:
        return self.total > 0


class InvalidInput(Exception):
    """Raised by strict loaders when a file has problems; carries them all."""

    def __init__(self, log: ProblemLog) -> None:
        self.log = log
        first = log.problems[0] if log.problems else None
        super().__init__(
            f"{log.total} problem(s); first: {first}" if first else "invalid input"
        )


WARNING_TEXT = {
    "empty_prediction": "empty prediction(s), scored as the publisher scores them",
    "blank_prediction": "whitespace-only prediction(s), scored as the publisher scores them",
    "null_prediction": "null prediction(s), scored as empty answers",
    "missing_as_empty": "missing item(s) scored as empty predictions (--missing-as-empty)",
    "empty_gold_answer": "reference item(s) with an empty gold answer: counted, always wrong (as evaluate.py)",
    "unlabelled_gold_answer": "yes/no reference item(s) whose gold answer is neither yes nor no: always wrong",
    "unknown_qa_type": "reference item(s) with an unknown qa_type, left out (as evaluate.py)",
    "repeated_key": "key(s) repeated in one object: the last value is used, as Python's json reads it",
    "not_msa_txt": "file(s) of a predictions folder not named <id>.txt, left out (as eval_infer_results.py)",
    "list_response": "CMI-Bench response(s) given as a list: the first element scored (as evaluate.py reads label "
                     "and beat answers; it stops on a list elsewhere)",
}


def copy_problems(source: ProblemLog, target: ProblemLog, display: str | None = None) -> None:
    """Every error and warning of ``source`` into ``target`` (under ``display`` when given), groups and counts
    exact: entries past ``source.keep`` are counted, not listed, there too."""
    for mine, theirs in ((source._errors, target._errors), (source._warnings, target._warnings)):
        for group in mine.groups.values():
            theirs.merge(group, display or group.first.file, target.keep)
    target.counts.update(source.counts)
    target.warning_counts.update(source.warning_counts)
    for file, unit in source.units.items():
        target.units[display or file] = unit
    target.refused.update(display or file for file in source.refused)


def warning_summary(counts: Counter[str] | dict[str, int]) -> list[str]:
    """One sentence per kind: ``"37 empty prediction(s), scored as the publisher scores them"``."""
    return [f"{n:,} {WARNING_TEXT.get(kind, kind.replace('_', ' '))}" for kind, n in counts.items()]
