"""Model-heavy scoring (BERTScore) on a queue of its own, consumed by a GPU worker.

With ``SCORING_HEAVY_QUEUE`` set, a submission whose scorer has heavy families (``MetricFamily.heavy``)
is scored in two groups: the score step (CPU workers) stores the other families' per-item rows as
before, and each chunk of each run is a ``HeavyChunk`` scored by ``tasks.score_heavy_chunk`` on the
heavy queue. A chunk is leased like a submission (``services.pipeline.leases``), its values are written once,
in the transaction that marks it done, and the sweeper re-queues one whose worker vanished. When the
last chunk is stored the score step runs again: it merges the chunks into the per-item rows and
aggregates. Unset, nothing here runs and scoring is exactly as before.

Heavy work is shared fairly between accounts: each message names a chunk, but the worker that takes it scores
the pending chunk of the account served least recently (:func:`heavy_chunks_fair`), so one account's five
MusicQA runs take turns with everyone else's instead of holding the queue. One message still scores one chunk,
so every chunk planned is scored.

Either way a run is scored in chunks of consecutive items (:func:`chunk_bounds`): at most
``SCORING_CHUNK_SIZE`` items and, where BERTScore is computed, about ``CHUNK_TOKENS`` estimated tokens, since
its cost grows with the text's length, not the number of items. Progress then moves every few seconds
through the BERTScore stage, and chunks of real answers cost no more than the run scored at once.

On a hidden-label split the plan counts the predictions' tokens only, and the references' embeddings are
encoded into the store before the first chunk (:func:`hidden_references_warm`): chunk bounds, their count, the
stage details, progress and each chunk's time are then functions of the submission, never of the gold answers
(whose lengths would otherwise place chunk ends between items an outsider chose to probe).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import F, Max, Q, Sum
from django.utils import timezone

from leaderboard.models import ACTIVE_STATUSES, HeavyChunk, ItemScore, RunFile, Submission
from leaderboard.services.pipeline.leases import LeaseLost, lease_claim_row, lease_heartbeat, lease_release
from leaderboard.services.pipeline.progress import BERTSCORE, submission_progress_store
from leaderboard.services.shared.blobs import blob_path
from leaderboard.services.shared.queue import queue_send
from leaderboard.services.shared.scorers import site_scorer
from leaderboard.services.shared.split_references import split_references
from scoring import RunScores, Scorer, load_predictions
from scoring.engine import JobGroup
from scoring.task_types import Prediction

log = logging.getLogger(__name__)
HEAVY: JobGroup = "heavy"
CHUNK_TOKENS = 32_768  # estimated tokens (candidates and references) per chunk when BERTScore is scored in it
CHARACTERS_PER_TOKEN = 4  # English word pieces: about four characters each, plus the two special tokens


def scoring_heavy_queue() -> str:
    return str(settings.LEADERBOARD["SCORING_HEAVY_QUEUE"])


def heavy_split(submission: Submission, scorer: Scorer) -> bool:
    """True when this submission's heavy families are scored on the heavy queue (decided once:
    chunks already planned keep it so after a setting change)."""
    if submission.heavy_chunks.exists():
        return True
    return bool(scoring_heavy_queue()) and bool(scorer.group_keys(HEAVY))


# --- chunk sizes ------------------------------------------------------------------------------


def chunk_is_heavy(scorer: Scorer, group: JobGroup | None) -> bool:
    """Whether a chunk scored in ``group`` computes heavy families (BERTScore)."""
    return group != "light" and bool(scorer.group_keys(HEAVY))


def chunk_bounds(scorer: Scorer, predictions: Sequence[Prediction], group: JobGroup | None, *,
                 labels_hidden: bool) -> list[tuple[int, int]]:
    """The ``(start, stop)`` item ranges a run is scored in: at most ``SCORING_CHUNK_SIZE`` items, and when the
    chunk computes heavy families (``group`` None or heavy), consecutive items up to ``CHUNK_TOKENS``
    estimated tokens (the predictions' alone where ``labels_hidden``); the whole run as one chunk for a heavy
    variant that scores whole runs."""
    n_items = len(predictions)
    size = max(1, int(settings.LEADERBOARD["SCORING_CHUNK_SIZE"]))
    heavy = chunk_is_heavy(scorer, group)
    if heavy and group == HEAVY and scorer.group_needs_whole_run(HEAVY):
        return [(0, n_items)] if n_items else []
    if not heavy:
        return [(start, min(start + size, n_items)) for start in range(0, n_items, size)]
    bounds, start, tokens = [], 0, 0
    for index, (prediction, reference) in enumerate(zip(predictions, scorer.references)):
        cost = _estimated_tokens(prediction.text)
        if not labels_hidden:
            cost += sum(_estimated_tokens(a) for a in reference.answers)
        if index > start and (tokens + cost > CHUNK_TOKENS or index - start >= size):
            bounds.append((start, index))
            start, tokens = index, 0
        tokens += cost
    if start < n_items:
        bounds.append((start, n_items))
    return bounds


def _estimated_tokens(text: str) -> int:
    return len(text) // CHARACTERS_PER_TOKEN + 2


def hidden_references_warm(submission: Submission, scorer: Scorer, group: JobGroup | None) -> None:
    """On a hidden-label split, encode every reference the heavy families read before any chunk is scored, so
    that no chunk's time follows the length of its items' gold answers (nothing when they are stored)."""
    if submission.split.hidden_labels and chunk_is_heavy(scorer, group):
        scorer.warm(group=HEAVY)


# --- planning (the score step, under the submission's lease) ----------------------------------


def heavy_chunks_plan(submission: Submission, scorer: Scorer, runs: Sequence[RunFile]) -> None:
    """Create the chunks not planned yet and send each to the heavy queue once it is committed."""
    planned = set(submission.heavy_chunks.values_list("run", "start"))
    new = [
        HeavyChunk(submission=submission, run=run.number, start=start, stop=stop, queue=scoring_heavy_queue())
        for run in runs for start, stop in chunk_bounds(scorer, _run_predictions(submission, run), HEAVY,
                                                        labels_hidden=submission.split.hidden_labels)
        if (run.number, start) not in planned
    ]
    if not new:
        return
    with transaction.atomic():
        HeavyChunk.objects.bulk_create(new, ignore_conflicts=True)
        rows = submission.heavy_chunks.values_list("id", "run", "start", "queue")
        ids = [(pk, queue) for pk, run, start, queue in rows if (run, start) not in planned]
        transaction.on_commit(lambda: _enqueue(submission.pk, ids))


def _enqueue(submission_id: int, chunks: Iterable[tuple[int, str]]) -> None:
    for chunk_id, queue in chunks:
        queue_send("score_heavy_chunk", submission_id, chunk_id, queue=queue)


def heavy_pending(submission: Submission) -> int:
    return submission.heavy_chunks.exclude(status=HeavyChunk.DONE).count()


def heavy_items_done(submission: Submission) -> int:
    done = submission.heavy_chunks.filter(status=HeavyChunk.DONE).aggregate(n=Sum(F("stop") - F("start")))["n"]
    return int(done or 0)


def progress_done(submission: Submission) -> int:
    """Items stored, counting an item once per group when the heavy group is scored apart."""
    return submission.item_scores.count() + heavy_items_done(submission)


# --- one chunk (the heavy worker) ---------------------------------------------------------------

FAIR_WINDOW = timedelta(hours=1)  # how far back a worker looks to see which account it served last


def heavy_chunks_fair(chunk_id: int) -> list[tuple[int, int]]:
    """(submission, chunk) of the chunks a worker handed ``chunk_id``'s message may take now, in the order it
    tries them: pending and not held, on that chunk's queue, of active submissions; accounts without a chunk in
    progress first, then the account whose last chunk was stored longest ago (never served first), within an
    account its oldest chunk. ``chunk_id`` itself is tried last if it is not listed (a holder that may be gone)."""
    hint = HeavyChunk.objects.filter(pk=chunk_id).values_list("submission_id", "queue").first()
    if hint is None:
        return []
    now = timezone.now()
    on_queue = HeavyChunk.objects.filter(queue=hint[1], status=HeavyChunk.PENDING,
                                         submission__status__in=ACTIVE_STATUSES)
    free = Q(lease_until__isnull=True) | Q(lease_until__lte=now)
    waiting = list(on_queue.filter(free).values_list("pk", "submission_id", "submission__user_id"))
    busy = set(on_queue.exclude(free).values_list("submission__user_id", flat=True))
    served = dict(HeavyChunk.objects.filter(queue=hint[1], status=HeavyChunk.DONE, updated_at__gte=now - FAIR_WINDOW)
                  .values("submission__user_id").annotate(last=Max("updated_at"))
                  .values_list("submission__user_id", "last"))
    never = now - FAIR_WINDOW * 2
    waiting.sort(key=lambda c: (c[2] in busy, served.get(c[2], never), c[1], c[0]))
    order = [(submission, pk) for pk, submission, _ in waiting]
    return order if (hint[0], chunk_id) in order else [*order, (hint[0], chunk_id)]


def heavy_chunk_score(submission_id: int, chunk_id: int, worker: str) -> bool | None:
    """Score one chunk's heavy families and store them; True when it was the last one pending, None when it
    was not taken (held by a live worker, done, or its submission ended meanwhile).

    Raises ``AttemptsExhausted`` when the chunk's workers were lost ``MAX_ATTEMPTS`` times."""
    claimed = lease_claim_row(HeavyChunk, chunk_id, (HeavyChunk.PENDING,))
    if claimed is None:
        return None
    chunk, owner = claimed
    submission = chunk.submission
    if submission.status not in ACTIVE_STATUSES:  # failed or re-scored meanwhile
        lease_release(chunk, owner)
        return None
    try:
        with lease_heartbeat(submission_id=chunk.pk, owner=owner, model=HeavyChunk):
            scorer = site_scorer(submission)
            scores = _score(submission, scorer, chunk)
            signatures = {k: scorer.signature(k) for k in scorer.group_keys(HEAVY) if k in scorer.columns}
            with transaction.atomic():
                lease_release(chunk, owner, status=HeavyChunk.DONE, payload=_payload(scores), worker=worker,
                              signatures=signatures)
                n_chunks = submission.heavy_chunks.count()
                submission_progress_store(submission_id, progress_done(submission), BERTSCORE,
                                          f"BERTScore chunk {n_chunks - heavy_pending(submission)} of {n_chunks} done")
    except LeaseLost:
        log.warning("heavy chunk %s: lease lost, stopping", chunk_id)
        return None
    except Exception:
        # let a retry (or the sweeper) claim it at once instead of waiting for the lease to expire
        HeavyChunk.objects.filter(pk=chunk_id, lease_owner=owner).update(lease_owner="", lease_until=None)
        raise
    return heavy_pending(submission) == 0


def _run_predictions(submission: Submission, run: RunFile) -> list[Prediction]:
    references = split_references(submission.split)
    return load_predictions(submission.split.spec, references, blob_path(run.sha256), name=run.original_name)


def _score(submission: Submission, scorer: Scorer, chunk: HeavyChunk) -> RunScores:
    predictions = _run_predictions(submission, submission.runs.get(number=chunk.run))
    hidden_references_warm(submission, scorer, HEAVY)
    if scorer.group_needs_whole_run(HEAVY):
        scorer.begin_run(predictions, group=HEAVY)
    return scorer.score_chunk(predictions[chunk.start:chunk.stop], chunk.start, group=HEAVY)


def _payload(scores: RunScores) -> dict[str, dict[str, list[Any]]]:
    values = {key: [None if np.isnan(v) else float(v) for v in item.values] for key, item in scores.items()}
    stats = {key: item.stats.tolist() for key, item in scores.items() if item.stats is not None}
    notes = {key: list(item.notes) for key, item in scores.items() if item.notes is not None}
    return {"values": values, "stats": stats, "notes": notes}


# --- aggregation (the score step again, under the submission's lease) ---------------------------


def heavy_rows_merge(submission: Submission) -> None:
    """Write every chunk's values into the per-item rows (idempotent: a re-run writes the same)."""
    with transaction.atomic():
        for chunk in submission.heavy_chunks.all():
            rows = list(submission.item_scores.filter(run=chunk.run, index__gte=chunk.start, index__lt=chunk.stop)
                        .order_by("index"))
            if chunk.status != HeavyChunk.DONE or len(rows) != chunk.stop - chunk.start:
                raise RuntimeError(f"run {chunk.run} items {chunk.start}-{chunk.stop} are not all stored")
            for row in rows:
                _merge_row(row, chunk.payload, row.index - chunk.start)
            fields = ["values", *(name for name in ("stats", "notes") if chunk.payload[name])]  # BERTScore: values
            ItemScore.objects.bulk_update(rows, fields, batch_size=500)


def _merge_row(row: ItemScore, payload: Mapping[str, Mapping[str, list[Any]]], offset: int) -> None:
    for key, values in payload["values"].items():
        row.values[key] = values[offset]
    for key, stats in payload["stats"].items():
        row.stats[key] = stats[offset]
    for key, notes in payload["notes"].items():
        if notes[offset] is not None:
            row.notes[key] = notes[offset]


def heavy_signatures(submission: Submission) -> dict[str, str]:
    """The heavy keys' signatures as the heavy workers computed them (their device, their batching)."""
    signatures: dict[str, str] = {}
    for chunk_signatures in submission.heavy_chunks.values_list("signatures", flat=True):
        for key, signature in chunk_signatures.items():
            if signatures.setdefault(key, signature) != signature:
                raise RuntimeError(f"heavy chunks of {key} were scored with different settings; re-score it")
    return signatures


# --- sweeping ----------------------------------------------------------------------------------


def heavy_chunks_sweep(now: datetime) -> tuple[int, list[int]]:
    """Re-queue, to the queue they were planned for, chunks whose worker vanished (the lease ran out)
    and, when their queue shows no progress for ``REQUEUE_AFTER_SECONDS``, chunks nobody claimed (a
    lost message); returns how many, and the submissions whose chunk was lost ``MAX_ATTEMPTS`` times."""
    requeue_before = now - timedelta(seconds=settings.LEADERBOARD["REQUEUE_AFTER_SECONDS"])
    requeue: list[tuple[int, int, str]] = []
    exhausted: set[int] = set()
    busy: dict[str, bool] = {}
    pending = HeavyChunk.objects.filter(status=HeavyChunk.PENDING, submission__status__in=ACTIVE_STATUSES)
    for chunk in pending:
        lease = chunk.lease_until
        if lease is not None and lease > now:
            continue
        holder_lost = lease is not None and chunk.updated_at < lease
        if not holder_lost:
            if chunk.updated_at >= requeue_before:
                continue
            if chunk.queue not in busy:
                busy[chunk.queue] = _queue_busy(chunk.queue, now, requeue_before)
            if busy[chunk.queue]:
                continue  # a live worker is working through the queue: the message is waiting, not lost
        if chunk.attempts >= settings.LEADERBOARD["MAX_ATTEMPTS"]:
            exhausted.add(chunk.submission_id)
            continue
        HeavyChunk.objects.filter(pk=chunk.pk).update(updated_at=now)
        requeue.append((chunk.submission_id, chunk.pk, chunk.queue))
    for submission_id, chunk_id, queue in requeue:
        _enqueue(submission_id, [(chunk_id, queue)])
    return len(requeue), sorted(exhausted)


def _queue_busy(queue: str, now: datetime, since: datetime) -> bool:
    """A chunk of ``queue`` is being scored or was stored (or re-queued) since ``since``."""
    active = HeavyChunk.objects.filter(queue=queue).filter(Q(lease_until__gt=now) | Q(updated_at__gte=since))
    return active.exists()


def heavy_waiting(submission: Submission) -> bool:
    """A submission whose CPU part is done and whose heavy chunks are still pending: the sweeper
    leaves it to the chunks' own leases."""
    return submission.lease_owner == "" and heavy_pending(submission) > 0
