"""A submission's stage (what the pipeline is doing now) and its estimate of time left.

The estimate comes from this submission's own measured throughput: items done per second between
the first progress point of the scoring step and the latest one. It is unknown (``None``) until two
points with items done between them exist.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from leaderboard.models import ACTIVE_STATUSES, Submission

VALIDATING = "validating"
QUEUED = "queued"
LIGHT_METRICS = "light_metrics"
BERTSCORE = "bertscore"
AGGREGATING = "aggregating"


def progress_stage(previous: dict[str, Any], stage: str, detail: str, *, keep_points: bool = True) -> dict[str, Any]:
    """The progress field with a new stage and detail (the throughput points kept unless told)."""
    points = previous.get("points", []) if keep_points else []
    return {"stage": stage, "detail": detail, "points": points}


def progress_point(previous: dict[str, Any], done: int, now: float | None = None) -> dict[str, Any]:
    """The progress field with one more throughput point: the first point is kept, the latest replaced."""
    at = timezone.now().timestamp() if now is None else now
    points = [*list(previous.get("points", []))[:1], [at, int(done)]]
    return {**previous, "points": points}


def submission_stage(submission: Submission) -> tuple[str, str]:
    """``(stage, stage_detail)``: the stored stage while the submission is active, its status once ended."""
    if submission.status not in ACTIVE_STATUSES:
        return str(submission.status), ""
    progress = submission.progress or {}
    return str(progress.get("stage") or submission.status), str(progress.get("detail") or "")


def submission_stage_line(submission: Submission) -> str:
    """The stage's detail as the entry page shows it under the status detail: empty when it repeats it."""
    detail = submission_stage(submission)[1]
    return "" if detail == submission.status_detail else detail


def submission_eta_seconds(submission: Submission) -> int | None:
    """Seconds left at this submission's measured items per second, less the time since the latest point;
    ``None`` when not measurable.

    Aggregating has no estimate: every item is scored, and items per second say nothing of its length."""
    if submission.status not in ACTIVE_STATUSES:
        return None
    if (submission.progress or {}).get("stage") == AGGREGATING:
        return None
    points = (submission.progress or {}).get("points") or []
    if len(points) < 2:
        return None
    (t0, done0), (t1, done1) = points[0], points[-1]
    if done1 <= done0 or t1 <= t0:
        return None
    left = max(0, submission.progress_total - done1)
    since = max(0.0, timezone.now().timestamp() - t1)  # counts down between points, not in steps of a chunk
    return max(0, round(left * (t1 - t0) / (done1 - done0) - since))


def submission_progress_store(submission_id: int, done: int, stage: str, detail: str) -> None:
    """Store items done with a throughput point and the stage, from a worker that holds no submission lease
    (call inside a transaction: the row is locked so concurrent workers' points are not lost)."""
    submission = Submission.objects.select_for_update().only("progress").get(pk=submission_id)
    progress = progress_point(progress_stage(submission.progress or {}, stage, detail), done)
    Submission.objects.filter(pk=submission_id).update(progress_done=done, progress=progress)


def eta_text(seconds: int | None) -> str:
    """``"about 3 min 20 s left"``; empty when unknown."""
    if seconds is None:
        return ""
    minutes, rest = divmod(seconds, 60)
    return f"about {minutes} min {rest} s left" if minutes else f"about {rest} s left"
