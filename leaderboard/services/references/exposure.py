"""References whose gold answers a split would publish: refused before anything is stored.

A hidden-label split may not hold references whose published inputs give their answers away
(``scoring.publishers.label_exposure``), nor items of a publisher's public release, nor items whose answers another
split of the benchmark shows; a public split may not take items of a hidden one (importing them would publish that
split's answers). Items are the same when their ids are, or their content (``item_fingerprint``: question,
options in any order, audio names) is.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from leaderboard.models import ReferenceItem, Split
from leaderboard.services.policy.refusals import Refused
from scoring.publishers.label_exposure import (
    exposed_by_import,
    exposed_gold_reason,
    item_fingerprint,
    released_items_reason,
)
from scoring.task_types import Reference


class LabelsExposed(Refused):
    """References that would publish gold answers that are meant to stay hidden."""

    def __init__(self, message: str) -> None:
        super().__init__("labels_exposed", message, "references", 400)


def references_exposure(split: Split, references: Sequence[Reference], *, hidden: bool) -> str | None:
    """Why ``split`` (hidden or not, as ``hidden`` says) cannot hold these references, or None when it can."""
    if hidden and (reason := exposed_gold_reason(split.benchmark.name, split.spec.task_type, references)):
        return f"{split}'s labels cannot be hidden: {reason}"
    if hidden and (reason := released_items_reason(split.benchmark.name, references)):
        return f"{split}'s labels cannot be hidden: {reason}"
    ids = {r.id for r in references}
    prints = {item_fingerprint(r.public): r.id for r in references}
    shared = (ReferenceItem.objects.filter(split__benchmark_id=split.benchmark_id, split__hidden_labels=not hidden)
              .exclude(split=split).values_list("split__name", "item_id", "public").iterator(chunk_size=5000))
    by_split: dict[str, list[str]] = {}
    for name, item_id, public in shared:
        if item_id in ids or item_fingerprint(public) in prints:
            by_split.setdefault(name, []).append(item_id)
    if not by_split:
        return None
    name, items = next(iter(sorted(by_split.items())))
    where = f"{split.benchmark.name}/{name}"
    if hidden:
        return (f"{split}'s labels cannot be hidden: {len(items)} of its items are items of {where}, which shows "
                f"their answers (first: {items[0]!r})")
    return (f"{len(items)} of these items are items of the hidden split {where}: importing them into {split}, "
            f"which shows answers, would publish them (first: {items[0]!r})")


def import_exposure(split: Split, source_format: str | None, path: str | Path, *, hidden: bool) -> str | None:
    """Why importing this publisher's file into ``split`` gives its answers away whatever it holds, or None."""
    if hidden and (reason := exposed_by_import(split.benchmark.name, source_format, path)):
        return f"{split}'s labels cannot be hidden: {reason}"
    return None

