"""Whether the submissions' queue is stalled, and what the sweeper already re-published in this stall.

Work nobody holds is re-published only when its message may be lost: no worker holds any
submission (busy workers leave the waiting messages in the queue, to be taken in turn), and
once per stall (a queue nobody consumes keeps the first copy). A worker holding a submission
again ends the stall. The marks live in the cache; without it every stalled sweep re-publishes,
which is safe: a copy of a task that already ran finds nothing to claim.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime

from django.core.cache import cache

from leaderboard.models import Submission

log = logging.getLogger(__name__)
MARKS_KEY = "sweeper:republished-in-stall"
MARKS_SECONDS = 7 * 24 * 3600


def queue_working(now: datetime) -> bool:
    """A worker holds a submission under a live lease: the queue is being consumed."""
    return Submission.objects.filter(lease_until__gt=now).exists()


def stall_republished() -> dict[int, str]:
    """Submissions re-published since the queue last moved -> when (their ``updated_at`` then)."""
    try:
        return {int(k): str(v) for k, v in (cache.get(MARKS_KEY) or {}).items()}
    except Exception:
        log.warning("re-publish marks unavailable: the cache is down", exc_info=True)
        return {}


def stall_marked(marks: dict[int, str], submission: Submission) -> bool:
    """Re-published in this stall and untouched since (a claim would have touched it)."""
    return marks.get(submission.pk) == submission.updated_at.isoformat()


def stall_marks_add(submissions: Iterable[tuple[int, datetime]]) -> None:
    added = {pk: when.isoformat() for pk, when in submissions}
    if not added:
        return
    try:
        cache.set(MARKS_KEY, {**stall_republished(), **added}, timeout=MARKS_SECONDS)
    except Exception:
        log.warning("re-publish marks not stored: the cache is down", exc_info=True)


def stall_marks_clear() -> None:
    try:
        cache.delete(MARKS_KEY)
    except Exception:
        log.warning("re-publish marks not cleared: the cache is down", exc_info=True)
