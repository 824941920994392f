"""Reference sets whose published inputs give their answers away: leave-one-out option sets and the
site's seeded MuChoMusic option order; the layouts that keep answers hidden are not flagged."""

from __future__ import annotations

import json

import pytest

from scoring import ProblemLog, get_benchmark
from scoring.publishers.label_exposure import exposed_by_import, exposed_gold_reason
from scoring.publishers.mcq_importers import import_muchomusic_references
from scoring.publishers.rul_importers import rul_reference_rows
from scoring.reading.validation import load_references
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
    from scoring.publishers.mcq_importers import import_mmau_references
    from scoring.publishers.mmar_importers import mmar_reference_rows

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


def test_an_items_fingerprint_is_its_content_not_its_id_nor_its_option_order() -> None:
    from scoring.publishers.label_exposure import item_fingerprint

    item = {"question": "Which instrument leads?", "options": ["Oboe", "Harp", "Tuba"],
            "audio": "./test-mini-audios/abc.wav", "metadata": {"task": "music"}}
    same = [
        {**item, "options": ["Tuba", "Oboe", "Harp"]},
        {**item, "question": "  which instrument   LEADS? ", "audio": "other/dir\\abc.wav"},
        {**item, "metadata": {"task": "renamed"}},
        {"question": item["question"], "prompts": [{"options": ["Harp", "Tuba"], "prompt": "(A) Harp"},
                                                   {"options": ["Oboe", "Tuba"], "prompt": "(A) Oboe"}],
         "audio": "abc.wav"},
    ]
    other = [{**item, "audio": "abd.wav"}, {**item, "options": ["Oboe", "Harp", "Lute"]},
             {**item, "question": "Which instrument follows?"}]
    assert {item_fingerprint(s) for s in same} == {item_fingerprint(item)}
    assert len({item_fingerprint(o) for o in other} | {item_fingerprint(item)}) == 4
    pair = {"pair_id": "a__b", "audio1": "a.mp3", "audio2": "b.mp3", "question": "Which is faster?"}
    assert item_fingerprint({**pair, "pair_id": "renamed"}) == item_fingerprint(pair)
    assert item_fingerprint({**pair, "audio1": "b.mp3", "audio2": "a.mp3"}) != item_fingerprint(pair)


def test_the_recorded_release_fingerprints_are_those_of_the_shared_releases(tmp_path) -> None:
    """scoring/publishers/released_items/ holds what scripts/released-items writes from the releases in
    ../shared/data."""
    from scoring.publishers.label_exposure import RELEASED_ITEMS_DIR, released_fingerprints
    from scoring.publishers.released import released_items_record

    data = shared_file("data", "mmau", "mmau-test-mini.json").parents[1]
    written = released_items_record(data, into=tmp_path)
    assert sorted(p.name for p in written) == sorted(p.name for p in RELEASED_ITEMS_DIR.glob("*.txt"))
    for path in written:
        assert path.read_text(encoding="utf-8") == (RELEASED_ITEMS_DIR / path.name).read_text(encoding="utf-8")
    mmau = released_fingerprints("mmau")
    assert len(mmau) == 1000 and set(mmau.values()) == {
        "github.com/Sakshi113/MMAU mmau-test-mini.json @ f0a4a97d (MMAU-v05.15.25)"}
