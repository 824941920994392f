"""Where a waiting submission stands: its lane, what is ahead of it there, and when its turn should come.

Lanes are the queues work waits in: *validation* (uploaded, not yet validated), *scoring* (validated, waiting for
or holding a scoring worker) and *heavy* (its BERTScore chunks on ``SCORING_HEAVY_QUEUE``). Ahead are the
active submissions (or heavy chunks) of the same lane created earlier, and the items they have left; the wait
in the scoring lanes is those items at the median throughput of the last scored submissions (validation takes
seconds: no estimate). Nothing here depends on anyone's labels or scores: counts of submissions and items, and
times.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median
from typing import Any

from django.db.models import F, Q, Sum

from leaderboard.models import HeavyChunk, Status, Submission

VALIDATION, SCORING, HEAVY = "validation", "scoring", "heavy"
LANE_STATUSES = {VALIDATION: (Status.UPLOADED, Status.VALIDATING),
                 SCORING: (Status.QUEUED, Status.SCORING, Status.AGGREGATING)}
RECENT = 20  # scored submissions the throughput is measured on


@dataclass(frozen=True)
class QueuePlace:
    lane: str
    position: int  # 1: next (or being served)
    submissions_ahead: int
    items_ahead: int
    wait_seconds: int | None  # None: no measured throughput yet

    def as_json(self) -> dict[str, Any]:
        return {"lane": self.lane, "position": self.position, "ahead": {"submissions": self.submissions_ahead,
                "items": self.items_ahead}, "wait_seconds": self.wait_seconds}

    def text(self) -> str:
        """``"2nd in the scoring lane: 1 submission (1,000 items) ahead, about 40 s"``."""
        ahead = (f"{self.submissions_ahead} submission{'s' if self.submissions_ahead != 1 else ''} "
                 f"({self.items_ahead:,} items) ahead" if self.submissions_ahead else "nothing ahead")
        known = self.wait_seconds is not None and self.submissions_ahead
        wait = f", about {_duration(self.wait_seconds or 0)}" if known else ""
        return f"{_ordinal(self.position)} in the {self.lane} lane: {ahead}{wait}"


def submission_queue_place(submission: Submission) -> QueuePlace | None:
    """The submission's place in the lane it waits in; None once it is being scored by a worker or has ended."""
    if submission.status in LANE_STATUSES[VALIDATION]:
        return _place(submission, VALIDATION)
    if submission.status == Status.QUEUED or (submission.status == Status.SCORING and not submission.lease_owner
                                              and not submission.heavy_chunks.exists()):
        return _place(submission, SCORING)
    if submission.status == Status.SCORING and not submission.lease_owner:
        return _heavy_place(submission)
    return None


def _place(submission: Submission, lane: str) -> QueuePlace:
    ahead = Submission.objects.filter(status__in=LANE_STATUSES[lane], created_at__lt=submission.created_at)
    left = ahead.aggregate(n=Sum(F("progress_total") - F("progress_done")))["n"] or 0
    count = ahead.count()
    if lane == VALIDATION:
        return QueuePlace(lane, count + 1, count, _items_uploaded(ahead), None)
    return QueuePlace(lane, count + 1, count, int(left), _wait(int(left)))


def _heavy_place(submission: Submission) -> QueuePlace | None:
    mine = submission.heavy_chunks.exclude(status=HeavyChunk.DONE).order_by("created_at").first()
    if mine is None:
        return None
    ahead = (HeavyChunk.objects.exclude(status=HeavyChunk.DONE).exclude(submission=submission)
             .filter(Q(created_at__lt=mine.created_at), submission__status=Status.SCORING))
    items = int(ahead.aggregate(n=Sum(F("stop") - F("start")))["n"] or 0)
    count = ahead.values("submission").distinct().count()
    return QueuePlace(HEAVY, count + 1, count, items, _wait(items))


def _items_uploaded(ahead: Any) -> int:
    """Items of submissions not validated yet: their references' size (the runs are not read before validation)."""
    return int(sum(s.split.n_items * max(1, s.runs.count()) for s in ahead.select_related("split")))


def _wait(items: int) -> int | None:
    rate = _items_per_second()
    return None if rate is None else round(items / rate)


def _items_per_second() -> float | None:
    """The median items per second of the last scored submissions (from their first progress point to the end)."""
    rates = []
    for total, progress, finished in (Submission.objects.filter(status=Status.SCORED, finished_at__isnull=False)
                                      .order_by("-finished_at").values_list("progress_total", "progress",
                                                                            "finished_at")[:RECENT]):
        points = (progress or {}).get("points") or []
        if points and total:
            seconds = finished.timestamp() - float(points[0][0])
            if seconds > 0:
                rates.append(total / seconds)
    return median(rates) if rates else None


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _duration(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"
