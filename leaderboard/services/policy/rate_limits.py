"""Fixed-window counters in the cache (Redis in production), shared by every web process.

Used for sign-ups and reset mails per mailbox, IP and network, failed logins per username, IP and
network, dry runs per user and invalid or failed submissions per user. If the cache is down the
limits fail open (logged): a counter must never take the site down with it.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass

from django.core.cache import cache

log = logging.getLogger(__name__)


def _key(scope: str, subject: str, window: int) -> str:
    digest = hashlib.sha256(subject.strip().lower().encode()).hexdigest()[:24]
    return f"ratelimit:{scope}:{digest}:{int(time.time()) // window}"


def rate_count(scope: str, subject: str, *, window: int) -> int:
    """How many hits ``subject`` has in the current window of ``scope``."""
    try:
        return int(cache.get(_key(scope, subject, window)) or 0)
    except Exception:  # the cache is down: fail open
        log.warning("rate limit %s not checked: the cache is unavailable", scope, exc_info=True)
        return 0


@dataclass(frozen=True)
class RateHit:
    """One counted hit: the count it made in its window, and the window's key to take it back from."""

    key: str
    count: int


def rate_hit(scope: str, subject: str, *, window: int) -> int:
    """Count one hit; returns the count in the window including this one."""
    return rate_take(scope, subject, window=window).count


def rate_take(scope: str, subject: str, *, window: int) -> RateHit:
    """Count one hit that ``rate_give_back`` may undo (a request refused or failed after it was counted)."""
    key = _key(scope, subject, window)
    try:
        if cache.add(key, 1, timeout=window + 5):
            return RateHit(key, 1)
        return RateHit(key, int(cache.incr(key)))
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window + 5)
        return RateHit(key, 1)
    except Exception:
        log.warning("rate limit %s not counted: the cache is unavailable", scope, exc_info=True)
        return RateHit(key, 0)


def rate_give_back(*hits: RateHit) -> None:
    """Undo counted hits, in the window each was counted in (a later window's count is never lowered)."""
    for hit in hits:
        if hit.count == 0:  # never counted: the cache was down
            continue
        try:
            cache.decr(hit.key)
        except ValueError:  # its window has expired: nothing left to undo
            pass
        except Exception:
            log.warning("rate limit hit not given back: the cache is unavailable", exc_info=True)


def rate_clear(scope: str, subject: str, *, window: int) -> None:
    try:
        cache.delete(_key(scope, subject, window))
    except Exception:
        log.warning("rate limit %s not cleared: the cache is unavailable", scope, exc_info=True)


def client_ip(request: object) -> str:
    """The peer address (a TLS proxy in front must set REMOTE_ADDR, e.g. gunicorn --forwarded-allow-ips)."""
    return str(getattr(request, "META", {}).get("REMOTE_ADDR") or "unknown")
