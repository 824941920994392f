"""Faults with real workers, PostgreSQL and Redis: each submission ends scored exactly once, in time.

Targets: SIGKILL of a worker mid-chunk -> scoring again on a live worker <= 90 s; a lost
queue message (flushed queue) -> scored <= 2 minutes; broker down at upload -> scored within the
same bound once it is back. The workers here run with short intervals (lease 6 s, heartbeat 1 s,
sweep every 2 s, re-queue after 8 s) so the suite stays fast; README derives the production bounds.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.db import connection

from leaderboard.config.celery import app as celery_app
from leaderboard.models import ItemScore, MetricValue, Status, Submission
from tests.helpers.datagen import (
    dialbgm_predictions,
    dialbgm_references,
    jamendo_predictions,
    jamendo_references,
    write_jsonl,
)
from tests.helpers.e2e import FAST_RECOVERY, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
KILL_TARGET, LOST_TARGET = 90.0, 120.0


def _post(client: Any, split: Any, path: Path, name: str) -> str:
    response = client.post(f"/api/v1/benchmarks/{split.benchmark.name}/{split.name}/submissions",
                           data={"model_name": name}, files=[("predictions", (path.name, path.read_bytes()))])
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def _submission(uid: str) -> Submission:
    return Submission.objects.get(uid=uid)


def _finished(uid: str, timeout: float) -> Submission:
    return wait_for(lambda: (s := _submission(uid)).status in (Status.SCORED, Status.FAILED, Status.INVALID) and s,
                    timeout, "the submission to finish")


def _assert_scored_once(submission: Submission, items: int) -> None:
    assert submission.status == Status.SCORED, submission.status_detail
    rows = ItemScore.objects.filter(submission=submission)
    assert rows.count() == items and rows.values("run", "index").distinct().count() == items
    keys = list(MetricValue.objects.filter(submission=submission, current=True).values_list("key", flat=True))
    assert keys and len(keys) == len(set(keys))


def _report(what: str, seconds: float, target: float) -> None:
    print(f"\n[recovery] {what}: {seconds:.1f} s (target <= {target:.0f} s)")


def test_pool_process_killed_mid_chunk_is_taken_over_at_once(alice, make_split, start_worker, api, tmp_path):
    refs = jamendo_references(1200, seed=9)  # 3,600 items in 30 chunks
    split = make_split("jamendo-mt-qa", "full", refs)
    run = write_jsonl(jamendo_predictions(refs, seed=4), tmp_path / "run.jsonl")
    start_worker(sweeper_only=True, **FAST_RECOVERY)
    # BERTScore off: torch in a forked pool process is not what this test is about (the solo-pool
    # kill test in test_worker.py scores with it)
    start_worker(pool="prefork", concurrency=1, SCORING_CHUNK_SIZE=40, BERTSCORE=0, **FAST_RECOVERY)
    uid = _post(api(alice), split, run, "Child killed")
    held = wait_for(lambda: (s := _submission(uid)).status == Status.SCORING
                    and 0.1 < s.progress_done / max(1, s.progress_total) < 0.7 and s, 240, "scoring underway")
    holder_pid = int(held.lease_owner.split(":")[1])
    done_at_kill = _submission(uid).progress_done
    os.kill(holder_pid, signal.SIGKILL)  # the pool process, mid-chunk; Celery re-delivers its message
    killed = time.monotonic()
    wait_for(lambda: (s := _submission(uid)).lease_owner not in ("", held.lease_owner)
             and (s.progress_done > done_at_kill or s.status != Status.SCORING), KILL_TARGET, "scoring again")
    again = time.monotonic() - killed
    _report("pool process SIGKILLed mid-chunk -> scoring again on a live process", again, KILL_TARGET)
    assert again <= KILL_TARGET
    final = _finished(uid, 180)
    _assert_scored_once(final, len(refs))
    assert final.attempts == 2


def test_lost_queue_message_is_requeued_and_scored(alice, make_split, start_worker, api, tmp_path):
    refs = dialbgm_references(80, seed=2)
    split = make_split("dialbgm", "test", refs)
    uid = _post(api(alice), split, write_jsonl(dialbgm_predictions(refs, seed=1), tmp_path / "p.jsonl"), "Lost")
    queue = celery_app.conf.task_default_queue
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    assert broker.llen(queue) == 1  # the validation message, waiting for a worker
    broker.delete(queue)  # lost: a flushed queue
    lost = time.monotonic()
    start_worker(sweeper_only=True, **FAST_RECOVERY)
    start_worker(**FAST_RECOVERY)
    final = _finished(uid, LOST_TARGET)
    elapsed = time.monotonic() - lost
    _report("queue message lost -> scored", elapsed, LOST_TARGET)
    _assert_scored_once(final, len(refs))


def test_flushed_broker_while_another_worker_is_busy_is_retaken_at_once(alice, make_split, start_worker, api,
                                                                          tmp_path):
    """The message of a submission waiting behind a busy worker is lost to a FLUSHDB: the sweeper sees fewer
    messages on the broker than submissions waiting for one and re-queues it without waiting for the busy
    worker, so an idle worker scores it within the re-queue delay and a sweep (production: 60 + 15 s)."""
    long_refs = jamendo_references(5000, seed=9)  # 15,000 items in chunks of 20: busy for a minute or more
    long_split = make_split("jamendo-mt-qa", "full", long_refs)
    short_refs = dialbgm_references(80, seed=2)
    short_split = make_split("dialbgm", "test", short_refs)
    start_worker(sweeper_only=True, **FAST_RECOVERY)
    start_worker(SCORING_CHUNK_SIZE=20, BERTSCORE=0, **FAST_RECOVERY)
    client = api(alice)
    busy = _post(client, long_split, write_jsonl(jamendo_predictions(long_refs, seed=4), tmp_path / "l.jsonl"), "Busy")
    wait_for(lambda: (s := _submission(busy)).status == Status.SCORING and s.lease_owner and s, 240, "busy scoring")
    uid = _post(client, short_split, write_jsonl(dialbgm_predictions(short_refs, seed=1), tmp_path / "s.jsonl"), "Wait")
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    wait_for(lambda: broker.llen(celery_app.conf.task_default_queue) == 1, 30, "its message waiting")
    broker.flushdb()  # lost: every message, the busy worker's too
    lost = time.monotonic()
    start_worker(BERTSCORE=0, **FAST_RECOVERY)  # idle
    final = _finished(uid, LOST_TARGET)
    elapsed = time.monotonic() - lost
    bound = FAST_RECOVERY["REQUEUE_AFTER_SECONDS"] + 2 * FAST_RECOVERY["SWEEP_EVERY_SECONDS"] + 20
    _report("broker flushed while a worker is busy -> the waiting submission scored", elapsed, bound)
    _assert_scored_once(final, len(short_refs))
    assert elapsed <= bound
    done = _finished(busy, 600)
    _assert_scored_once(done, len(long_refs))
    assert final.finished_at < done.finished_at  # it did not wait for the busy worker


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # nothing listens once the probe is closed


def _point_broker_at(url: str) -> None:
    celery_app.conf.broker_url = url
    celery_app._pool = None  # the next enqueue connects afresh
    celery_app.amqp._producer_pool = None


def test_broker_down_at_upload_is_scored_once_it_is_back(alice, make_split, start_worker, api, tmp_path, caplog):
    refs = dialbgm_references(80, seed=2)
    split = make_split("dialbgm", "test", refs)
    start_worker(sweeper_only=True, **FAST_RECOVERY)
    start_worker(**FAST_RECOVERY)
    client = api(alice)
    path = write_jsonl(dialbgm_predictions(refs, seed=1), tmp_path / "p.jsonl")
    real = celery_app.conf.broker_url
    _point_broker_at(f"redis://127.0.0.1:{_closed_port()}/15")
    try:
        with caplog.at_level(logging.ERROR, logger="leaderboard.services.pipeline.steps"):
            started = time.monotonic()
            uid = _post(client, split, path, "Broker down")
            assert time.monotonic() - started < 15  # the upload is answered, not held up by the broker
        assert "could not enqueue validate_submission" in caplog.text
    finally:
        _point_broker_at(real)
    back = time.monotonic()
    assert _submission(uid).status == Status.UPLOADED
    final = _finished(uid, LOST_TARGET)
    elapsed = time.monotonic() - back
    _report("broker down at upload -> scored after it is back", elapsed, LOST_TARGET)
    _assert_scored_once(final, len(refs))


def _heartbeat_backends(submission: Submission) -> list[int]:
    """Backends whose last statement was a heartbeat's renewal of ``submission`` (the work's own
    writes set ``updated_at`` too)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE %s "
            "AND query NOT LIKE %s AND query ~ %s",
            ['UPDATE "leaderboard_submission" SET "lease_until"%', '%"updated_at"%',
             f'"leaderboard_submission"."id" = {submission.pk}\\M'])
        return [row[0] for row in cursor.fetchall()]


