"""Helpers the end-to-end tests import."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
# short leases and a quick sweeper, so that fault tests see recovery in seconds (worker environment)
FAST_RECOVERY = {"STALE_AFTER_SECONDS": 6, "HEARTBEAT_SECONDS": 1, "SWEEP_EVERY_SECONDS": 2,
                 "REQUEUE_AFTER_SECONDS": 8}


def wait_for(predicate: Callable[[], Any], timeout: float, message: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"timed out: {message}")
