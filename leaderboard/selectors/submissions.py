"""Submissions: one by id as a viewer may see it, an owner's list, an entry's metric values and runs,
the listed counts per split."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, QuerySet
from django.http import Http404

from leaderboard.models import MetricValue, RunFile, Submission
from leaderboard.services.policy.access import can_view_submission
from leaderboard.services.policy.entries import entry_can_manage
from leaderboard.services.policy.refusals import Refused

OWNED_SHOWN = 200  # the newest of an owner's entries on their page


def submission_get(uid: Any) -> Submission | None:
    """The entry ``uid``, its split, benchmark and owner loaded; ``None`` when there is none."""
    return Submission.objects.select_related("split__benchmark", "user").filter(uid=uid).first()


def submission_get_visible(user: Any, uid: Any) -> Submission:
    """The entry ``uid`` if ``user`` may see it; else ``Http404`` (absent and not yours read the same)."""
    found = submission_get(uid)
    if found is None or not can_view_submission(user, found):
        raise Http404("no such submission")
    return found


def submission_get_visible_or_refuse(user: Any, uid: Any) -> Submission:
    """The entry ``uid`` if ``user`` may see it; else a 404 refusal (the API's answer)."""
    found = submission_get(uid)
    if found is None or not can_view_submission(user, found):
        # same answer for "absent" and "not yours": existence of private entries is not revealed
        raise Refused("not_found", "no such submission", status=404)
    return found


def submission_get_manageable(user: Any, uid: Any) -> Submission:
    """The entry ``uid`` if ``user`` may change it (its owner, a maintainer); else ``Http404``."""
    found = submission_get(uid)
    if found is None or not entry_can_manage(submission=found, user=user):
        raise Http404("no such submission")
    return found


def submission_list_owned(user: Any) -> QuerySet[Submission]:
    """``user``'s newest entries, at most ``OWNED_SHOWN``."""
    return Submission.objects.filter(user=user).select_related("split__benchmark")[:OWNED_SHOWN]


def submission_list_current_values(submission: Submission) -> QuerySet[MetricValue]:
    """The entry's metric values as scored now."""
    return submission.metric_values.filter(current=True)


def submission_list_history(submission: Submission) -> QuerySet[MetricValue]:
    """The entry's earlier metric values (before a re-score), by metric, newest first."""
    return submission.metric_values.filter(current=False).order_by("key", "-created_at")


def submission_list_runs(submission: Submission) -> QuerySet[RunFile]:
    return submission.runs.all()


def submission_get_listed_counts() -> dict[int, int]:
    """Listed entries per split id (splits without any are absent)."""
    rows = Submission.objects.listed().values_list("split_id").annotate(n=Count("id")).values_list("split_id", "n")
    return dict(rows)