def test_heartbeat_connection_terminated_mid_chunk_reconnects_and_no_second_worker_scores(
        alice, make_split, start_worker, api, tmp_path):
    refs = jamendo_references(12, seed=3)  # with BERTScore: chunks that take longer than the 6 s lease
    split = make_split("jamendo-mt-qa", "full", refs)
    run = write_jsonl(jamendo_predictions(refs, seed=4), tmp_path / "run.jsonl")
    start_worker(sweeper_only=True, **FAST_RECOVERY)
    workers = [start_worker(SCORING_CHUNK_SIZE=12, **FAST_RECOVERY) for _ in range(2)]  # one could take over
    uid = _post(api(alice), split, run, "Heartbeat cut")
    held = wait_for(lambda: (s := _submission(uid)).status == Status.SCORING and s.lease_owner and s, 240,
                    "scoring underway")
    first = wait_for(lambda: _heartbeat_backends(held), 30, "the heartbeat's connection")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [first[0]])
    final = _finished(uid, 540)
    _assert_scored_once(final, len(refs))
    assert final.attempts == 1  # the lease was renewed throughout: nobody else claimed it
    logs = "".join(w.log.read_text(errors="replace") for w in workers)
    assert "heartbeat failed; reconnecting" in logs and "lease lost" not in logs
