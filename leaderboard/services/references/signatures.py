"""Signatures of hidden-label splits: the label digest keyed with the server's secret.

An unkeyed digest of a column's gold labels is a test anyone can run against guesses (a subset of
ten yes/no items is 1,024 guesses). Scoring on a hidden-label split keys it
(:func:`leaderboard.services.pipeline.scorers.site_context`); :func:`split_signatures_rekey` keys what was
stored before the split's labels were hidden (``import_references --hidden-labels``, the admin).
"""

from __future__ import annotations

from django.db import transaction

from leaderboard.models import MetricValue, Split, Submission
from leaderboard.services.cache import leaderboard_changed
from leaderboard.services.pipeline.scorers import scorer_label_key, signatures_keyed
from scoring.metrics.gold_digests import signature_gold_keyed

# the database's form of scoring.metrics.gold_digests' pattern
UNKEYED_GOLD = r"(^|\|)(gold:[0-9a-f]{16}|labels:[0-9]+:[0-9a-f]{12})(\||$)"


def split_signatures_rekey(*, split: Split) -> int:
    """Key every stored unkeyed label digest of ``split``'s entries; returns the values changed."""
    key = scorer_label_key()
    with transaction.atomic():
        values = list(MetricValue.objects.select_for_update()
                      .filter(submission__split=split, signature__regex=UNKEYED_GOLD))
        for value in values:
            value.signature = signature_gold_keyed(value.signature, key)
            value.save(update_fields=["signature"])
        for submission in Submission.objects.filter(pk__in={v.submission_id for v in values}):
            signatures = (submission.report or {}).get("signatures", {})
            keyed = signatures_keyed(signatures)
            if keyed != signatures:
                Submission.objects.filter(pk=submission.pk).update(report={**submission.report, "signatures": keyed})
    if values:
        transaction.on_commit(lambda: leaderboard_changed(split.pk))
    return len(values)
