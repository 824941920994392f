"""Warnings of a valid submission: what was scored as the publisher scores it (empty, blank or
null predictions), counted by kind, the first ones kept with file, line and field."""

from __future__ import annotations

from typing import Any

from leaderboard.models import Submission
from scoring import ProblemLog
from scoring.reading.problems import warning_summary


def submission_warnings(log: ProblemLog) -> dict[str, Any]:
    """The fields to store on a submission from its validation log."""
    return {
        "warnings": [w.as_dict() for w in log.warnings],
        "warning_counts": dict(log.warning_counts.most_common()),
    }


def submission_warning_lines(submission: Submission) -> list[str]:
    """``["37 empty prediction(s), scored as the publisher scores them", ...]``."""
    return warning_summary(submission.warning_counts or {})
