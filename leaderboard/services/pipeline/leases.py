"""Short leases on submissions, renewed by a heartbeat while a worker holds them.

A worker claims a submission with a lease of ``STALE_AFTER_SECONDS`` (30 s by default) and a
thread renews it every ``HEARTBEAT_SECONDS`` for as long as the work runs, however long one
chunk takes. A worker that dies stops renewing, so its loss is known within one lease.

A task delivered again while the lease is still valid (Celery re-queues the message of a
killed pool process at once) decides whether the holder is alive before giving way:

* the owner string names the holder's host and process id: on the same host, a process that
  no longer exists is dead, and the submission is taken over at once;
* otherwise it watches the lease for three heartbeats: a live holder renews it within one,
  and a lease that did not move in three is taken over.

The same rules lease a heavy chunk (``HeavyChunk``, with the same lease fields) on its own queue.
"""

from __future__ import annotations

import ctypes
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from leaderboard.models import HeavyChunk, Submission

log = logging.getLogger(__name__)
_HOST = socket.gethostname()
Leased = TypeVar("Leased", Submission, HeavyChunk)


class LeaseLost(Exception):
    """Another worker took the submission over; stop without writing."""


class AttemptsExhausted(Exception):
    """The submission was claimed ``MAX_ATTEMPTS`` times already; it must fail, not run again."""

    def __init__(self, attempts: int) -> None:
        super().__init__(f"{attempts} attempts")
        self.attempts = attempts


def stale_after() -> timedelta:
    return timedelta(seconds=settings.LEADERBOARD["STALE_AFTER_SECONDS"])


def heartbeat_seconds() -> float:
    return float(settings.LEADERBOARD["HEARTBEAT_SECONDS"])


def new_owner() -> str:
    return f"{_HOST}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


def lease_claim(*, submission_id: int, statuses: Sequence[str]) -> tuple[Submission, str] | None:
    """Take the submission unless a live worker holds it; None when there is nothing to do."""
    return lease_claim_row(Submission, submission_id, statuses)


def lease_claim_row(model: type[Leased], pk: int, statuses: Sequence[str]) -> tuple[Leased, str] | None:
    """Take a row of a leased model (a submission, a heavy chunk) unless a live worker holds it."""
    claimed, held = _try_claim(model, pk, statuses, takeover=None)
    if held is None:
        return claimed
    if not _holder_dead(model, pk, held):
        return None
    log.warning("%s %s: holder %s is gone; taking over", model.__name__, pk, held[0])
    claimed, _ = _try_claim(model, pk, statuses, takeover=held)
    return claimed


Held = tuple[str, datetime]


def _try_claim(model: type[Leased], submission_id: int, statuses: Sequence[str],
               takeover: Held | None) -> tuple[tuple[Leased, str] | None, Held | None]:
    now = timezone.now()
    with transaction.atomic():
        submission = model.objects.select_for_update().filter(pk=submission_id).first()
        if submission is None or submission.status not in statuses:
            return None, None
        held = (submission.lease_owner, submission.lease_until)
        if submission.lease_until and submission.lease_until > now and held != takeover:
            return None, (submission.lease_owner, submission.lease_until)
        if submission.attempts >= settings.LEADERBOARD["MAX_ATTEMPTS"]:
            raise AttemptsExhausted(submission.attempts)
        owner = new_owner()
        submission.lease_owner = owner
        submission.lease_until = now + stale_after()
        submission.attempts += 1
        submission.save(update_fields=["lease_owner", "lease_until", "attempts", "updated_at"])
    return (submission, owner), None


def _holder_dead(model: type[Leased], submission_id: int, held: Held) -> bool:
    if _process_gone(held[0]):
        return True
    window = 3 * heartbeat_seconds()
    deadline = time.monotonic() + window
    while time.monotonic() < deadline:
        time.sleep(min(0.5, window / 12))
        now_held = model.objects.filter(pk=submission_id).values_list("lease_owner", "lease_until").first()
        if now_held is None or tuple(now_held) != held:
            return False  # renewed, released or taken: somebody is alive
    return True


def _process_gone(owner: str) -> bool:
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != _HOST or not pid_text.isdigit() or int(pid_text) == os.getpid():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # exists, owned by another user
    return False


@contextmanager
def lease_heartbeat(*, submission_id: int, owner: str,
                    model: type[Submission] | type[HeavyChunk] = Submission) -> Iterator[None]:
    """Renew the lease from a thread while the body runs (chunks may take longer than a lease).

    A failed renewal closes the heartbeat's connection and tries again on a new one. When the
    lease was taken over, or not renewed for ``2.5`` heartbeats (another worker may take it over
    after three), the body is stopped with ``LeaseLost`` raised in its thread, and its writes
    through ``lease_update`` are refused from then on: two workers never score one submission.
    (It is raised as ``_WorkStopped``, which ``except Exception`` in the work cannot swallow.)
    """
    beat = _Heartbeat(model, submission_id, owner)
    with _BEATS_LOCK:
        _BEATS[owner] = beat
    beat.start()
    stopped = False
    try:
        yield
    except _WorkStopped:
        stopped = True
    finally:
        while True:  # the stop may land in this cleanup as well: it is delivered once, so run it again
            try:
                _heartbeat_end(beat)
                break
            except _WorkStopped:
                stopped = True
    if stopped:
        raise LeaseLost(f"{model.__name__} {submission_id}: the lease was lost; the work stopped")


