"""What a limit's refusal must say, computed apart from the site's code: when the window ends, the
seconds to wait (the ``Retry-After`` header and ``retry_after``), and the words of the message."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from leaderboard.services.policy import rate_limits

# 2026-11-27 14:37:20 UTC: 22 min 40 s before the clock hour ends, 9 h 22 min 40 s before the UTC day does
FROZEN = 1_795_790_240.0


def freeze(monkeypatch: pytest.MonkeyPatch, at: float = FROZEN) -> None:
    """Stop the counters' clock at ``at`` (Unix seconds)."""
    monkeypatch.setattr(rate_limits, "current_time", lambda: at)


def window_end(now: float, window: int) -> datetime:
    """The end of the fixed window holding ``now``: windows start at multiples of ``window`` Unix seconds."""
    start = now - now % window
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=start + window)


def wait_seconds(at: datetime, now: datetime) -> int:
    left = (at - now) / timedelta(seconds=1)
    whole = int(left)
    return max(1, whole + (1 if left > whole else 0))


def retry_words(at: datetime, now: datetime) -> str:
    """``in 23 min, at 2026-11-27 15:00 UTC`` (seconds shown on the clock only when not on the minute)."""
    seconds = wait_seconds(at, now)
    if seconds < 60:
        span = f"{seconds} s"
    else:
        minutes = -(-seconds // 60)
        span = f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"
    clock = rounded_up(at).strftime("%Y-%m-%d %H:%M:%S" if rounded_up(at).second else "%Y-%m-%d %H:%M")
    return f"in {span}, at {clock} UTC"


def rounded_up(at: datetime) -> datetime:
    """The first whole second at or after ``at``."""
    return at + timedelta(microseconds=(1_000_000 - at.microsecond) % 1_000_000)


def at_unix(now: float) -> datetime:
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=now)


def assert_retry(response: Any, at: datetime, now: datetime, *, json_body: bool) -> None:
    """A 429 whose message names when to retry, with ``Retry-After`` (and ``retry_after`` in JSON) to match."""
    seconds = wait_seconds(at, now)
    assert response.status_code == 429
    assert response["Retry-After"] == str(seconds)
    text = response.json()["error"]["message"] if json_body else response.content.decode()
    assert retry_words(at, now) in text, text
    if json_body:
        error = response.json()["error"]
        assert error["retry_after"] == seconds and error["retry_at"] == rounded_up(at).strftime("%Y-%m-%dT%H:%M:%SZ")
