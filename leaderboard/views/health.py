"""``/healthz``: the database, the broker and the cache, each checked and reported on its own.

Any one down gives 503 (load balancers take the instance out; monitors say which part failed).
Errors name the exception type only: connection strings and hosts stay private.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

TIMEOUT = 1.0


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _broker() -> None:
    """The broker the Celery app itself publishes to (its own URL and transport options, environment included)."""
    from leaderboard.config.celery import app

    with app.connection_for_write(connect_timeout=TIMEOUT, transport_options={"socket_timeout": TIMEOUT}) as conn:
        conn.ensure_connection(max_retries=0, timeout=TIMEOUT)
        if conn.transport.driver_type == "filesystem":  # connecting checks nothing there: its folders are the broker
            channel = conn.default_channel
            _folders_writable(channel.data_folder_in, channel.data_folder_out)


def _folders_writable(*folders: str) -> None:
    for folder in folders:
        if not Path(folder).is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            raise OSError("broker folder missing or not writable")


def _cache() -> None:
    client = getattr(cache, "_cache", None)
    if client is not None and hasattr(client, "get_client"):  # Redis: ask the server, not the degrading wrapper
        client.get_client(write=True).ping()
        return
    cache.set("healthz-probe", "1", timeout=10)
    if cache.get("healthz-probe") != "1":
        raise OSError("cache did not keep a value")


CHECKS: dict[str, Callable[[], None]] = {"database": _database, "broker": _broker, "cache": _cache}


def _run(check: Callable[[], None]) -> dict[str, Any]:
    start = time.perf_counter()
    try:
        check()
    except Exception as exc:  # any failure is a finding to report, not a 500
        return {"ok": False, "error": type(exc).__name__, "ms": round(1000 * (time.perf_counter() - start), 1)}
    return {"ok": True, "ms": round(1000 * (time.perf_counter() - start), 1)}


@never_cache
def health(request: HttpRequest) -> JsonResponse:
    checks = {name: _run(check) for name, check in CHECKS.items()}
    ok = all(c["ok"] for c in checks.values())
    return JsonResponse({"ok": ok, "checks": checks}, status=200 if ok else 503)
