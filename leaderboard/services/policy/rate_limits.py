"""Fixed-window counters in the database, shared by every web process, and how a limit says when to retry.

Used for sign-ups and reset mails per mailbox, IP and network, failed logins per username, IP and
network, dry runs per user and comparisons. A window of ``window`` seconds starts at a multiple of
``window`` in Unix time (an hour: each clock hour, UTC; a day: each UTC day), and its count is one
row (``RateCounter``) incremented in the database, so a limit is exact under concurrent requests
and holds for its whole window: nothing evicts a row early (a cache's eviction would lift a limit).
The sweeper deletes rows whose window has ended. If the database errors the limits fail open
(logged): a counter must never take the site down with it.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import F, QuerySet

from leaderboard.models import RateCounter
from leaderboard.services.policy.refusals import Refused

log = logging.getLogger(__name__)


def current_time() -> float:
    """Unix time as the counters see it (tests move it)."""
    return time.time()


@dataclass(frozen=True)
class RateWindow:
    """One subject's counter in one window of one limit."""

    scope: str
    subject: str  # a digest of the subject: names, addresses and IPs are never stored
    window: int
    start: int

    @property
    def ends_at(self) -> datetime:
        return datetime.fromtimestamp(self.start + self.window, UTC)

    def rows(self) -> QuerySet[RateCounter]:
        return RateCounter.objects.filter(scope=self.scope, subject=self.subject, window=self.window,
                                          start=self.start)


def rate_window(scope: str, subject: str, *, window: int) -> RateWindow:
    """The current window of ``scope`` for ``subject`` (case and surrounding spaces ignored)."""
    digest = hashlib.sha256(subject.strip().lower().encode()).hexdigest()[:32]
    return RateWindow(scope, digest, window, int(current_time()) // window * window)


def rate_resets_at(*, window: int) -> datetime:
    """When the current window of ``window`` seconds ends (the same moment for every subject)."""
    return datetime.fromtimestamp(int(current_time()) // window * window + window, UTC)


@dataclass(frozen=True)
class RateHit:
    """One counted hit: the count it made in its window (0: not counted), and the window to take it back from."""

    key: RateWindow
    count: int

    @property
    def resets_at(self) -> datetime:
        return self.key.ends_at


def rate_count(scope: str, subject: str, *, window: int) -> int:
    """How many hits ``subject`` has in the current window of ``scope``."""
    try:
        with transaction.atomic():  # an error rolls back to here: a request's transaction goes on
            return int(rate_window(scope, subject, window=window).rows().values_list("count", flat=True).first() or 0)
    except DatabaseError:  # fail open
        log.warning("rate limit %s not checked: the database is unavailable", scope, exc_info=True)
        return 0


def rate_hit(scope: str, subject: str, *, window: int) -> int:
    """Count one hit; returns the count in the window including this one."""
    return rate_take(scope, subject, window=window).count


def rate_take(scope: str, subject: str, *, window: int) -> RateHit:
    """Count one hit that ``rate_give_back`` may undo (a request refused or failed after it was counted)."""
    key = rate_window(scope, subject, window=window)
    try:
        with transaction.atomic():
            return RateHit(key, _increment(key))
    except DatabaseError:
        log.warning("rate limit %s not counted: the database is unavailable", scope, exc_info=True)
        return RateHit(key, 0)


def _increment(key: RateWindow) -> int:
    """Add one to the window's row (created at 1); the row stays locked until commit, so the count read is ours."""
    rows = key.rows()
    if not rows.update(count=F("count") + 1):
        try:
            with transaction.atomic():
                RateCounter.objects.create(scope=key.scope, subject=key.subject, window=key.window, start=key.start,
                                           count=1, expires_at=key.ends_at)
            return 1
        except IntegrityError:  # a concurrent request created it first (and has committed)
            rows.update(count=F("count") + 1)
    return int(rows.values_list("count", flat=True).get())


def rate_give_back(*hits: RateHit) -> None:
    """Undo counted hits, in the window each was counted in (a later window's count is never lowered)."""
    for hit in hits:
        if hit.count == 0:  # never counted: the database was unavailable
            continue
        try:
            with transaction.atomic():
                hit.key.rows().filter(count__gt=0).update(count=F("count") - 1)
        except DatabaseError:
            log.warning("rate limit hit not given back: the database is unavailable", exc_info=True)


def rate_clear(scope: str, subject: str, *, window: int) -> None:
    try:
        with transaction.atomic():
            rate_window(scope, subject, window=window).rows().delete()
    except DatabaseError:
        log.warning("rate limit %s not cleared: the database is unavailable", scope, exc_info=True)


def rate_counters_expire() -> int:
    """Delete the counters of windows that have ended (the sweeper calls it); returns how many."""
    deleted, _ = RateCounter.objects.filter(expires_at__lte=datetime.fromtimestamp(current_time(), UTC)).delete()
    return int(deleted)


def retry_after_seconds(at: datetime, now: datetime | None = None) -> int:
    """Whole seconds from ``now`` (the counters' clock by default) until ``at``; at least 1."""
    now = now or datetime.fromtimestamp(current_time(), UTC)
    return max(1, math.ceil((at - now).total_seconds()))


def retry_text(at: datetime, now: datetime | None = None) -> str:
    """``in 23 min, at 2026-11-27 15:00 UTC``: when a limit lifts, from now and as a UTC time (to the second
    when not on the minute)."""
    seconds = retry_after_seconds(at, now)
    whole = _whole_second(at)
    clock = f"{whole:%Y-%m-%d %H:%M}" + (f":{whole.second:02d}" if whole.second else "")
    return f"in {_duration(seconds)}, at {clock} UTC"


def _whole_second(at: datetime) -> datetime:
    """``at`` in UTC, rounded up to the second: the earliest whole second at which the limit has lifted."""
    at = at.astimezone(UTC)
    return at.replace(microsecond=0) + timedelta(seconds=1 if at.microsecond else 0)


def _duration(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} s"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


def limit_refused(code: str, message: str, at: datetime, *, now: datetime | None = None,
                  field: str | None = None) -> Refused:
    """A 429 refusal that lifts at ``at``: ``retry_after`` (seconds) and ``retry_at`` in the JSON error, the
    ``Retry-After`` header on the response (``views.error_responses``)."""
    return Refused(code, message, field, 429, {"retry_after": retry_after_seconds(at, now),
                                                "retry_at": f"{_whole_second(at):%Y-%m-%dT%H:%M:%SZ}"})


def client_ip(request: object) -> str:
    """The peer address (a TLS proxy in front must set REMOTE_ADDR, e.g. gunicorn --forwarded-allow-ips)."""
    return str(getattr(request, "META", {}).get("REMOTE_ADDR") or "unknown")
