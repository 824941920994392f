"""Limits that keep free operations from being abused: dry runs and rejected submissions.

* A dry run (``/validate``, the form's *Validate only*) needs a login, counts against a per-user
  limit per clock hour (UTC), and validates at most ``DRY_RUN_MAX_BYTES`` inside the web request (a few
  seconds of parsing at most); larger files are validated by submitting them, on a worker
  (an invalid submission uses no quota).
* The daily quota counts the submissions of the last 24 hours that are not invalid or failed:
  one still waiting for validation holds its slot (it may be valid), and frees it once found
  invalid. A refusal says when the next slot frees.
* Invalid and failed submissions use no quota but have their own limit per user over the last
  24 hours, and their files are removed after a retention time (``services.pipeline.retention``).

Every refusal is a 429 that says when to retry (``rate_limits.limit_refused``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from leaderboard.models import Split, Status, Submission
from leaderboard.models.submissions import NOT_COUNTED_STATUSES
from leaderboard.services.policy.rate_limits import limit_refused, rate_take, retry_text
from leaderboard.services.policy.refusals import Refused

HOUR = 3600


def _limits() -> dict[str, int]:
    return settings.LIMITS


def dry_run_check(*, user: Any, files: Sequence[Any], body_length: int = 0) -> None:
    """Refuse (``Refused``) a dry run over the per-user rate or the in-request size cap.

    ``body_length`` (the request's Content-Length) lets a view refuse before reading the body.
    """
    limits = _limits()
    dry_run_size_check(files=files, body_length=body_length)
    hit = rate_take("dry-run", str(user.pk), window=HOUR)
    if hit.count > limits["DRY_RUNS_PER_HOUR"]:
        raise limit_refused(
            "rate_limited", f"at most {limits['DRY_RUNS_PER_HOUR']} dry runs per hour (clock hours, UTC); "
            f"try again {retry_text(hit.resets_at)} (submitting needs no dry run: an invalid submission uses no "
            "quota)", hit.resets_at)


def dry_run_size_check(*, files: Sequence[Any], body_length: int = 0) -> None:
    """Refuse a dry run larger than the in-request cap (files as parsed, or the request's length)."""
    cap = _limits()["DRY_RUN_MAX_BYTES"]
    files_total = sum(int(getattr(f, "size", 0) or 0) for f in files)
    # the form's other fields and multipart framing may add up to 1 MiB beside the files
    if files_total > cap or body_length - (1 << 20) > cap:
        sent = f"{files_total / 1e6:.2f} MB of files" if files_total > cap else f"{body_length / 1e6:.2f} MB"
        raise Refused(
            "dry_run_too_large",
            f"a dry run checks at most {cap / 1e6:g} MB in the request ({sent} sent); submit the "
            "files instead: they are validated on a worker, and an invalid submission uses no quota",
            field="predictions", status=413)


def rejected_quota_check(*, user: Any) -> None:
    """Refuse a new submission from a user with too many invalid or failed ones in the last 24 hours."""
    if getattr(user, "is_staff", False):
        return
    limit = _limits()["REJECTED_PER_DAY"]
    now = timezone.now()
    since = now - timedelta(days=1)
    times = list(Submission.objects.filter(user=user, status__in=NOT_COUNTED_STATUSES, created_at__gte=since)
                 .order_by("created_at").values_list("created_at", flat=True))
    if len(times) >= limit:
        frees = times[len(times) - limit] + timedelta(days=1)  # then fewer than `limit` are left in the window
        raise limit_refused(
            "rejected_limit",
            f"{len(times)} invalid or failed submissions in the last 24 hours (limit {limit}); try again "
            f"{retry_text(frees, now)}; check files with a dry run first",
            frees, now=now)


def quota_refused(*, user: Any, split: Split, quota: int) -> Refused:
    """The daily quota's refusal (429): why, and when the next slot frees at the latest."""
    now = timezone.now()
    since = now - timedelta(days=1)
    counted = Submission.objects.filter(user=user, split=split, created_at__gte=since).counting_towards_quota()
    oldest = counted.order_by("created_at").values_list("created_at", flat=True).first()
    pending = counted.filter(status__in=(Status.UPLOADED, Status.VALIDATING)).count()
    message = (f"daily quota reached: {quota} submissions per 24 hours on {split} (invalid and failed "
               "submissions do not count; one waiting for validation holds its slot until validated)")
    if pending:
        message += f"; {pending} of yours still wait for validation, and each found invalid frees its slot"
    frees = (oldest or now) + timedelta(days=1)  # a submission counted since `since` frees its slot then
    message += f"; the next slot frees {retry_text(frees, now)} at the latest"
    return limit_refused("quota_exceeded", message, frees, now=now)
