"""Whether a reference set's gold answers can be read from what a hidden-label split publishes.

A hidden-label split publishes each item's inputs (question, options, option sets: the inputs download)
and never its answer. Some layouts give the answer away all the same:

* leave-one-out items (RUL-MuChoMusic) whose option sets differ: every set must hold the answer, so
  the options common to all of an item's sets narrow it down (to the answer alone when each set drops
  a different distractor, as released);
* multiple-choice options in the site's seeded order (MuChoMusic's CSV,
  :func:`scoring.publishers.mcq_importers.seeded_order`): the answer's shown position is a public function of
  the item id. A MuChoMusic file all in that order is refused whatever its size; any multiple-choice file
  with far more answers at the seeded position than chance puts there (:data:`Z_LIMIT` standard deviations)
  too, so that a seeded file with a few items in another order does not pass.

Such a reference set can be scored on a public split; it cannot be a hidden one. Nor can items whose answers
are public already: an item of a publisher's public release (:func:`released_items_reason`, by content, not
id) or of a public split (``leaderboard.services.references.exposure``, with the same :func:`item_fingerprint`).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scoring.publishers.mcq_importers import seeded_order
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


# --- items whose answers are public already --------------------------------------------------------------------

RELEASED_ITEMS_DIR = Path(__file__).parent / "released_items"  # one file per public release: its items' fingerprints
FINGERPRINT_HEX = 12  # 48 bits: a chance match among 10^5 items of a private set is about 10^-5
_NOT_CONTENT = ("pair_id", "metadata")  # ids, and labels a copy may rewrite without changing the item


def item_fingerprint(public: Mapping[str, Any]) -> str:
    """An item's identity by content (question, options in any order, audio file names, other inputs), never by
    its id: a copy of a released or hidden item under another id, with its options shuffled, has the same one."""
    content = json.dumps(_canonical(public), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(content.encode("utf-8")).hexdigest()[:FINGERPRINT_HEX]


def _canonical(value: Any, key: str = "") -> Any:
    if isinstance(value, Mapping):
        if "prompts" in value:  # leave-one-out: the union of its option sets
            options = {o for p in value.get("prompts") or [] if isinstance(p, Mapping) for o in p.get("options") or []}
            value = {**{k: v for k, v in value.items() if k != "prompts"}, "options": sorted(map(str, options))}
        return {k: _canonical(v, k) for k, v in value.items() if k not in _NOT_CONTENT}
    if isinstance(value, list):
        items = [_canonical(v, key) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, str):
        text = value.replace("\\", "/").rsplit("/", 1)[-1] if key.startswith("audio") else value
        return " ".join(text.split()).casefold()
    return value


def released_fingerprints(benchmark: str) -> dict[str, str]:
    """Fingerprint -> the public release (a file of :data:`RELEASED_ITEMS_DIR`) of this benchmark that holds it."""
    found: dict[str, str] = {}
    for path in sorted(RELEASED_ITEMS_DIR.glob(f"{benchmark}--*.txt")):
        lines = path.read_text(encoding="utf-8").splitlines()
        release = lines[0].removeprefix("# ").strip()
        found.update((line.strip(), release) for line in lines[1:] if line.strip())
    return found


def released_items_reason(benchmark: str, references: Sequence[Reference]) -> str | None:
    """Why these references cannot be hidden because their items are items of a public release, or None."""
    known = released_fingerprints(benchmark)
    matched = [(r, known[f]) for r in references if (f := item_fingerprint(r.public)) in known]
    if not matched:
        return None
    first, release = matched[0]
    return (f"{len(matched)} of {len(references)} items are, by content (question, options, audio), items of the "
            f"public release {release}, whose answers anyone can download (first: {first.id!r})")


def released_items_write(benchmark: str, name: str, release: str, references: Sequence[Reference],
                         folder: Path = RELEASED_ITEMS_DIR) -> Path:
    """Record a public release's item fingerprints (``scripts/released-items`` writes one file per release)."""
    path = folder / f"{benchmark}--{name}.txt"
    prints = sorted({item_fingerprint(r.public) for r in references})
    path.write_text("".join(f"{line}\n" for line in [f"# {release}", *prints]), encoding="utf-8")
    return path
