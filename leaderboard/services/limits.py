"""Limits that keep free operations from being abused: dry runs and rejected submissions.

* A dry run (``/validate``, the form's *Validate only*) needs a login, counts against a per-user
  hourly limit, and validates at most ``DRY_RUN_MAX_BYTES`` inside the web request (a few
  seconds of parsing at most); larger files are validated by submitting them, on a worker
  (an invalid submission uses no quota).
* Invalid and failed submissions use no quota but have their own daily limit per user, and
  their files are removed after a retention time (``services.retention``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from leaderboard.models import Submission
from leaderboard.models.submissions import NOT_COUNTED_STATUSES
from leaderboard.services.ratelimit import rate_hit
from leaderboard.services.submissions import SubmissionRejected

HOUR = 3600


def _limits() -> dict[str, int]:
    return settings.LIMITS


def dry_run_check(*, user: Any, files: Sequence[Any], body_length: int = 0) -> None:
    """Refuse (``SubmissionRejected``) a dry run over the per-user rate or the in-request size cap.

    ``body_length`` (the request's Content-Length) lets a view refuse before reading the body.
    """
    limits = _limits()
    dry_run_size_check(files=files, body_length=body_length)
    if rate_hit("dry-run", str(user.pk), window=HOUR) > limits["DRY_RUNS_PER_HOUR"]:
        raise SubmissionRejected(
            "rate_limited", f"at most {limits['DRY_RUNS_PER_HOUR']} dry runs per hour; try again later", status=429)


def dry_run_size_check(*, files: Sequence[Any], body_length: int = 0) -> None:
    """Refuse a dry run larger than the in-request cap (files as parsed, or the request's length)."""
    cap = _limits()["DRY_RUN_MAX_BYTES"]
    files_total = sum(int(getattr(f, "size", 0) or 0) for f in files)
    # the form's other fields and multipart framing may add up to 1 MiB beside the files
    if files_total > cap or body_length - (1 << 20) > cap:
        sent = f"{files_total / 1e6:.2f} MB of files" if files_total > cap else f"{body_length / 1e6:.2f} MB"
        raise SubmissionRejected(
            "dry_run_too_large",
            f"a dry run checks at most {cap / 1e6:g} MB in the request ({sent} sent); submit the "
            "files instead: they are validated on a worker, and an invalid submission uses no quota",
            field="predictions", status=413)


def rejected_quota_check(*, user: Any) -> None:
    """Refuse a new submission from a user with too many invalid or failed ones in the last 24 hours."""
    if getattr(user, "is_staff", False):
        return
    limit = _limits()["REJECTED_PER_DAY"]
    since = timezone.now() - timedelta(days=1)
    rejected = Submission.objects.filter(user=user, status__in=NOT_COUNTED_STATUSES, created_at__gte=since).count()
    if rejected >= limit:
        raise SubmissionRejected(
            "rejected_limit",
            f"{rejected} invalid or failed submissions in the last 24 hours (limit {limit}); check files with "
            "a dry run first", status=429)
