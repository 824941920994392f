"""A split's BERTScore reference embeddings, encoded when its references are imported.

Every submission to a split is matched against the same references, and encoding them is about half of
the BERTScore work on MusicQA-shaped data; the worker host's embedding store
(``scoring.metrics.bertscore.store``) keeps them. Without warming, the first submission to a split pays
for them; with it, a task on the queue that scores BERTScore (``SCORING_HEAVY_QUEUE`` when set, so the
host whose store counts) encodes them once the import commits
(``services.references.benchmarks``), :data:`WARM_STEP` items a task, each step sent
to the back of the queue, so that a submission waits behind one step at most. A cache: values never
depend on it, and a failure only logs.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings

from leaderboard.models import Split
from leaderboard.services.shared.queue import WARM_REFUSED, WARM_TASK, queue_send
from leaderboard.services.shared.scorers import scoring_options, site_context
from leaderboard.services.shared.split_references import split_references
from scoring import build_scorer
from scoring.engine import heavy_jobs

log = logging.getLogger(__name__)

WARM_STEP = 2000  # items a task: about 7 s of MusicQA's answers with MiniLM on two CPU cores


def split_embeddings_warm(split_id: int, start: int, references_sha256: str) -> int:
    """Encode the embeddings of items ``start ..`` (:data:`WARM_STEP` of them) of the split's references into this
    host's store and queue the next step; nothing when the split is gone or its references changed since (their
    own import queued theirs). Returns how many sentences were encoded."""
    split = Split.objects.select_related("benchmark").filter(pk=split_id).first()
    if split is None or split.references_sha256 != references_sha256:
        return 0
    references = split_references(split).references
    part = references[start : start + WARM_STEP]
    encoded = 0
    warmed: set[tuple[Any, ...]] = set()
    for profile in split.spec.profiles:
        jobs = heavy_jobs(profile)
        if jobs - warmed:  # profiles sharing a BERTScore job would read the same store entries again
            scorer = build_scorer(split.spec, part, scoring_options(profile.name), context=site_context())
            encoded += scorer.warm(group="heavy")
            warmed |= jobs
    log.info("BERTScore embeddings of %s, items %d-%d: %d encoded", split, start, start + len(part), encoded)
    if start + WARM_STEP < len(references):
        queue_send(WARM_TASK, split.pk, start + WARM_STEP, references_sha256,
                   queue=settings.LEADERBOARD["SCORING_HEAVY_QUEUE"] or None, if_refused=WARM_REFUSED)
    return encoded
