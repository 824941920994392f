"""Who may see what. Every page, download and API route asks these functions."""

from __future__ import annotations

from typing import Any

from leaderboard.models import Split, Submission


def is_maintainer(user: Any) -> bool:
    return bool(getattr(user, "is_staff", False))


def can_view_submission(user: Any, submission: Submission) -> bool:
    """Public entries, your own (withdrawn ones too: their tombstone), and everything for maintainers."""
    if is_maintainer(user):
        return True
    if getattr(user, "is_authenticated", False) and submission.user_id == user.pk:
        return True
    return not submission.is_private and not submission.hidden and submission.withdrawn_at is None


def can_view_item_details(user: Any, split: Split) -> bool:
    """Per-item gold labels and per-item scores (which reveal correctness).

    On a hidden-label split only maintainers get them, the submitter included:
    per-item correctness would let anyone reconstruct the labels.
    """
    return is_maintainer(user) or not split.hidden_labels


def can_view_predictions(user: Any, submission: Submission) -> bool:
    """An entry's per-item predictions: on a hidden-label split only its owner and maintainers.

    A strong entry's predictions are nearly its gold labels, and nobody else's work to copy.
    """
    if is_maintainer(user) or not submission.split.hidden_labels:
        return True
    return bool(getattr(user, "is_authenticated", False) and submission.user_id == user.pk)
