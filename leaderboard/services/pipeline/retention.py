"""Retention of rejected uploads: files of invalid and failed submissions are removed after
``REJECTED_RETENTION_DAYS`` (``manage.py purge_rejected_files``, and daily on the beat).

A file whose content (same SHA-256) also belongs to a submission that is scored or still in
progress is kept: blobs are shared by content.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from leaderboard.models import RunFile
from leaderboard.models.submissions import NOT_COUNTED_STATUSES
from leaderboard.services.shared.blobs import blob_path

log = logging.getLogger(__name__)


def rejected_files_purge(*, older_than_days: float | None = None) -> dict[str, int]:
    """Delete blobs only rejected submissions older than the retention use; returns counts."""
    days = settings.LIMITS["REJECTED_RETENTION_DAYS"] if older_than_days is None else older_than_days
    cutoff = timezone.now() - timedelta(days=days)
    old_rejected = Q(submission__status__in=NOT_COUNTED_STATUSES) & Q(submission__updated_at__lt=cutoff)
    candidates = set(RunFile.objects.filter(old_rejected).values_list("sha256", flat=True))
    kept = set(RunFile.objects.filter(sha256__in=candidates).exclude(old_rejected).values_list("sha256", flat=True))
    removed = freed = 0
    for sha in sorted(candidates - kept):
        path = blob_path(sha)
        try:
            size = path.stat().st_size
            path.unlink()
        except FileNotFoundError:
            continue
        removed, freed = removed + 1, freed + size
    log.info("purged %d rejected file(s), %d bytes; kept %d shared with other submissions",
             removed, freed, len(candidates & kept))
    return {"removed": removed, "bytes": freed, "kept_shared": len(candidates & kept)}
