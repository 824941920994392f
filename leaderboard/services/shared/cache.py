"""Leaderboard caches keyed by a per-split version that moves when anything the split shows changes.

The version is ``Split.cache_token`` in the database, not a counter in the cache: a change made
while the cache was unreachable still moves it, so no cached value can outlive the data it was
computed from. The cache itself is only a store of values; when it is down, callers compute.

Anonymous whole pages (``views.page_cache``) read every split's token from one cache entry
instead, so that a hit costs no database query. Wherever a token moves, that entry is deleted at
once and again when the transaction commits (a reader in between may have stored the old tokens),
so the next request reads the new token. A delete that cannot reach the cache is the one gap: the
entry lives ``TOKENS_SECONDS``, so a change made while the cache was unreachable shows on pages at
most that long after it is back (at once if the outage lasted longer).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.core.cache import cache
from django.db import transaction

from leaderboard.models import Split
from leaderboard.models.benchmarks import new_cache_token

TOKENS_KEY = "split-tokens:1"
TOKENS_SECONDS = 5


def split_version(split_id: int) -> str:
    return Split.objects.filter(pk=split_id).values_list("cache_token", flat=True).first() or "none"


def split_tokens() -> dict[tuple[str, str], tuple[int, str]]:
    """``(benchmark, split)`` -> ``(split id, cache_token)`` of every split: one cache read, or one query."""
    tokens = cache.get(TOKENS_KEY)
    if tokens is None:
        tokens = {(benchmark, name): (pk, token) for pk, benchmark, name, token in
                  Split.objects.values_list("pk", "benchmark__name", "name", "cache_token")}
        cache.add(TOKENS_KEY, tokens, timeout=TOKENS_SECONDS)  # add: never over a newer delete's result
    return tokens


def _tokens_moved() -> None:
    cache.delete(TOKENS_KEY)
    transaction.on_commit(lambda: cache.delete(TOKENS_KEY))  # at once outside a transaction


def leaderboard_changed(split_id: int) -> None:
    """Invalidate every cached leaderboard, page and heatmap of the split."""
    Split.objects.filter(pk=split_id).update(cache_token=new_cache_token())
    _tokens_moved()


def benchmark_changed(benchmark_id: int) -> None:
    """Invalidate every split of a benchmark (its pages list the sibling splits)."""
    Split.objects.filter(benchmark_id=benchmark_id).update(cache_token=new_cache_token())
    _tokens_moved()


def cached_for_split(split_id: int, name: str, compute: Any, timeout: int = 24 * 3600) -> Any:
    key = f"split:{split_id}:v{split_version(split_id)}:{name}"
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, timeout=timeout)
    return value


def cached_many_for_split(split_id: int, names: Mapping[Any, str], compute: Callable[[list[Any]], Mapping[Any, Any]],
                          timeout: int = 24 * 3600) -> dict[Any, Any]:
    """:func:`cached_for_split` of several values in one cache round trip: ``names`` maps each wanted thing to
    its cache name; ``compute`` gets the things the cache missed, all at once, and returns their values."""
    version = split_version(split_id)
    keys = {thing: f"split:{split_id}:v{version}:{name}" for thing, name in names.items()}
    found = cache.get_many(list(keys.values()))
    values = {thing: found[key] for thing, key in keys.items() if found.get(key) is not None}
    missing = [thing for thing in keys if thing not in values]
    if missing:
        computed = dict(compute(missing))
        cache.set_many({keys[thing]: value for thing, value in computed.items()}, timeout=timeout)
        values.update(computed)
    return values
