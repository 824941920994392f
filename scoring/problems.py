"""Validation problems: every one names the file, the line and the field.

Two severities: an *error* stops a file from being scored; a *warning* is
something the publisher's evaluator accepts and scores (an empty prediction,
a reference item it leaves out) that the researcher should know about.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input file.

    ``line`` is 1-based; 0 means the file as a whole. ``kind`` is a stable code
    (``not_json``, ``duplicate_id`` ...) used to count problems by kind.
    Messages never quote hidden reference labels.
    """

    file: str
    line: int
    kind: str
    message: str
    field: str | None = None
    severity: str = "error"

    def __str__(self) -> str:
        where = f" {self.field}:" if self.field else ""
        prefix = "warning: " if self.severity == WARNING else ""
        return f"{self.file}:{self.line}:{where} {prefix}{self.message}"

    def as_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "field": self.field,
            "kind": self.kind,
            "message": self.message,
            "severity": self.severity,
        }


ERROR = "error"
WARNING = "warning"


class ProblemLog:
    """Collects problems; counts all of them, keeps the first ``keep`` in full.

    A hostile file can produce millions of problems; the counts stay exact
    while memory stays bounded. Warnings are kept apart (``warnings``,
    ``warning_counts``, same bound): a log with only warnings is falsy, i.e. valid.
    """

    def __init__(self, keep: int | None = None) -> None:
        self.keep = keep
        self.problems: list[Problem] = []
        self.counts: Counter[str] = Counter()
        self.warnings: list[Problem] = []
        self.warning_counts: Counter[str] = Counter()

    def add(
        self, file: str, line: int, kind: str, message: str, field: str | None = None, *, count: int = 1
    ) -> None:
        """Record an error; ``count`` > 1 when one entry stands for several (missing items)."""
        self.counts[kind] += count
        if self.keep is None or len(self.problems) < self.keep:
            self.problems.append(Problem(file, line, kind, message, field))

    def warn(
        self, file: str, line: int, kind: str, message: str, field: str | None = None, *, count: int = 1
    ) -> None:
        """Record something scored as the publisher scores it, not an error."""
        self.warning_counts[kind] += count
        if self.keep is None or len(self.warnings) < self.keep:
            self.warnings.append(Problem(file, line, kind, message, field, WARNING))

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
    "list_response": "CMI-Bench response(s) given as a list: the first element scored (as evaluate.py reads label "
                     "and beat answers; it stops on a list elsewhere)",
}


def copy_problems(source: ProblemLog, target: ProblemLog, display: str | None = None) -> None:
    """Every error and warning of ``source`` into ``target`` (under ``display`` when given)."""
    for problem in source.problems:
        target.add(display or problem.file, problem.line, problem.kind, problem.message, problem.field)
    for warning in source.warnings:
        target.warn(display or warning.file, warning.line, warning.kind, warning.message, warning.field)
    # entries past ``keep`` are counted, not listed
    target.counts.update(source.counts - Counter(p.kind for p in source.problems))
    target.warning_counts.update(source.warning_counts - Counter(w.kind for w in source.warnings))


def warning_summary(counts: Counter[str] | dict[str, int]) -> list[str]:
    """One sentence per kind: ``"37 empty prediction(s), scored as the publisher scores them"``."""
    return [f"{n:,} {WARNING_TEXT.get(kind, kind.replace('_', ' '))}" for kind, n in counts.items()]
