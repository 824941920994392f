"""Short leases with a heartbeat: a live holder keeps others out, a dead one is taken over in seconds."""

from __future__ import annotations

import subprocess
import threading
import time
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connection, transaction
from django.test import override_settings
from django.utils import timezone

from leaderboard.models import ItemScore, Status, Submission
from leaderboard.services.pipeline import steps as pipeline
from leaderboard.services.pipeline.leases import LeaseLost, lease_claim, lease_heartbeat, lease_update
from tests.helpers.datagen import dialbgm_predictions
from tests.helpers.site import upload

pytestmark = pytest.mark.django_db(transaction=True)  # the heartbeat writes from its own thread


@pytest.fixture
def fast_beat(settings: Any) -> None:
    settings.LEADERBOARD = {**settings.LEADERBOARD, "HEARTBEAT_SECONDS": 0.2, "STALE_AFTER_SECONDS": 30}


def _scored(user: Any, split: Any, refs: Any, seed: int = 1) -> Submission:
    # scored with the usual heartbeat: a test's fast beat is for the work it watches, not for building its entry
    usual = {**django_settings.LEADERBOARD, "HEARTBEAT_SECONDS": 5, "STALE_AFTER_SECONDS": 30}
    with override_settings(LEADERBOARD=usual):
        response = upload(user, split, [dialbgm_predictions(refs, seed=seed)], model_name=f"Leased {seed}")
    submission = Submission.objects.get(uid=response.json()["id"])  # eager tasks: already scored
    assert submission.status == Status.SCORED, submission.status_detail
    return submission


def _held_by(submission: Submission, owner: str, **fields: Any) -> None:
    Submission.objects.filter(pk=submission.pk).update(
        status=Status.SCORING, lease_owner=owner, lease_until=timezone.now() + timedelta(seconds=30), **fields)


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def _renew_until(stop: threading.Event, submission: Submission, owner: str) -> None:
    try:
        while not stop.wait(0.1):
            Submission.objects.filter(pk=submission.pk, lease_owner=owner).update(
                lease_until=timezone.now() + timedelta(seconds=30))
    finally:
        connection.close()


def test_a_live_holder_keeps_a_redelivered_task_out(alice, dialbgm_split, dialbgm_refs, fast_beat):
    submission = _scored(alice, dialbgm_split, dialbgm_refs)
    _held_by(submission, "other-host:4242:abc")
    stop = threading.Event()
    holder = threading.Thread(target=_renew_until, args=(stop, submission, "other-host:4242:abc"))
    holder.start()
    try:
        started = time.monotonic()
        pipeline.submission_score(submission.pk)
        waited = time.monotonic() - started
    finally:
        stop.set()
        holder.join()
    submission.refresh_from_db()
    assert submission.status == Status.SCORING and submission.lease_owner == "other-host:4242:abc"
    assert waited < 0.6  # gave way at the holder's next renewal, not after a whole lease


def test_a_holder_whose_heartbeat_stopped_is_taken_over_after_three_beats(alice, dialbgm_split, dialbgm_refs,
                                                                          fast_beat):
    submission = _scored(alice, dialbgm_split, dialbgm_refs)
    rows = ItemScore.objects.filter(submission=submission).count()
    _held_by(submission, "other-host:4242:abc", attempts=1)
    started = time.monotonic()
    pipeline.submission_score(submission.pk)
    waited = time.monotonic() - started
    submission.refresh_from_db()
    assert submission.status == Status.SCORED and submission.attempts == 2
    assert ItemScore.objects.filter(submission=submission).count() == rows  # nothing stored twice
    assert 0.6 <= waited < 5  # three missed beats of 0.2 s, not the lease's 30 s


def test_a_dead_process_on_this_host_is_taken_over_at_once(alice, dialbgm_split, dialbgm_refs, settings):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "HEARTBEAT_SECONDS": 5.0}  # watching would take 15 s
    submission = _scored(alice, dialbgm_split, dialbgm_refs)
    from leaderboard.services.pipeline.leases import _HOST

    _held_by(submission, f"{_HOST}:{_dead_pid()}:abc", attempts=1)
    started = time.monotonic()
    pipeline.submission_score(submission.pk)
    assert time.monotonic() - started < 5
    submission.refresh_from_db()
    assert submission.status == Status.SCORED and submission.attempts == 2


def test_redelivery_after_max_attempts_fails_visibly(alice, dialbgm_split, dialbgm_refs, settings):
    submission = _scored(alice, dialbgm_split, dialbgm_refs)
    from leaderboard.services.pipeline.leases import _HOST

    _held_by(submission, f"{_HOST}:{_dead_pid()}:abc", attempts=settings.LEADERBOARD["MAX_ATTEMPTS"])
    pipeline.submission_score(submission.pk)
    submission.refresh_from_db()
    assert submission.status == Status.FAILED and "Stopped after 3 attempts" in submission.status_detail
    assert submission.lease_owner == "" and submission.lease_until is None


