"""Reference sets whose published inputs give their answers away: leave-one-out option sets and the
site's seeded MuChoMusic option order; the layouts that keep answers hidden are not flagged."""

from __future__ import annotations

import json

import pytest

from scoring import ProblemLog, get_benchmark
from scoring.label_exposure import exposed_gold_reason
from scoring.mcq_importers import import_muchomusic_references
from scoring.rul_importers import rul_reference_rows
from scoring.validation import load_references
from tests.helpers.datagen import write_jsonl
from tests.helpers.mcq_data import muchomusic_items, write_muchomusic_csv
from tests.helpers.shared import shared_file


def _references(benchmark: str, records, tmp_path):
    spec = get_benchmark(benchmark)
    return spec.task_type, load_references(spec, write_jsonl(records, tmp_path / "refs.jsonl")).references


def test_the_seeded_muchomusic_order_exposes_every_answer_and_an_order_of_ones_own_does_not(tmp_path) -> None:
    items = muchomusic_items(12, seed=4)
    write_muchomusic_csv(items, tmp_path / "muchomusic.csv")
    seeded = import_muchomusic_references(tmp_path / "muchomusic.csv")
    reason = exposed_gold_reason(*_references("muchomusic", seeded, tmp_path))
    assert reason is not None and "seeded option order" in reason
    write_json = tmp_path / "own-order.json"
    write_json.write_text(json.dumps(items))
    own = import_muchomusic_references(write_json)  # the file's own answer_orders: a private order
    assert exposed_gold_reason(*_references("muchomusic", own, tmp_path)) is None


def test_one_item_off_the_seeded_position_is_enough_to_hide_the_rest(tmp_path) -> None:
    items = muchomusic_items(6, seed=5)
    write_muchomusic_csv(items, tmp_path / "muchomusic.csv")
    records = import_muchomusic_references(tmp_path / "muchomusic.csv")
    first = records[0]
    moved = (first["answer_index"] + 1) % 4
    first["options"][first["answer_index"]], first["options"][moved] = (first["options"][moved],
                                                                          first["options"][first["answer_index"]])
    first["answer_index"] = moved
    assert exposed_gold_reason(*_references("muchomusic", records, tmp_path)) is None


def test_mmau_test_mini_does_not_expose_its_answers(tmp_path) -> None:
    from scoring.mcq_importers import import_mmau_references

    records = import_mmau_references(shared_file("data", "mmau", "mmau-test-mini.json"))
    assert exposed_gold_reason(*_references("mmau", records, tmp_path)) is None


def test_rul_muchomusic_option_sets_expose_every_answer(tmp_path) -> None:
    rows = rul_reference_rows(shared_file("data", "rul-muchomusic", "RUL-MuchoMusic.json"), ProblemLog())
    records = [row for _, row in rows]
    task_type, references = _references("rul-muchomusic", records, tmp_path)
    reason = exposed_gold_reason(task_type, references)
    assert reason is not None and reason.startswith(f"{len(references)} of {len(references)} items")


@pytest.mark.parametrize("prompts", [1, 2])
def test_a_leave_one_out_item_exposes_its_answer_only_when_its_sets_share_just_that_option(prompts) -> None:
    from scoring.task_types import Reference

    sets = [["gold", "x", "y"], ["z", "gold", "w"]][:prompts]
    item = Reference(id="q1", line=1, public={"prompts": [{"options": s} for s in sets]}, answers=("gold",))
    shared_distractor = Reference(id="q2", line=2, public={"prompts": [{"options": ["gold", "x"]},
                                                                       {"options": ["x", "gold"]}]}, answers=("gold",))
    assert (exposed_gold_reason("leave_one_out", [item]) is not None) == (prompts == 2)
    assert exposed_gold_reason("leave_one_out", [shared_distractor]) is None
