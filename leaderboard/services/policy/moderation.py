"""Maintainers' bulk actions on entries: hide from the leaderboards, show again, mark verified."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from leaderboard.models import Submission
from leaderboard.services.shared.cache import leaderboard_changed


def submissions_hide(*, submissions: QuerySet[Submission]) -> None:
    _set(submissions, hidden=True)


def submissions_unhide(*, submissions: QuerySet[Submission]) -> None:
    _set(submissions, hidden=False)


def submissions_verify(*, submissions: QuerySet[Submission]) -> None:
    _set(submissions, verified=True)


def _set(submissions: QuerySet[Submission], **fields: Any) -> None:
    # a bulk update sends no post_save: the changed boards are announced here, read before the update (a queryset
    # filtered on a field the update changes selects nothing afterwards)
    split_ids = set(submissions.values_list("split_id", flat=True))
    submissions.update(**fields)
    for split_id in split_ids:
        leaderboard_changed(split_id)