@pytest.mark.slow
def test_the_heartbeat_keeps_a_lease_alive_through_work_longer_than_the_lease(alice, dialbgm_split, dialbgm_refs,
                                                                              settings):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "HEARTBEAT_SECONDS": 0.2, "STALE_AFTER_SECONDS": 1}
    submission = _scored(alice, dialbgm_split, dialbgm_refs)
    Submission.objects.filter(pk=submission.pk).update(status=Status.QUEUED, attempts=0)
    claimed = lease_claim(submission_id=submission.pk, statuses=(Status.QUEUED,))
    assert claimed is not None
    with lease_heartbeat(submission_id=submission.pk, owner=claimed[1]):
        time.sleep(2.5)  # one "chunk" longer than two leases
        assert pipeline.submissions_sweep() == {"requeued": 0, "failed": 0}
        lease = Submission.objects.get(pk=submission.pk).lease_until
        assert lease is not None and lease > timezone.now()
    time.sleep(1.2)  # the beat stopped with the work: the lease runs out
    assert Submission.objects.get(pk=submission.pk).lease_until < timezone.now()


def test_sweeper_requeues_a_lost_holder_at_once_and_lost_messages_after_the_interval(
        alice, dialbgm_split, dialbgm_refs, settings):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "REQUEUE_AFTER_SECONDS": 60}
    lost_holder, lost_message, waiting = (_scored(alice, dialbgm_split, dialbgm_refs, seed=s) for s in (1, 2, 3))
    now = timezone.now()
    # the holder died 35 s ago: its lease (renewed until then) ran out 5 s ago; nothing touched it since
    Submission.objects.filter(pk=lost_holder.pk).update(
        status=Status.SCORING, attempts=1, lease_owner="other-host:1:x", lease_until=now - timedelta(seconds=5),
        updated_at=now - timedelta(seconds=40))
    Submission.objects.filter(pk=lost_message.pk).update(
        status=Status.QUEUED, attempts=0, lease_owner="", lease_until=None, updated_at=now - timedelta(seconds=61))
    Submission.objects.filter(pk=waiting.pk).update(
        status=Status.QUEUED, attempts=0, lease_owner="", lease_until=None, updated_at=now - timedelta(seconds=30))
    assert pipeline.submissions_sweep() == {"requeued": 2, "failed": 0}  # eager: re-queued tasks ran
    for submission in (lost_holder, lost_message, waiting):
        submission.refresh_from_db()
    assert lost_holder.status == Status.SCORED and lost_message.status == Status.SCORED
    assert waiting.status == Status.QUEUED  # its message may still be in the queue: not duplicated yet


def _heartbeat_backends() -> list[int]:
    """Backend pids of the other connections to this run's database: the heartbeat's (nothing else runs)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                       "AND pid <> pg_backend_pid() AND backend_type = 'client backend'")
        return [row[0] for row in cursor.fetchall()]


def _work(seconds: float, progress: list[float] | None = None) -> None:
    """Python work in small steps, each guarded as a scorer guards an item (``except Exception``)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            time.sleep(0.02)
            if progress is not None:
                progress.append(time.monotonic())
        except Exception:  # the stop must get through a guard like this one
            pass


def _claimed(submission: Submission) -> str:
    Submission.objects.filter(pk=submission.pk).update(status=Status.QUEUED, attempts=0, lease_owner="",
                                                       lease_until=None)
    claimed = lease_claim(submission_id=submission.pk, statuses=(Status.QUEUED,))
    assert claimed is not None
    return claimed[1]


@pytest.mark.slow
def test_the_heartbeat_reconnects_after_its_connection_is_terminated(alice, dialbgm_split, dialbgm_refs, settings):
    # a beat long enough for a new connection on a loaded machine (the work is stopped after 2.5 beats)
    settings.LEADERBOARD = {**settings.LEADERBOARD, "HEARTBEAT_SECONDS": 1.0, "STALE_AFTER_SECONDS": 30}
    submission = _scored(alice, dialbgm_split, dialbgm_refs)
    owner = _claimed(submission)
    with lease_heartbeat(submission_id=submission.pk, owner=owner):
        first = _wait_for(lambda: _heartbeat_backends(), 5)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [first[0]])
            assert cursor.fetchone()[0] is True
        terminated_at = timezone.now()
        _work(4)  # four beats: the lease must keep moving, the work must not be stopped
        lease = Submission.objects.get(pk=submission.pk).lease_until
        assert lease is not None and lease > terminated_at + timedelta(seconds=30)  # renewed after the kill
        again = _wait_for(lambda: _heartbeat_backends(), 5)
        assert first[0] not in again  # a new connection
    assert Submission.objects.get(pk=submission.pk).lease_owner == owner


def test_work_whose_lease_was_taken_over_stops_at_the_next_beat(alice, dialbgm_split, dialbgm_refs, fast_beat):
    submission = _scored(alice, dialbgm_split, dialbgm_refs)
    owner = _claimed(submission)
    started = time.monotonic()
    with pytest.raises(LeaseLost), lease_heartbeat(submission_id=submission.pk, owner=owner):
        Submission.objects.filter(pk=submission.pk).update(lease_owner="other-host:4242:abc")  # taken over
        _work(10)
    assert time.monotonic() - started < 2  # at the next beat (0.2 s), not at the work's next write
    with pytest.raises(LeaseLost):
        lease_update(submission, owner, progress_done=1)