class _WorkStopped(BaseException):
    """Raised in the work's thread by its heartbeat; a BaseException, so that no ``except Exception``
    in the work swallows it. ``lease_heartbeat`` turns it into ``LeaseLost``."""


def _heartbeat_end(beat: _Heartbeat) -> None:
    beat.stop()
    with _BEATS_LOCK:
        _BEATS.pop(beat.owner, None)
    if beat.lost and not connection.in_atomic_block:
        _close_connection()  # the stop may have landed inside a query: the next one starts afresh


class _Heartbeat:
    """A renewing thread and a watchdog that stops the work when renewals stop."""

    def __init__(self, model: type[Submission] | type[HeavyChunk], pk: int, owner: str) -> None:
        self.model, self.pk, self.owner = model, pk, owner
        self.work_thread = threading.get_ident()
        # claimed inside an enclosing transaction, the row is invisible to the heartbeat's connection
        # until that commits: renewals find nothing, which then says nothing about a takeover
        self.enclosed = connection.in_atomic_block
        self.renewed_at = time.monotonic()
        self.lost = False
        self.done = threading.Event()
        self.lock = threading.Lock()
        name = f"lease-{model.__name__}-{pk}"
        self.threads = [threading.Thread(target=self._renew_loop, daemon=True, name=name)]
        if not self.enclosed:
            self.threads.append(threading.Thread(target=self._watch_loop, daemon=True, name=f"{name}-watch"))

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def stop(self) -> None:
        with self.lock:
            self.done.set()
        for thread in self.threads:
            thread.join(timeout=2 * heartbeat_seconds())

    def renewed(self) -> None:
        self.renewed_at = time.monotonic()

    def released(self) -> None:
        """The work gave the lease back: nothing to renew, nothing to stop."""
        with self.lock:
            self.done.set()

    def _renew_loop(self) -> None:
        beat = heartbeat_seconds()
        wait = beat
        try:
            while not self.done.wait(wait) and not self.lost:
                try:
                    renewed = self._renew()
                except Exception:  # a dropped connection (terminated, failover): a new one next time
                    log.warning("%s %s: heartbeat failed; reconnecting", self.model.__name__, self.pk, exc_info=True)
                    _close_connection()
                    wait = max(0.05, beat / 4)
                    continue
                if not renewed:
                    if not self.enclosed:
                        self._stop_work("the lease was taken over")
                    return
                self.renewed()
                wait = beat
        finally:
            _close_connection()

    def _renew(self) -> int:
        if connection.vendor == "postgresql" and connection.connection is None:
            connection.ensure_connection()  # this thread's own connection: a blocked renewal fails, never hangs
            with connection.cursor() as cursor:
                cursor.execute("SET statement_timeout = %s", [max(1000, int(heartbeat_seconds() * 1000))])
        return int(self.model.objects.filter(pk=self.pk, lease_owner=self.owner).update(
            lease_until=timezone.now() + stale_after()))

    def _watch_loop(self) -> None:
        beat = heartbeat_seconds()
        give_up = min(2.5 * beat, stale_after().total_seconds() - beat / 2)
        while not self.done.wait(max(0.02, beat / 8)):
            if self.lost:
                return
            if time.monotonic() - self.renewed_at > give_up:
                self._stop_work(f"not renewed for {give_up:g} s")
                return

    def _stop_work(self, why: str) -> None:
        with self.lock:
            if self.done.is_set() or self.lost:
                return
            self.lost = True
            log.warning("%s %s: %s; stopping the work", self.model.__name__, self.pk, why)
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.work_thread), ctypes.py_object(_WorkStopped))


_BEATS: dict[str, _Heartbeat] = {}
_BEATS_LOCK = threading.Lock()


def _close_connection() -> None:
    try:
        connection.close()
    except Exception:
        log.debug("closing the heartbeat's connection failed", exc_info=True)


def _beat_of(owner: str) -> _Heartbeat | None:
    with _BEATS_LOCK:
        return _BEATS.get(owner)


def lease_update(submission: Submission | HeavyChunk, owner: str, **fields: Any) -> None:
    """Write fields and extend the lease, only while this worker still holds it (and its heartbeat
    has not given it up)."""
    beat = _beat_of(owner)
    if beat is not None and beat.lost:
        raise LeaseLost(f"{type(submission).__name__} {submission.pk}: the lease could not be renewed")
    fields.setdefault("lease_until", timezone.now() + stale_after())
    fields["updated_at"] = timezone.now()
    changed = type(submission).objects.filter(pk=submission.pk, lease_owner=owner).update(**fields)
    if not changed:
        raise LeaseLost(f"{type(submission).__name__} {submission.pk} was taken over")
    if beat is not None:
        beat.released() if fields.get("lease_owner") == "" else beat.renewed()
    for name, value in fields.items():
        setattr(submission, name, value)


def lease_release(submission: Submission | HeavyChunk, owner: str, **fields: Any) -> None:
    lease_update(submission, owner, lease_owner="", lease_until=None, **fields)
