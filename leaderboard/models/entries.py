"""What owners change on their entries: every change, with its time, shown on the entry."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from leaderboard.models.submissions import Submission


class EntryChange(models.Model):
    """One change an owner (or a maintainer) made: withdraw, visibility or metadata.

    ``detail`` maps each changed field to ``[old, new]``.
    """

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="changes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    action = models.CharField(max_length=32)
    detail = models.JSONField(default=dict, blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["submission", "-at", "-pk"]
