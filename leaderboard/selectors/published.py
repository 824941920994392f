"""Published results (rows from papers)."""

from __future__ import annotations

from django.db.models import Count

from leaderboard.models import PublishedResult


def published_get_board_counts() -> dict[int, int]:
    """Published leaderboard rows per split id (splits without any are absent)."""
    rows = (PublishedResult.objects.filter(kind="leaderboard").values_list("split_id")
            .annotate(n=Count("id")).values_list("split_id", "n"))
    return dict(rows)