@pytest.mark.slow
def test_work_stops_before_its_lease_can_be_taken_when_renewals_fail(alice, dialbgm_split, dialbgm_refs, settings):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "HEARTBEAT_SECONDS": 0.4, "STALE_AFTER_SECONDS": 30}
    submission = _scored(alice, dialbgm_split, dialbgm_refs)
    owner = _claimed(submission)
    locked, release = threading.Event(), threading.Event()

    def hold_the_row() -> None:  # renewals block on the row, as on a database that stopped answering
        try:
            with transaction.atomic():
                Submission.objects.select_for_update().filter(pk=submission.pk).first()
                locked.set()
                release.wait(10)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_row)
    holder.start()
    try:
        assert locked.wait(5)
        started, progress = time.monotonic(), [time.monotonic()]
        with pytest.raises(LeaseLost), lease_heartbeat(submission_id=submission.pk, owner=owner):
            _work(10, progress)
        stopped = progress[-1] - started
    finally:
        release.set()
        holder.join()
    # a watching copy takes over after three unrenewed beats (1.2 s): the work stopped before that
    assert 0.4 < stopped < 1.2
    assert Submission.objects.get(pk=submission.pk).lease_owner == owner  # nobody else holds it yet


def _wait_for(predicate: Any, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


@pytest.fixture
def broker_queue(settings: Any) -> Any:
    """Calling it sends tasks from then on to a queue of the real broker that no worker consumes;
    it returns a function giving that queue's length."""
    import redis

    from leaderboard.config.celery import app as celery_app

    queue = f"sweep-test-{uuid.uuid4().hex[:8]}"
    previous = (celery_app.conf.task_always_eager, celery_app.conf.task_default_queue)
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)

    def start() -> Any:
        celery_app.conf.task_always_eager, celery_app.conf.task_default_queue = False, queue
        return lambda: int(broker.llen(queue))

    try:
        yield start
    finally:
        celery_app.conf.task_always_eager, celery_app.conf.task_default_queue = previous
        broker.delete(queue)


def test_sweeper_publishes_waiting_work_once_per_stall_not_while_workers_are_busy(
        alice, dialbgm_split, dialbgm_refs, settings, broker_queue):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "REQUEUE_AFTER_SECONDS": 60}
    busy, *waiting = (_scored(alice, dialbgm_split, dialbgm_refs, seed=s) for s in range(1, 6))
    published = broker_queue()

    def wait_another_minute() -> None:  # nobody claimed them: untouched for over REQUEUE_AFTER_SECONDS
        Submission.objects.filter(pk__in=[s.pk for s in waiting]).update(
            status=Status.QUEUED, attempts=0, lease_owner="", lease_until=None,
            updated_at=timezone.now() - timedelta(seconds=61))

    def hold(submission: Submission) -> None:  # a worker busy with it, its lease renewed
        Submission.objects.filter(pk=submission.pk).update(
            status=Status.SCORING, attempts=1, lease_owner="other-host:7:x",
            lease_until=timezone.now() + timedelta(seconds=30), updated_at=timezone.now())

    hold(busy)
    for submission in waiting:  # their messages, waiting in the queue for the worker
        pipeline.enqueue_scoring(submission.pk)
    assert published() == 4
    for _ in range(4):  # four sweeps a minute apart while the worker is busy
        wait_another_minute()
        assert pipeline.submissions_sweep() == {"requeued": 0, "failed": 0}
    assert published() == 4  # not duplicated
    import redis

    from leaderboard.config.celery import app as celery_app

    redis.Redis.from_url(settings.CELERY_BROKER_URL).delete(celery_app.conf.task_default_queue)  # flushed
    wait_another_minute()
    assert pipeline.submissions_sweep() == {"requeued": 4, "failed": 0}  # at once, though the worker is busy
    assert published() == 4
    wait_another_minute()
    assert pipeline.submissions_sweep() == {"requeued": 0, "failed": 0}  # the copies wait in the queue
    Submission.objects.filter(pk=busy.pk).update(status=Status.SCORED, lease_owner="", lease_until=None)
    wait_another_minute()
    assert pipeline.submissions_sweep() == {"requeued": 4, "failed": 0}  # nobody works: the queue stalled
    assert published() == 8
    for minutes in (1, 2, 3):  # the stall goes on: the copies are in the queue already
        later = timezone.now() + timedelta(seconds=61 * minutes)
        assert pipeline.submissions_sweep(now=later) == {"requeued": 0, "failed": 0}
    assert published() == 8
    hold(busy)  # the queue moved: a worker took work
    assert pipeline.submissions_sweep() == {"requeued": 0, "failed": 0}
    Submission.objects.filter(pk=busy.pk).update(status=Status.SCORED, lease_owner="", lease_until=None)
    wait_another_minute()  # and stalled again with the four still unclaimed: their copies were lost too
    assert pipeline.submissions_sweep() == {"requeued": 4, "failed": 0}
    assert published() == 12
