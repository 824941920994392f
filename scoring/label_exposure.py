"""Whether a reference set's gold answers can be read from what a hidden-label split publishes.

A hidden-label split publishes each item's inputs (question, options, option sets: the inputs download)
and never its answer. Two layouts give the answer away all the same:

* leave-one-out items (RUL-MuChoMusic): each option set drops a different distractor and keeps the
  answer, so the one option common to all of an item's sets is its answer;
* multiple-choice options in the site's seeded order (MuChoMusic's CSV, :func:`scoring.mcq_importers.seeded_order`):
  the answer's shown position is a public function of the item id.

Such a reference set can be scored on a public split; it cannot be a hidden one.
"""

from __future__ import annotations

from collections.abc import Sequence

from scoring.mcq_importers import seeded_order
from scoring.task_types import Reference


def exposed_gold_reason(task_type: str, references: Sequence[Reference]) -> str | None:
    """Why these references' answers can be read from their published inputs, or None when they cannot."""
    if task_type == "leave_one_out":
        exposed = [r for r in references if _common_option(r) == r.answers[:1]]
        if exposed:
            return (f"{len(exposed)} of {len(references)} items' answers are the one option common to all of their "
                    f"option sets (item {exposed[0].id!r} first), and the option sets are published")
    if task_type == "multiple_choice" and references and all(_at_seeded_position(r) for r in references):
        return ("every item's answer sits at the position of the site's seeded option order, a public function of "
                "the item id (muchomusic.csv imports use it): import the options in an order of your own, e.g. a "
                "prompt/prediction JSON list with its answer_orders")
    return None


def _common_option(reference: Reference) -> tuple[str, ...]:
    prompts = reference.public.get("prompts") or []
    if len(prompts) < 2:
        return ()
    common = set(prompts[0].get("options") or [])
    for prompt in prompts[1:]:
        common &= set(prompt.get("options") or [])
    return tuple(common) if len(common) == 1 else ()


def _at_seeded_position(reference: Reference) -> bool:
    options = reference.public.get("options") or []
    index = reference.answer_index
    return index is not None and len(options) > 1 and seeded_order(reference.id, len(options)).index(0) == index
