"""Signatures of hidden-label splits: the label digest keyed with the server's secret.

An unkeyed digest of a column's gold labels is a test anyone can run against guesses (a subset of
ten yes/no items is 1,024 guesses). Scoring on a hidden-label split keys it
(:func:`leaderboard.services.scorers.site_context`); :func:`split_signatures_rekey` keys what was
stored before the split's labels were hidden.
"""

from __future__ import annotations

from django.db import transaction

from leaderboard.models import MetricValue, Split, Submission
from leaderboard.services.cache import leaderboard_changed
from leaderboard.services.scorers import scorer_label_key
from scoring.metrics.mcq import signature_gold_keyed


def split_signatures_rekey(*, split: Split) -> int:
    """Key every stored unkeyed label digest of ``split``'s entries; returns the values changed."""
    key = scorer_label_key()
    changed = 0
    with transaction.atomic():
        for value in MetricValue.objects.filter(submission__split=split, signature__contains="gold:"):
            keyed = signature_gold_keyed(value.signature, key)
            if keyed != value.signature:
                value.signature = keyed
                value.save(update_fields=["signature"])
                changed += 1
        for submission in Submission.objects.filter(split=split, report__has_key="signatures"):
            signatures = submission.report["signatures"]
            keyed_all = {k: signature_gold_keyed(v, key) for k, v in signatures.items()}
            if keyed_all != signatures:
                submission.report = {**submission.report, "signatures": keyed_all}
                submission.save(update_fields=["report"])
    transaction.on_commit(lambda: leaderboard_changed(split.pk))
    return changed
