"""The path of a submission: validate -> queue -> score (in chunks) -> aggregate.

Every step is idempotent and guarded by a short lease renewed by a heartbeat
(``services.pipeline.leases``), so a duplicate delivery or a worker killed mid-way never
scores twice or stores a row twice: per-item rows are unique per (submission,
run, item) and a restarted step skips the chunks already stored. The sweeper
re-queues work whose lease expired or whose message was lost, and fails, with a
reason, whatever cannot finish.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import Q
from django.utils import timezone

from leaderboard.models import ACTIVE_STATUSES, ItemScore, MetricValue, RunFile, Status, Submission
from leaderboard.services.pipeline.ending import submission_end_mail
from leaderboard.services.pipeline.entry_vectors import entry_vectors_build, entry_vectors_store
from leaderboard.services.pipeline.heavy import (
    chunk_bounds,
    chunk_is_heavy,
    heavy_chunk_score,
    heavy_chunks_fair,
    heavy_chunks_plan,
    heavy_chunks_sweep,
    heavy_pending,
    heavy_rows_merge,
    heavy_signatures,
    heavy_split,
    heavy_waiting,
    hidden_references_warm,
    progress_done,
)
from leaderboard.services.pipeline.judge_audit import judge_audit
from leaderboard.services.pipeline.leases import (
    AttemptsExhausted,
    LeaseLost,
    lease_claim,
    lease_heartbeat,
    lease_release,
    lease_update,
)
from leaderboard.services.pipeline.progress import (
    AGGREGATING,
    BERTSCORE,
    LIGHT_METRICS,
    QUEUED,
    VALIDATING,
    progress_point,
    progress_stage,
)
from leaderboard.services.pipeline.stalls import (
    queue_working,
    stall_marked,
    stall_marks_add,
    stall_marks_clear,
    stall_republished,
)
from leaderboard.services.pipeline.warnings import submission_warnings
from leaderboard.services.shared.blobs import blob_path
from leaderboard.services.shared.cache import leaderboard_changed
from leaderboard.services.shared.entry_runs import entry_runs_from_rows
from leaderboard.services.shared.queue import queue_send, queue_waiting
from leaderboard.services.shared.scorers import signatures_keyed, site_scorer
from leaderboard.services.shared.split_references import split_references
from scoring import ProblemLog, RunScores, Scorer, load_predictions, read_predictions
from scoring.engine import JobGroup
from scoring.task_types import TASK_TYPES

log = logging.getLogger(__name__)
TRANSIENT = (OperationalError, InterfaceError, ConnectionError, TimeoutError)  # retried, never failed


# --- enqueueing ----------------------------------------------------------------------


def enqueue_validation(submission_id: int) -> bool:
    return queue_send("validate_submission", submission_id)


def enqueue_scoring(submission_id: int) -> bool:
    return queue_send("score_submission", submission_id)


# --- leases (services.pipeline.leases) ---------------------------------------------------------


def _claim(submission_id: int, statuses: Sequence[Any]) -> tuple[Submission, str] | None:
    try:
        return lease_claim(submission_id=submission_id, statuses=statuses)
    except AttemptsExhausted as exc:
        submission_fail(submission_id, _exhausted_reason(exc.attempts))
        return None


def _exhausted_reason(attempts: int) -> str:
    return (f"Stopped after {attempts} attempts: the worker was lost each time "
            "(a crash or the machine ran out of memory). A maintainer has been notified.")


_update = lease_update
_release = lease_release


# --- validate ------------------------------------------------------------------------------


def submission_validate(submission_id: int) -> None:
    """Check every run file; invalid -> problems counted by kind, else queue for scoring."""
    claimed = _claim(submission_id, (Status.UPLOADED, Status.VALIDATING))
    if claimed is None:
        return
    submission, owner = claimed
    try:
        with lease_heartbeat(submission_id=submission_id, owner=owner):
            _validate(submission, owner)
    except LeaseLost:
        log.warning("submission %s: lease lost, stopping validation", submission_id)


def _validate(submission: Submission, owner: str) -> None:
    _update(submission, owner, status=Status.VALIDATING, status_detail="Validating the files.",
            progress=progress_stage({}, VALIDATING, "Validating the files."))
    problems = ProblemLog(keep=settings.LEADERBOARD["KEEP_PROBLEMS"])
    references = split_references(submission.split)
    for run in submission.runs.all():
        read_predictions(submission.split.spec, references, blob_path(run.sha256), problems, name=run.original_name)
    if problems:
        with transaction.atomic():
            _release(
                submission, owner,
                status=Status.INVALID,
                status_detail=f"{problems.total} problem(s) found; nothing was scored and no quota was used.",
                problems=[p.as_dict() for p in problems.problems],
                problem_counts=dict(problems.counts.most_common()),
                finished_at=timezone.now(),
            )
            submission_end_mail(submission.pk)
        return
    total = len(references) * submission.runs.count()
    _release(submission, owner, status=Status.QUEUED, status_detail="Valid; waiting for a scoring worker.",
             progress_total=total, progress_done=0, attempts=0, **submission_warnings(problems),
             progress=progress_stage({}, QUEUED, "Waiting for a scoring worker."))
    transaction.on_commit(lambda: enqueue_scoring(submission.pk))


# --- score -------------------------------------------------------------------------------


def submission_score(submission_id: int) -> None:
    """Score every chunk not stored yet, then aggregate. Safe to run again after a crash."""
    claimed = _claim(submission_id, (Status.QUEUED, Status.SCORING, Status.AGGREGATING))
    if claimed is None:
        return
    submission, owner = claimed
    try:
        with lease_heartbeat(submission_id=submission_id, owner=owner):
            _score_and_aggregate(submission, owner)
    except LeaseLost:
        log.warning("submission %s: lease lost, stopping", submission_id)
    except Exception:
        # let a retry (or the sweeper) claim it at once instead of waiting for the lease to expire
        Submission.objects.filter(pk=submission_id, lease_owner=owner).update(lease_owner="", lease_until=None)
        raise


def _score_and_aggregate(submission: Submission, owner: str) -> None:
    scorer = site_scorer(submission)
    runs = list(submission.runs.all())
    split = heavy_split(submission, scorer)  # heavy families on the heavy queue (services.pipeline.heavy)
    _update(submission, owner, status=Status.SCORING, status_detail="Scoring.",
            progress_total=len(scorer.references) * len(runs) * (2 if split else 1),
            progress=progress_point(progress_stage({}, LIGHT_METRICS, "Starting."), submission.progress_done))
    if split:
        heavy_chunks_plan(submission, scorer, runs)
    for run in runs:
        _score_run(submission, owner, scorer, run, "light" if split else None)
    if split and heavy_pending(submission):
        _wait_for_heavy(submission, owner)
        return
    _update(submission, owner, status=Status.AGGREGATING, status_detail="Computing aggregates and intervals.",
            progress=progress_stage(submission.progress, AGGREGATING, "Computing aggregates and intervals."))
    if split:
        heavy_rows_merge(submission)
    _aggregate(submission, owner, scorer, runs, heavy_signatures(submission) if split else {})


def _wait_for_heavy(submission: Submission, owner: str) -> None:
    """Release the submission until its last heavy chunk is stored (that chunk's task re-queues it)."""
    # this claim ended without a loss, so it does not count towards MAX_ATTEMPTS
    _release(submission, owner, status_detail="Scored on the CPU workers; BERTScore is being computed.",
             attempts=max(0, submission.attempts - 1),
             progress=progress_stage(submission.progress, BERTSCORE, "BERTScore on the accelerator workers."))
    if not heavy_pending(submission):  # the last chunk was stored while this step released
        enqueue_scoring(submission.pk)


def submission_heavy_chunk(submission_id: int, chunk_id: int, worker: str) -> None:
    """Score one heavy chunk (on the heavy queue's worker): the fairest one waiting (``heavy_chunks_fair``), which
    is the message's own unless another account has waited longer; the last one of a submission re-queues it."""
    for owner_id, pick in heavy_chunks_fair(chunk_id):
        try:
            last = heavy_chunk_score(owner_id, pick, worker)
        except AttemptsExhausted as exc:
            submission_fail(owner_id, _exhausted_reason(exc.attempts))
            return
        except TRANSIENT:
            raise  # the task retries its message
        except Exception as exc:
            if owner_id == submission_id:
                raise  # the task fails the message's submission, as for any step
            log.exception("BERTScore chunk %s of submission %s failed", pick, owner_id)
            submission_fail(owner_id, f"BERTScore scoring failed with an internal error ({type(exc).__name__}). "
                            "It did not count against your quota; maintainers can see the details.", exc)
            return
        if last is None:
            continue  # taken by another worker meanwhile: the next in line
        # while the score step still holds the lease it aggregates itself once its CPU part is done
        if last and Submission.objects.filter(pk=owner_id, lease_owner="").exists():
            enqueue_scoring(owner_id)
        return


def _score_run(submission: Submission, owner: str, scorer: Scorer, run: RunFile, group: JobGroup | None) -> None:
    spec = submission.split.spec
    references = split_references(submission.split)
    predictions = load_predictions(spec, references, blob_path(run.sha256), name=run.original_name)
    stored = set(submission.item_scores.filter(run=run.number).values_list("index", flat=True))
    task = TASK_TYPES[spec.task_type]
    begun = False
    hidden = submission.split.hidden_labels
    bounds = chunk_bounds(scorer, predictions, group, labels_hidden=hidden)  # BERTScore's by tokens: progress moves
    stage, label = (BERTSCORE, "BERTScore") if chunk_is_heavy(scorer, group) else (LIGHT_METRICS, "Light metrics")
    n_runs = submission.runs.count()
    of_runs = f", run {run.number} of {n_runs}" if n_runs > 1 else ""
    for k, (start, stop) in enumerate(bounds, start=1):
        if all(i in stored for i in range(start, stop)):
            continue
        _update(submission, owner,
                progress=progress_stage(submission.progress, stage, f"{label} chunk {k} of {len(bounds)}{of_runs}"))
        chunk = predictions[start:stop]
        if not begun:  # the bertscore-batched variant scores the whole file in file order
            hidden_references_warm(submission, scorer, group)
            scorer.begin_run(predictions, group=group)
            begun = True
        scores = scorer.score_chunk(chunk, start, group=group)
        rows = [
            ItemScore(
                submission=submission,
                run=run.number,
                index=start + offset,
                item_id=prediction.id,
                prediction=_without_id(task.prediction_json(prediction, scorer.references[start + offset])),
                **_item_fields(scores, offset),
            )
            for offset, prediction in enumerate(chunk)
        ]
        with transaction.atomic():
            ItemScore.objects.bulk_create(rows, ignore_conflicts=True, batch_size=1000)
            done = progress_done(submission)
            _update(submission, owner, progress_done=done, progress=progress_point(submission.progress, done))


def _item_fields(scores: RunScores, offset: int) -> dict[str, dict[str, Any]]:
    values, stats, notes = {}, {}, {}
    for key, item in scores.items():
        value = float(item.values[offset])
        values[key] = None if np.isnan(value) else value
        if item.stats is not None:
            stats[key] = item.stats[offset].tolist()
        if item.notes is not None and item.notes[offset] is not None:
            notes[key] = item.notes[offset]
    return {"values": values, "stats": stats, "notes": notes}


def _without_id(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k != "id"}


# --- aggregate ---------------------------------------------------------------------------


def _aggregate(submission: Submission, owner: str, scorer: Scorer, runs: Sequence[RunFile],
               signatures: dict[str, str]) -> None:
    keys = [*scorer.metric_keys, *scorer.diagnostic_keys()]
    run_scores = entry_runs_from_rows(submission, keys, len(scorer.references))
    report = scorer.report(run_scores, seed=0, n_bootstrap=settings.LEADERBOARD["BOOTSTRAP_REPLICATES"],
                           signatures=signatures)
    if submission.split.hidden_labels:  # whatever a family names its labels by, never an unkeyed digest of them
        report.signatures = signatures_keyed(report.signatures)
    stored_report = {**report.as_json(), "judge": judge_audit(scorer, run_scores)}
    vectors = entry_vectors_build(scorer, run_scores, _candidate_scores(submission, runs))
    with transaction.atomic():
        entry_vectors_store(submission, vectors)
        for key, value in report.metrics.items():
            signature = report.signatures[key]
            ci = report.ci95[key]
            MetricValue.objects.update_or_create(
                submission=submission, key=key, signature=signature,
                defaults={
                    "value": value, "std": report.std[key],
                    "ci_low": ci[0] if ci else None, "ci_high": ci[1] if ci else None,
                    "per_run": report.per_run[key], "n_scored": report.n_scored[key], "current": True,
                },
            )
            submission.metric_values.filter(key=key).exclude(signature=signature).update(current=False)
        _release(
            submission, owner,
            status=Status.SCORED, status_detail=_scored_detail(report.diagnostics), report=stored_report,
            progress_done=submission.progress_total, finished_at=timezone.now(),
        )
        submission_end_mail(submission.pk)
    transaction.on_commit(lambda: leaderboard_changed(submission.split_id))


def _scored_detail(diagnostics: dict[str, list[Any]]) -> str:
    skipped = sum(max(v) for k, v in diagnostics.items() if k.startswith("judge_skipped_budget") and v)
    if skipped:
        return (f"Scored. Judging stopped at the budget cap: {int(skipped)} judge request(s) not sent; "
                "those items are shown as not judged, not scored 0.")
    empty = diagnostics.get("empty_outputs") or []
    if any(empty):  # multiple choice: an empty answer is scored, and wrong
        runs = ", ".join(f"run {i}: {n}" for i, n in enumerate(empty, start=1))
        return f"Scored. Warning: empty answers were scored as wrong ({runs})."
    return "Scored."


def _candidate_scores(submission: Submission, runs: Sequence[RunFile]) -> np.ndarray | None:
    """A ranking entry's predicted candidate scores of run 1 (items x candidates), for the heatmaps."""
    if submission.split.spec.task_type != "ranking" or not runs:
        return None
    references = split_references(submission.split)
    predictions = load_predictions(submission.split.spec, references, blob_path(runs[0].sha256))
    return np.array([p.scores for p in predictions], dtype=float)


# --- failure, sweeping, re-scoring -----------------------------------------------------------


def submission_fail(submission_id: int, reason: str, exc: BaseException | None = None) -> None:
    """End a submission in a visible error; the traceback is kept for maintainers only."""
    detail = "".join(traceback.format_exception(exc)) if exc else ""
    failing = Submission.objects.filter(pk=submission_id).exclude(status__in=(Status.SCORED, Status.INVALID))
    split_id = failing.values_list("split_id", flat=True).first()
    with transaction.atomic():
        if failing.update(
            status=Status.FAILED, status_detail=reason, internal_error=detail,
            lease_owner="", lease_until=None, finished_at=timezone.now(), updated_at=timezone.now(),
        ):
            submission_end_mail(submission_id)
    if split_id is not None:
        leaderboard_changed(split_id)


def submissions_sweep(now: Any = None) -> dict[str, int]:
    """Re-queue submissions whose worker vanished or whose message was lost; fail those that cannot finish.

    A holder's lease that expired without the submission being touched since is re-queued at once
    (its heartbeat stopped: the worker is gone). Work nobody holds is re-queued when nothing touched
    it for ``REQUEUE_AFTER_SECONDS`` and the queue is stalled (``services.pipeline.stalls``: no worker holds
    any submission; its message may be lost: a flushed queue, a broker that was down at upload),
    once per stall: while workers are busy its message waits in the queue and is not duplicated, unless the
    broker holds fewer waiting messages than there are such submissions (a flushed broker while a worker is
    busy): then they are re-queued at once, and the copies that were not lost find nothing to claim.
    """
    now = now or timezone.now()
    requeue_before = now - timedelta(seconds=settings.LEADERBOARD["REQUEUE_AFTER_SECONDS"])
    give_up = now - timedelta(seconds=settings.LEADERBOARD["GIVE_UP_AFTER_SECONDS"])
    working = queue_working(now)
    if working:
        stall_marks_clear()
    republished = {} if working else stall_republished()
    lost_while_busy = working and _messages_lost(requeue_before)
    marks: list[tuple[int, datetime]] = []
    requeued, exhausted = heavy_chunks_sweep(now)
    for submission_id in exhausted:
        submission_fail(submission_id, _exhausted_reason(settings.LEADERBOARD["MAX_ATTEMPTS"]))
    failed = len(exhausted)
    for submission in Submission.objects.filter(status__in=ACTIVE_STATUSES):
        if submission.created_at < give_up:  # even a live holder: no submission stays active for ever
            submission_fail(submission.pk, "Not processed within the time limit: no worker picked it up. "
                            "It did not count against your quota; please submit again." if not submission.attempts
                            else "Not finished within the time limit. It did not count against your quota; "
                            "a maintainer can re-score it.")
            failed += 1
            continue
        lease = submission.lease_until
        if lease is not None and lease > now:
            continue  # a live worker renews it
        holder_lost = lease is not None and submission.updated_at < lease
        unclaimed_lost = (submission.updated_at < requeue_before and (lost_while_busy or not working)
                          and not stall_marked(republished, submission))
        if not (holder_lost or unclaimed_lost) or heavy_waiting(submission):
            continue
        if submission.attempts >= settings.LEADERBOARD["MAX_ATTEMPTS"]:
            submission_fail(submission.pk, _exhausted_reason(submission.attempts))
            failed += 1
            continue
        Submission.objects.filter(pk=submission.pk).update(updated_at=now)
        validating = submission.status in (Status.UPLOADED, Status.VALIDATING)
        published = enqueue_validation(submission.pk) if validating else enqueue_scoring(submission.pk)
        if published and not holder_lost:
            marks.append((submission.pk, now))
        requeued += 1
    stall_marks_add(marks)
    return {"requeued": requeued, "failed": failed}


def _messages_lost(requeue_before: datetime) -> bool:
    """Fewer messages wait on the broker than submissions wait for one (unclaimed since ``requeue_before``)."""
    waiting = queue_waiting()
    if waiting is None:
        return False
    unclaimed = (Submission.objects.filter(status__in=(Status.UPLOADED, Status.VALIDATING, Status.QUEUED),
                                           updated_at__lt=requeue_before)
                 .filter(Q(lease_until__isnull=True) | Q(lease_owner="")).count())
    return waiting < unclaimed


def submission_rescore(submission_id: int) -> None:
    """Score again from the stored files (new library versions, judges or references)."""
    with transaction.atomic():
        submission = Submission.objects.select_for_update().get(pk=submission_id)
        submission.item_scores.all().delete()
        submission.heavy_chunks.all().delete()
        Submission.objects.filter(pk=submission_id).update(
            status=Status.UPLOADED, status_detail="Queued for re-scoring.", attempts=0,
            lease_owner="", lease_until=None, progress_done=0, problems=[], problem_counts={}, end_mail_sent=False,
            warnings=[], warning_counts={}, updated_at=timezone.now(),
        )
        transaction.on_commit(lambda: leaderboard_changed(submission.split_id))  # off the board until re-scored
        transaction.on_commit(lambda: enqueue_validation(submission_id))
