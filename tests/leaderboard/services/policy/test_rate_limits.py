"""The rate-limit store: exact counts in the database over more subjects than a cache keeps, a window
that lifts exactly at its end, concurrent increments that never lose one, give-back, expiry by the
sweeper, failing open when the database errors, and the words that say when to retry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections, transaction

from leaderboard import tasks
from leaderboard.models import RateCounter
from leaderboard.services.policy import rate_limits
from leaderboard.services.policy.rate_limits import (
    limit_refused,
    rate_clear,
    rate_count,
    rate_give_back,
    rate_hit,
    rate_take,
    retry_text,
)
from tests.helpers.e2e import REPO
from tests.helpers.limits import FROZEN, at_unix, freeze, retry_words, wait_seconds, window_end

HOUR = 3600
# Django's file and local-memory caches keep 300 entries by default and cull beyond: more subjects than that
SUBJECTS = 400


@pytest.mark.django_db
def test_a_limit_holds_exactly_over_many_subjects_and_lifts_at_the_windows_end(monkeypatch):
    freeze(monkeypatch)
    expected: Counter[tuple[str, int]] = Counter()  # the model: (subject, window number) -> hits

    def hit(subject: str, now: float) -> int:
        expected[(subject, int(now // HOUR))] += 1
        return rate_hit("dry-run", subject, window=HOUR)

    subjects = [f"user {n}" for n in range(SUBJECTS)]
    for round_ in (1, 2):
        assert [hit(s, FROZEN) for s in subjects] == [round_] * SUBJECTS
    assert RateCounter.objects.count() == SUBJECTS  # none evicted
    assert all(rate_count("dry-run", s, window=HOUR) == expected[(s, int(FROZEN // HOUR))] == 2 for s in subjects)
    assert rate_count("dry-run", " USER 7 ", window=HOUR) == 2  # case and surrounding spaces ignored
    assert rate_count("login-ip", "user 7", window=HOUR) == 0  # another limit, another counter

    end = window_end(FROZEN, HOUR).timestamp()
    assert end - FROZEN == 22 * 60 + 40
    just_before = end - 0.001
    freeze(monkeypatch, just_before)
    assert rate_count("dry-run", "user 0", window=HOUR) == 2 and hit("user 0", just_before) == 3
    freeze(monkeypatch, end)
    assert all(rate_count("dry-run", s, window=HOUR) == 0 for s in subjects[:50])
    assert hit("user 0", end) == 1 == expected[("user 0", int(end // HOUR))]


@pytest.mark.django_db(transaction=True)
def test_concurrent_increments_count_exactly_and_each_sees_its_own_count():
    assert connection.vendor == "postgresql"
    threads, per_thread = 8, 25
    seen: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def work() -> None:
        try:
            start.wait()
            counts = [rate_take("dry-run", "shared user", window=HOUR).count for _ in range(per_thread)]
            with lock:
                seen.extend(counts)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    total = threads * per_thread
    assert sorted(seen) == list(range(1, total + 1))  # no increment lost, no count handed out twice
    assert rate_count("dry-run", "shared user", window=HOUR) == total
    assert RateCounter.objects.filter(scope="dry-run").count() == 1


@pytest.mark.django_db
def test_give_back_lowers_only_the_window_the_hit_was_counted_in(monkeypatch):
    freeze(monkeypatch)
    hits = [rate_take("signup-email", "a@example.org", window=HOUR) for _ in range(3)]
    assert [h.count for h in hits] == [1, 2, 3]
    assert hits[0].resets_at == window_end(FROZEN, HOUR)
    rate_give_back(hits[2])
    assert rate_count("signup-email", "a@example.org", window=HOUR) == 2
    assert rate_take("signup-email", "a@example.org", window=HOUR).count == 3

    later = window_end(FROZEN, HOUR).timestamp() + 5
    freeze(monkeypatch, later)
    fresh = rate_take("signup-email", "a@example.org", window=HOUR)
    rate_give_back(hits[0], hits[1])  # their window has ended: the new one is untouched
    assert fresh.count == 1 and rate_count("signup-email", "a@example.org", window=HOUR) == 1
    old = RateCounter.objects.get(start=int(FROZEN // HOUR * HOUR))
    assert old.count == 1
    rate_give_back(fresh, fresh)  # never below zero
    assert rate_count("signup-email", "a@example.org", window=HOUR) == 0

    rate_hit("login-user", "name:bob", window=900)
    rate_clear("login-user", "name:bob", window=900)
    assert rate_count("login-user", "name:bob", window=900) == 0


@pytest.mark.django_db
def test_the_sweeper_deletes_the_counters_of_ended_windows(monkeypatch, settings):
    freeze(monkeypatch)
    rate_hit("login-ip", "10.0.0.1", window=900)
    rate_hit("dry-run", "7", window=HOUR)
    rate_hit("signup-ip", "10.0.0.1", window=24 * HOUR)
    freeze(monkeypatch, window_end(FROZEN, HOUR).timestamp())  # the 15-minute and the hour windows have ended
    rate_hit("dry-run", "7", window=HOUR)
    tasks.sweep_submissions()
    left = sorted(RateCounter.objects.values_list("scope", "start"))
    assert left == sorted([("signup-ip", int(FROZEN // 86400 * 86400)),
                           ("dry-run", int(window_end(FROZEN, HOUR).timestamp()))])


@pytest.mark.django_db
def test_a_database_error_fails_open_and_leaves_the_request_usable(caplog, alice, monkeypatch):
    freeze(monkeypatch)
    def unreachable(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if "leaderboard_ratecounter" in sql:  # a real error from the server: the transaction is aborted
            return execute("SELECT 1 FROM leaderboard_ratecounter_unreachable", None, False, context)
        return execute(sql, params, many, context)

    hit = rate_take("dry-run", "9", window=HOUR)
    with transaction.atomic(), connection.execute_wrapper(unreachable):  # inside a request's transaction
        lost = rate_take("dry-run", "9", window=HOUR)
        assert lost.count == 0 and rate_count("dry-run", "9", window=HOUR) == 0
        rate_give_back(hit)
        rate_clear("dry-run", "9", window=HOUR)
        assert get_user_model().objects.get(pk=alice.pk) == alice  # the transaction still answers
    for verb in ("counted", "checked", "given back", "cleared"):
        assert f" not {verb}: the database is unavailable" in caplog.text, verb
    assert rate_take("dry-run", "9", window=HOUR).count == 2  # nothing changed while it failed


@pytest.mark.parametrize(("now", "at"), [
    (FROZEN, window_end(FROZEN, HOUR)),  # 22 min 40 s: 23 min
    (FROZEN, window_end(FROZEN, 86400)),  # 9 h 22 min 40 s
    (FROZEN, window_end(FROZEN, 900)),  # 7 min 40 s
    (window_end(FROZEN, HOUR).timestamp() - 59.5, window_end(FROZEN, HOUR)),  # under a minute: seconds
    (FROZEN, at_unix(FROZEN) + timedelta(hours=4, seconds=-0.25)),  # a rolling quota's time, not on the minute
    (FROZEN, at_unix(FROZEN) + timedelta(minutes=59, seconds=30)),  # rounds up to the hour
])
def test_retry_words_and_seconds(monkeypatch, now, at):
    freeze(monkeypatch, now)
    assert retry_text(at) == retry_words(at, at_unix(now))
    refusal = limit_refused("rate_limited", "over", at)
    assert refusal.status == 429 and refusal.details["retry_after"] == wait_seconds(at, at_unix(now))


def test_retry_words_examples(monkeypatch):
    freeze(monkeypatch)
    assert retry_text(window_end(FROZEN, HOUR)) == "in 23 min, at 2026-11-27 15:00 UTC"
    assert retry_text(window_end(FROZEN, 86400)) == "in 9 h 23 min, at 2026-11-28 00:00 UTC"
    assert retry_text(datetime(2026, 11, 27, 14, 37, 50, 250_000, tzinfo=UTC)) == "in 31 s, at 2026-11-27 14:37:51 UTC"
    assert rate_limits.retry_after_seconds(datetime(2026, 11, 27, 14, 37, 20, tzinfo=UTC)) == 1  # never 0


# the embedded default's database (SQLite, as `scripts/run-site` runs it), in a process of its own
SQLITE_CHECK = """
import json, sys, threading
import django
django.setup()
from django.core.management import call_command
from django.db import connection, connections
call_command("migrate", verbosity=0)
from leaderboard.services.policy import rate_limits
rate_limits.current_time = lambda: float(sys.argv[1])
seen, lock, start = [], threading.Lock(), threading.Barrier(4)
def work():
    try:
        start.wait()
        counts = [rate_limits.rate_take("dry-run", "shared", window=3600).count for _ in range(25)]
        with lock:
            seen.extend(counts)
    finally:
        connections.close_all()
