"""Benchmarks: the listed ones, one by name, and their splits with what each lists."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet
from django.shortcuts import get_object_or_404

from leaderboard.models import Benchmark, Split
from leaderboard.models.submissions import listed_filter
from leaderboard.services.policy.refusals import Refused


def benchmark_list_listed() -> QuerySet[Benchmark]:
    """The listed benchmarks, their splits loaded with them."""
    return Benchmark.objects.filter(listed=True).prefetch_related("splits")


def benchmark_list_splits(benchmark: Benchmark) -> list[Split]:
    """A benchmark's splits (those :func:`benchmark_list_listed` loaded, when it loaded them)."""
    return list(benchmark.splits.all())


def benchmark_get_listed(name: str) -> Benchmark:
    """The listed benchmark ``name``; else ``Http404``."""
    return get_object_or_404(Benchmark, name=name, listed=True)


def benchmark_get_listed_or_refuse(name: str) -> Benchmark:
    """The listed benchmark ``name``; else a 404 refusal that lists the valid names."""
    found = Benchmark.objects.filter(name=name, listed=True).first()
    if found is None:
        listed = ", ".join(Benchmark.objects.filter(listed=True).order_by("name").values_list("name", flat=True))
        raise Refused("unknown_benchmark", f"unknown benchmark {name!r}; valid: {listed or 'none yet'}",
                      status=404, field="benchmark")
    return found


def benchmark_list_splits_counted(benchmark: Benchmark) -> QuerySet[Split]:
    """A benchmark's splits, each with its listed ``entries`` and its ``published`` leaderboard rows."""
    return benchmark.splits.annotate(  # distinct: two joined counts would multiply each other
        entries=Count("submissions", distinct=True, filter=listed_filter("submissions__")),
        published=Count("published_results", distinct=True, filter=Q(published_results__kind="leaderboard")))
