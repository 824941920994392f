"""Whether a reference set's gold answers can be read from what a hidden-label split publishes.

A hidden-label split publishes each item's inputs (question, options, option sets: the inputs download)
and never its answer. Some layouts give the answer away all the same:

* leave-one-out items (RUL-MuChoMusic) whose option sets differ: every set must hold the answer, so
  the options common to all of an item's sets narrow it down (to the answer alone when each set drops
  a different distractor, as released);
* multiple-choice options in the site's seeded order (MuChoMusic's CSV, :func:`scoring.mcq_importers.seeded_order`):
  the answer's shown position is a public function of the item id. A MuChoMusic file all in that
  order is refused whatever its size; any multiple-choice file with far more answers at the seeded
  position than chance puts there (:data:`Z_LIMIT` standard deviations) too, so that a seeded file with
  a few items in another order does not pass.

Such a reference set can be scored on a public split; it cannot be a hidden one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from scoring.mcq_importers import seeded_order
from scoring.task_types import Reference

Z_LIMIT = 5.0  # answers at the seeded position, in standard deviations above chance: MMAU/MMAR's files are at -2.5/+0.4
SEEDED_BENCHMARKS = ("muchomusic",)  # whose publisher's file the site imports in its seeded order


def exposed_gold_reason(benchmark: str, task_type: str, references: Sequence[Reference]) -> str | None:
    """Why these references' answers can be read from their published inputs, or None when they cannot."""
    if task_type == "leave_one_out":
        return _leave_one_out_reason(references)
    if task_type == "multiple_choice":
        return _seeded_order_reason(benchmark, references)
    return None


def exposed_by_import(benchmark: str, source_format: str | None, path: str | Path) -> str | None:
    """Why importing this publisher's file gives its answers away, whatever it holds, or None."""
    if source_format == "muchomusic" and Path(path).suffix.lower() == ".csv":
        return ("muchomusic.csv is imported in the site's seeded option order, in which each answer's position is a "
                "public function of the item id: import a prompt/prediction JSON list with answer_orders of your own")
    return None


def _leave_one_out_reason(references: Sequence[Reference]) -> str | None:
    narrowed = [(r, n) for r in references if (n := _common_options(r)) is not None]
    if not narrowed:
        return None
    first, common = narrowed[0]
    return (f"{len(narrowed)} of {len(references)} items' option sets differ, and each set holds the answer: the "
            f"options common to all of an item's published sets narrow it down (item {first.id!r}: to {common})")


def _common_options(reference: Reference) -> int | None:
    """How many options all of the item's sets share, when that is fewer than a set holds; else None."""
    sets = [{_normal(o) for o in prompt.get("options") or []} for prompt in reference.public.get("prompts") or []]
    if len(sets) < 2:
        return None
    common = set.intersection(*sets)
    return len(common) if len(common) < max(len(s) for s in sets) else None


def _normal(option: object) -> str:
    return " ".join(str(option).split()).casefold()


def _seeded_order_reason(benchmark: str, references: Sequence[Reference]) -> str | None:
    items = [(r, len(r.public.get("options") or [])) for r in references if r.answer_index is not None]
    items = [(r, k) for r, k in items if k > 1]
    if not items:
        return None
    hits = sum(seeded_order(r.id, k).index(0) == r.answer_index for r, k in items)
    expected = sum(1 / k for _, k in items)
    deviation = math.sqrt(sum((1 / k) * (1 - 1 / k) for _, k in items))
    everywhere = hits == len(items) and benchmark in SEEDED_BENCHMARKS
    if not everywhere and hits <= expected + Z_LIMIT * deviation:
        return None
    advice = ("a prompt/prediction JSON list with answer_orders of your own" if benchmark in SEEDED_BENCHMARKS
              else "a file with its options in another order")
    return (f"{hits} of {len(items)} items' answers sit at the position of the site's seeded option order (chance: "
            f"about {expected:.0f}), a public function of the item id: import {advice}")
