"""``{{ submission|warning_lines }}``: one sentence per warning kind, for the submission page."""

from __future__ import annotations

from django import template

from leaderboard.models import Submission
from leaderboard.services.pipeline.warnings import submission_warning_lines

register = template.Library()


@register.filter
def warning_lines(submission: Submission) -> list[str]:
    return submission_warning_lines(submission)
