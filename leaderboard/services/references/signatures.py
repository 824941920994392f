"""Signatures of hidden-label splits: the label digest keyed with the server's secret.

An unkeyed digest of a column's gold labels is a test anyone can run against guesses (a subset of
ten yes/no items is 1,024 guesses). Scoring on a hidden-label split keys it
(:func:`leaderboard.services.shared.scorers.site_context`); :func:`split_signatures_rekey` keys what was
stored before the split's labels were hidden; :func:`split_save` calls it whenever a save hides them
(``import_references --hidden-labels``, the admin's forms).
"""

from __future__ import annotations

from django.db import transaction

from leaderboard.models import MetricValue, Split, Submission
from leaderboard.services.shared.cache import leaderboard_changed
from leaderboard.services.shared.scorers import scorer_label_key, signatures_keyed
from scoring.metrics.gold_digests import signature_gold_keyed

# the database's form of scoring.metrics.gold_digests' pattern
UNKEYED_GOLD = r"(^|\|)(gold:[0-9a-f]{16}|labels:[0-9]+:[0-9a-f]{12})(\||$)"


def split_save(*, split: Split, update_fields: list[str] | None = None) -> None:
    """Save ``split``; a save that leaves its labels hidden keys the label digests its entries stored before."""
    split.save(update_fields=update_fields)
    if split.hidden_labels and (update_fields is None or "hidden_labels" in update_fields):
        split_signatures_rekey(split=split)


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
