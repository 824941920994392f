"""Reference sets whose published inputs give their answers away: leave-one-out option sets and the
site's seeded MuChoMusic option order; the layouts that keep answers hidden are not flagged."""

from __future__ import annotations

import json

import pytest

from scoring import ProblemLog, get_benchmark
from scoring.label_exposure import exposed_by_import, exposed_gold_reason
from scoring.mcq_importers import import_muchomusic_references
from scoring.rul_importers import rul_reference_rows
from scoring.validation import load_references
from tests.helpers.datagen import write_jsonl
from tests.helpers.mcq_data import muchomusic_items, write_muchomusic_csv
from tests.helpers.shared import shared_file


def _references(benchmark: str, records, tmp_path):
    spec = get_benchmark(benchmark)
    return benchmark, spec.task_type, load_references(spec, write_jsonl(records, tmp_path / "refs.jsonl")).references


def test_the_seeded_muchomusic_order_exposes_every_answer_and_an_order_of_ones_own_does_not(tmp_path) -> None:
    items = muchomusic_items(12, seed=4)
    write_muchomusic_csv(items, tmp_path / "muchomusic.csv")
    seeded = import_muchomusic_references(tmp_path / "muchomusic.csv")
    reason = exposed_gold_reason(*_references("muchomusic", seeded, tmp_path))
    assert reason is not None and reason.startswith("12 of 12 items' answers sit at the position")
    write_json = tmp_path / "own-order.json"
    write_json.write_text(json.dumps(items))
    own = import_muchomusic_references(write_json)  # the file's own answer_orders: a private order
    assert exposed_gold_reason(*_references("muchomusic", own, tmp_path)) is None


def test_a_seeded_file_with_a_few_items_in_another_order_is_still_refused(tmp_path) -> None:
    items = muchomusic_items(41, seed=5)
    write_muchomusic_csv(items, tmp_path / "muchomusic.csv")
    records = import_muchomusic_references(tmp_path / "muchomusic.csv")
    first = records[0]
    moved = (first["answer_index"] + 1) % 4
    first["options"][first["answer_index"]], first["options"][moved] = (first["options"][moved],
                                                                          first["options"][first["answer_index"]])
    first["answer_index"] = moved
    reason = exposed_gold_reason(*_references("muchomusic", records, tmp_path))
    assert reason is not None and reason.startswith("40 of 41 items' answers sit at the position")


def test_a_muchomusic_csv_is_refused_as_hidden_before_it_is_read() -> None:
    assert "muchomusic.csv" in (exposed_by_import("muchomusic", "muchomusic", "any/muchomusic.csv") or "")
    assert exposed_by_import("muchomusic", "muchomusic", "prompts.json") is None
    assert exposed_by_import("mmau", "mmau", "mmau-test-mini.json") is None


def test_mmau_and_mmar_do_not_expose_their_answers_not_even_one_item_at_a_time(tmp_path) -> None:
    from scoring.mcq_importers import import_mmau_references
    from scoring.mmar_importers import mmar_reference_rows

    mmau = import_mmau_references(shared_file("data", "mmau", "mmau-test-mini.json"))
    assert exposed_gold_reason(*_references("mmau", mmau, tmp_path)) is None
    mmar = [row for _, row in mmar_reference_rows(shared_file("data", "mmar", "MMAR-meta.jsonl"), ProblemLog())]
    benchmark, task_type, references = _references("mmar", mmar, tmp_path)
    assert exposed_gold_reason(benchmark, task_type, references) is None
    assert all(exposed_gold_reason(benchmark, task_type, [r]) is None for r in references)  # chance, never a leak


def test_rul_muchomusic_option_sets_expose_every_answer(tmp_path) -> None:
    rows = rul_reference_rows(shared_file("data", "rul-muchomusic", "RUL-MuchoMusic.json"), ProblemLog())
    records = [row for _, row in rows]
    benchmark, task_type, references = _references("rul-muchomusic", records, tmp_path)
    reason = exposed_gold_reason(benchmark, task_type, references)
    assert reason is not None and reason.startswith(f"{len(references)} of {len(references)} items' option sets")


@pytest.mark.parametrize(("sets", "narrowed"), [
    ([["gold", "x", "y"]], False),  # one set: nothing to intersect
    ([["gold", "x", "y"], ["z", "gold", "w"]], True),  # the answer alone in common
    ([["gold", "x", "y"], ["y", "x", "gold"]], False),  # the same options reordered
    ([["gold", "none", "y"], ["z", "gold", "none"]], True),  # a distractor in every set: narrowed to two
    ([["Piano", "x", "y"], ["piano ", "z", "w"]], True),  # the answer spelled differently in each set
])
def test_a_leave_one_out_item_exposes_its_answer_when_its_option_sets_differ(sets, narrowed) -> None:
    from scoring.task_types import Reference

    item = Reference(id="q1", line=1, public={"prompts": [{"options": s} for s in sets]}, answers=(sets[0][0],))
    assert (exposed_gold_reason("rul-muchomusic", "leave_one_out", [item]) is not None) == narrowed
