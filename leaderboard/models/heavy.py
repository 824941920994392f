"""Chunks of model-heavy scoring (BERTScore) sent to a queue of their own (``SCORING_HEAVY_QUEUE``)."""

from __future__ import annotations

from django.db import models

from leaderboard.models.submissions import Submission


class HeavyChunk(models.Model):
    """The heavy families' values for items ``start .. stop`` of one run, scored by a heavy worker.

    Leased like a submission (``status``, ``attempts``, ``lease_owner``, ``lease_until``: see
    ``services.pipeline.leases``). ``payload`` holds ``values`` / ``stats`` / ``notes``, each ``{key: [per item]}``,
    written once, in the transaction that marks the chunk done; aggregation merges it into the
    submission's per-item rows. ``worker`` is the Celery node that stored it.
    """

    PENDING, DONE = "pending", "done"

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="heavy_chunks")
    run = models.PositiveSmallIntegerField()
    start = models.PositiveIntegerField()
    stop = models.PositiveIntegerField()
    queue = models.CharField(max_length=200)
    status = models.CharField(max_length=10, default=PENDING)
    attempts = models.PositiveIntegerField(default=0)
    lease_owner = models.CharField(max_length=64, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    payload = models.JSONField(default=dict)
    signatures = models.JSONField(default=dict)
    worker = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["submission", "run", "start"]
        constraints = [models.UniqueConstraint(fields=["submission", "run", "start"], name="heavychunk_unique")]