threads = [threading.Thread(target=work) for _ in range(4)]
[t.start() for t in threads]
[t.join() for t in threads]
subjects = [[rate_limits.rate_hit("signup-ip", f"10.0.{n // 250}.{n % 250}", window=86400) for _ in range(2)]
            for n in range(400)]
print(json.dumps({"vendor": connection.vendor, "seen": sorted(seen), "subjects": subjects,
                  "left": [rate_limits.rate_count("signup-ip", f"10.0.{n // 250}.{n % 250}", window=86400)
                           for n in range(400)]}))
"""
SUITE_VARIABLES = ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "CACHE_KEY_PREFIX", "LEADERBOARD_DATA_DIR")


@pytest.mark.slow
def test_the_embedded_default_on_sqlite_counts_exactly_too(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in SUITE_VARIABLES}
    env.update({"DJANGO_SETTINGS_MODULE": "leaderboard.config.settings", "LEADERBOARD_DATA_DIR": str(tmp_path),
                "DEBUG": "1", "PYTHONPATH": str(REPO)})
    done = subprocess.run([sys.executable, "-c", SQLITE_CHECK, str(FROZEN)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["vendor"] == "sqlite"
    assert found["seen"] == list(range(1, 101))
    assert found["subjects"] == [[1, 2]] * SUBJECTS and found["left"] == [2] * SUBJECTS
