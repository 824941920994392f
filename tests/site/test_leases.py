"""Short leases with a heartbeat: a live holder keeps others out, a dead one is taken over in seconds."""

from __future__ import annotations

import subprocess
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone
from helpers.datagen import dialbgm_predictions
from site_helpers import upload

from leaderboard.models import ItemScore, Status, Submission
from leaderboard.services import pipeline
from leaderboard.services.leases import lease_claim, lease_heartbeat

pytestmark = pytest.mark.django_db(transaction=True)  # the heartbeat writes from its own thread


@pytest.fixture
def fast_beat(settings: Any) -> None:
    settings.LEADERBOARD = {**settings.LEADERBOARD, "HEARTBEAT_SECONDS": 0.2, "STALE_AFTER_SECONDS": 30}


def _scored(user: Any, split: Any, refs: Any, seed: int = 1) -> Submission:
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
    from leaderboard.services.leases import _HOST

    _held_by(submission, f"{_HOST}:{_dead_pid()}:abc", attempts=1)
    started = time.monotonic()
    pipeline.submission_score(submission.pk)
    assert time.monotonic() - started < 5
    submission.refresh_from_db()
    assert submission.status == Status.SCORED and submission.attempts == 2


def test_redelivery_after_max_attempts_fails_visibly(alice, dialbgm_split, dialbgm_refs, settings):
    submission = _scored(alice, dialbgm_split, dialbgm_refs)
    from leaderboard.services.leases import _HOST

    _held_by(submission, f"{_HOST}:{_dead_pid()}:abc", attempts=settings.LEADERBOARD["MAX_ATTEMPTS"])
    pipeline.submission_score(submission.pk)
    submission.refresh_from_db()
    assert submission.status == Status.FAILED and "Stopped after 3 attempts" in submission.status_detail
    assert submission.lease_owner == "" and submission.lease_until is None


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
