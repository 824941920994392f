"""Splits: one by its names, its siblings, those open to submissions, its inputs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from leaderboard.models import Split
from leaderboard.services.policy.refusals import Refused
from scoring import BENCHMARKS


def split_get(benchmark: str, split: str) -> Split:
    """The split ``benchmark/split``, its benchmark loaded; else ``Http404``."""
    return get_object_or_404(Split.objects.named(benchmark, split))


def split_get_or_refuse(benchmark: str, split: str) -> Split:
    """The split ``benchmark/split``; else a 404 refusal naming the valid benchmarks or splits."""
    if benchmark not in BENCHMARKS:
        raise Refused("unknown_benchmark", f"unknown benchmark {benchmark!r}; valid: {', '.join(sorted(BENCHMARKS))}",
                      status=404, field="benchmark")
    found = Split.objects.named(benchmark, split).first()
    if found is None:
        valid = ", ".join(Split.objects.filter(benchmark__name=benchmark).values_list("name", flat=True))
        raise Refused("unknown_split", f"{benchmark} has no split {split!r}; valid: {valid or 'none yet'}",
                      status=404, field="split")
    return found


def split_list_siblings(split: Split) -> QuerySet[Split]:
    """Every split of ``split``'s benchmark, itself included."""
    return split.benchmark.splits.all()


def split_list_open() -> QuerySet[Split]:
    """The splits a submission can go to: accepting submissions, references imported."""
    return Split.objects.select_related("benchmark").filter(accepting_submissions=True).exclude(references_sha256="")


def split_list_inputs(split: Split) -> Iterator[tuple[str, Any]]:
    """``(item_id, public fields)`` of every item in order, read in chunks (never the labels)."""
    return split.items.order_by("index").values_list("item_id", "public").iterator(chunk_size=2000)
