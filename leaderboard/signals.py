"""Keep cached leaderboards and pages in step with edits made outside the pipeline (admin form, shell).

The pipeline and the admin's bulk actions call ``leaderboard_changed`` themselves; a
submission saved or deleted one by one (the admin's change form, a delete) would otherwise
stay listed, or stay off the list, until the next entry of its split lands. The receivers only clear
caches: state changes (a split's hidden labels keying its signatures) are the services' own.
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from leaderboard.models import Benchmark, PublishedResult, Split, Submission
from leaderboard.services.shared.cache import benchmark_changed, leaderboard_changed

# fields a save can change that the pipeline's own lease bookkeeping never touches
_LISTED_FIELDS = frozenset({"hidden", "is_private", "status", "model_name", "organisation", "settings",
                            "parameters", "open_weights", "paper_url", "code_url", "split", "verified"})


@receiver(post_save, sender=Submission, dispatch_uid="leaderboard-submission-saved")
def _submission_saved(sender: Any, instance: Submission, created: bool, update_fields: Any = None,
                      **kwargs: Any) -> None:
    if created:
        return  # not scored yet, so not listed; aggregation announces it
    if update_fields is None or _LISTED_FIELDS & set(update_fields):
        leaderboard_changed(instance.split_id)


@receiver(post_delete, sender=Submission, dispatch_uid="leaderboard-submission-deleted")
def _submission_deleted(sender: Any, instance: Submission, **kwargs: Any) -> None:
    leaderboard_changed(instance.split_id)


@receiver(post_save, sender=Split, dispatch_uid="leaderboard-split-saved")
@receiver(post_delete, sender=Split, dispatch_uid="leaderboard-split-deleted")
def _split_changed(sender: Any, instance: Split, **kwargs: Any) -> None:
    benchmark_changed(instance.benchmark_id)  # its own pages, and its siblings' lists of splits


@receiver(post_save, sender=Benchmark, dispatch_uid="leaderboard-benchmark-saved")
def _benchmark_saved(sender: Any, instance: Benchmark, **kwargs: Any) -> None:
    benchmark_changed(instance.pk)


@receiver(post_save, sender=PublishedResult, dispatch_uid="leaderboard-published-saved")
@receiver(post_delete, sender=PublishedResult, dispatch_uid="leaderboard-published-deleted")
def _published_changed(sender: Any, instance: PublishedResult, **kwargs: Any) -> None:
    leaderboard_changed(instance.split_id)
