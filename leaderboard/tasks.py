"""Celery tasks: fetch the id, call the service. Transient errors retry; others fail visibly."""

from __future__ import annotations

import logging

from celery import shared_task

from leaderboard.services.pipeline import steps as pipeline
from leaderboard.services.pipeline import warming
from leaderboard.services.policy.rate_limits import rate_counters_expire

log = logging.getLogger(__name__)
TRANSIENT = pipeline.TRANSIENT


@shared_task(bind=True, acks_late=True, max_retries=3, default_retry_delay=10)
def validate_submission(self, submission_id: int) -> None:  # type: ignore[no-untyped-def]
    _run(self, pipeline.submission_validate, submission_id, "validation")


@shared_task(bind=True, acks_late=True, max_retries=3, default_retry_delay=10)
def score_submission(self, submission_id: int) -> None:  # type: ignore[no-untyped-def]
    _run(self, pipeline.submission_score, submission_id, "scoring")


@shared_task(bind=True, acks_late=True, max_retries=3, default_retry_delay=10)
def score_heavy_chunk(self, submission_id: int, chunk_id: int) -> None:  # type: ignore[no-untyped-def]
    """Sent to ``SCORING_HEAVY_QUEUE`` (services.pipeline.heavy); the chunk records the worker that stored it."""
    worker = self.request.hostname or ""
    _run(self, pipeline.submission_heavy_chunk, submission_id, "BERTScore scoring", chunk_id, worker)


@shared_task(acks_late=True)
def warm_split_embeddings(split_id: int, start: int, references_sha256: str) -> int:
    """A cache filled ahead of submissions (services.pipeline.warming): a failure only costs the first one time."""
    try:
        return warming.split_embeddings_warm(split_id, start, references_sha256)
    except Exception:
        log.exception("encoding the reference embeddings of split %s from item %s failed", split_id, start)
        return 0


@shared_task
def sweep_submissions() -> dict[str, int]:
    """Re-queue or fail stuck submissions; delete the rate-limit counters of windows that have ended."""
    swept = pipeline.submissions_sweep()
    rate_counters_expire()
    return swept


def _run(task, service, submission_id: int, step: str, *args) -> None:  # type: ignore[no-untyped-def]
    try:
        service(submission_id, *args)
    except TRANSIENT as exc:
        if task.request.retries >= task.max_retries:
            pipeline.submission_fail(submission_id, f"{step} failed after retries: a database or queue error", exc)
            return
        raise task.retry(exc=exc, countdown=10 * 2**task.request.retries) from exc
    except Exception as exc:
        log.exception("%s of submission %s failed", step, submission_id)
        pipeline.submission_fail(
            submission_id, f"{step.capitalize()} failed with an internal error ({type(exc).__name__}). "
            "It did not count against your quota; maintainers can see the details.", exc)


@shared_task
def purge_rejected_files() -> dict[str, int]:
    from leaderboard.services.pipeline.retention import rejected_files_purge

    return rejected_files_purge()
