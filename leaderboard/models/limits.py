"""Rate-limit counters: one row per limit, subject and fixed window (``services.policy.rate_limits``)."""

from __future__ import annotations

from django.db import models


class RateCounter(models.Model):
    """The hits ``subject`` made in the window of ``window`` seconds that starts at ``start`` (Unix seconds).

    ``subject`` is a digest: no address, name or IP is stored. A row is only read while its window runs;
    the sweeper deletes it once ``expires_at`` (the window's end) has passed. The database never evicts a
    row on its own, so a limit holds exactly for its whole window.
    """

    scope = models.CharField(max_length=40)
    subject = models.CharField(max_length=64)
    window = models.PositiveIntegerField()
    start = models.BigIntegerField()
    count = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scope", "subject", "window", "start"],
                                               name="ratecounter_unique")]
