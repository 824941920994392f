"""Leaderboard caches keyed by a per-split version that moves when anything the split shows changes.

The version is ``Split.cache_token`` in the database, not a counter in the cache: a change made
while the cache was unreachable still moves it, so no cached value can outlive the data it was
computed from. The cache itself is only a store of values; when it is down, callers compute.
"""

from __future__ import annotations

from typing import Any

from django.core.cache import cache

from leaderboard.models import Split
from leaderboard.models.benchmarks import new_cache_token


def split_version(split_id: int) -> str:
    return Split.objects.filter(pk=split_id).values_list("cache_token", flat=True).first() or "none"


def leaderboard_changed(split_id: int) -> None:
    """Invalidate every cached leaderboard, page and heatmap of the split."""
    Split.objects.filter(pk=split_id).update(cache_token=new_cache_token())


def benchmark_changed(benchmark_id: int) -> None:
    """Invalidate every split of a benchmark (its pages list the sibling splits)."""
    Split.objects.filter(benchmark_id=benchmark_id).update(cache_token=new_cache_token())


def cached_for_split(split_id: int, name: str, compute: Any, timeout: int = 24 * 3600) -> Any:
    key = f"split:{split_id}:v{split_version(split_id)}:{name}"
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, timeout=timeout)
    return value
