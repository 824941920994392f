"""CMI-Bench classification (cmi-gtzan, cmi-vocalset-tech, cmi-nsynth-instrument) and the CMI file formats,
against an independent implementation of evaluate.py's get_multiclass_acc."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scoring.metrics.cmi_classification import cmi_label_correct, cmi_normalise
from scoring.publishers.cmi_importers import cmi_key
from scoring.publishers.importers import PREDICTION_IMPORTERS, REFERENCE_IMPORTERS
from scoring.reading.problems import ProblemLog
from tests.helpers.cmi_data import released_file, released_records, result_file


def publisher_normalise(text: Any) -> str:
    if isinstance(text, list):
        text = text[0]
    for old, new in (("_", ""), ("-", ""), ("#", "\u266f"), ("'", ""), (" ", ""), (".", "")):
        text = text.replace(old, new)
    return text.lower()


def publisher_accuracy(result_list: list[dict[str, Any]]) -> float:
    """evaluate.py get_multiclass_acc, written out from its rules."""
    labels = [publisher_normalise(a) for a in {str(t["correct_answer"]) for t in result_list}]
    count = 0.0
    for item in result_list:
        response = publisher_normalise(item["response"])
        gold = publisher_normalise(str(item["correct_answer"]))
        if gold in response and all(label not in response for label in labels if label != gold):
            count += 1
    return count / len(result_list)


def publisher_view(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the publisher's scorer reads: response and correct_answer (the released output)."""
    return [{"response": i["response"], "correct_answer": i["output"]} for i in items]


@pytest.mark.parametrize("text, expected", [
    ("Hip-Hop", "hiphop"), ("lip_trill", "liptrill"), ("C#", "c\u266f"), ("It's  a.b", "itsab"),
    ("**Vocal Fry**", "**vocalfry**"), ("ROCK\n", "rock\n"),
])
def test_normalise_is_the_publishers(text: str, expected: str) -> None:
    assert cmi_normalise(text) == expected == publisher_normalise(text)


def test_a_label_containing_another_label_is_never_correct() -> None:
    gtzan = {"blues", "classical", "country", "disco", "hiphop", "jazz", "metal", "pop", "reggae", "rock"}
    assert cmi_label_correct("Hip-Hop", "hiphop", gtzan)
    assert cmi_label_correct("**Pop**", "pop", gtzan)
    assert not cmi_label_correct("pop rock", "pop", gtzan)
    vocal = {"trill", "trillo", "liptrill", "vibrato"}
    assert not cmi_label_correct("trillo", "trillo", vocal)
    assert not cmi_label_correct("lip trill", "lip_trill", vocal)
    assert cmi_label_correct("Trill.", "trill", vocal)


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", ["cmi-gtzan", "cmi-vocalset-tech", "cmi-nsynth-instrument"])
def test_cli_on_result_files_equals_the_publishers_accuracy(benchmark: str, tmp_path: Path, cli) -> None:
    for seed, jsonl in ((1, False), (2, True)):
        run = tmp_path / f"run{seed}.{'jsonl' if jsonl else 'json'}"
        items = result_file(benchmark, run, seed, jsonl=jsonl)
        expected = publisher_accuracy(publisher_view(items))
        report = cli.score_json("--benchmark", benchmark, "--references", released_file(benchmark),
                                "--references-format", "cmi-bench", "--predictions", run,
                                "--predictions-format", "cmi-bench", "--bootstrap", "20")
        assert report["metrics"]["accuracy"] == pytest.approx(expected, abs=1e-9)
        assert 0.05 < expected < 0.6
        assert report["n_items"] == len(items)
        assert report["warnings"]["counts"].get("empty_prediction", 0) == sum(1 for i in items if i["response"] == "")


@pytest.mark.parametrize("benchmark, never_credited", [
    ("cmi-gtzan", set()), ("cmi-nsynth-instrument", set()), ("cmi-vocalset-tech", {"trillo", "lip_trill"}),
])
def test_gold_outputs_score_one_except_labels_the_rule_never_credits(
    benchmark: str, never_credited: set[str], tmp_path: Path, cli
) -> None:
    items = [{**r, "response": r["output"]} for r in released_records(benchmark)]
    run = tmp_path / "gold.json"
    run.write_text(json.dumps(items))
    report = cli.score_json("--benchmark", benchmark, "--references", released_file(benchmark),
                            "--references-format", "cmi-bench", "--predictions", run, "--bootstrap", "10")
    lost = sum(1 for i in items if i["output"] in never_credited)
    assert lost == (0 if not never_credited else 150)
    assert report["metrics"]["accuracy"] == pytest.approx(1 - lost / len(items), abs=1e-12)
    assert report["metrics"]["accuracy"] == pytest.approx(publisher_accuracy(publisher_view(items)), abs=1e-12)


@pytest.mark.slow
def test_native_contract_scores_the_same_as_the_result_file(tmp_path: Path, cli) -> None:
    items = result_file("cmi-gtzan", tmp_path / "run.json", 5)
    native = tmp_path / "run.jsonl"
    native.write_text("".join(json.dumps({"id": cmi_key(i)[0], "prediction": i["response"]}) + "\n" for i in items))
    references = tmp_path / "refs.jsonl"
    cli.run("convert", "--format", "cmi-bench", "--input", released_file("cmi-gtzan"), "--references-out", references)
    a = cli.score_json("--benchmark", "cmi-gtzan", "--references", references, "--predictions", native,
                       "--bootstrap", "10")
    b = cli.score_json("--benchmark", "cmi-gtzan", "--references", released_file("cmi-gtzan"),
                       "--references-format", "cmi-bench", "--predictions", tmp_path / "run.json", "--bootstrap", "10")
    assert a["metrics"] == b["metrics"]
    assert a["signatures"] == b["signatures"]


def test_derived_ids_are_unique_and_number_repeats_in_file_order(tmp_path: Path) -> None:
    log = ProblemLog()
    rows = REFERENCE_IMPORTERS["cmi-bench"](released_file("cmi-dsing"), log)
    assert not log
    ids = [record["id"] for _, record in rows]
    assert len(ids) == len(set(ids)) == 482
    repeated = [i for i in ids if "#" in i]
    assert len(repeated) == 2 and all(i.endswith("#2") for i in repeated)
    first = released_records("cmi-dsing")[0]
    assert ids[0] == f"{first['audio_path'][0]}[{float(first['audio_start'])!r}:{float(first['audio_end'])!r}]"
    gtzan = REFERENCE_IMPORTERS["cmi-bench"](released_file("cmi-gtzan"), log)
    assert gtzan[0][1] == {"id": "data/GTZAN/Data/genres_original/blues/blues.00012.wav[0.0:30.0]",
                           "answer": "blues", "question": released_records("cmi-gtzan")[0]["instruction"],
                           "audio": "data/GTZAN/Data/genres_original/blues/blues.00012.wav"}


def test_bad_result_records_are_problems_naming_line_and_field(tmp_path: Path) -> None:
    records = released_records("cmi-gtzan")[:4]
    bad = [
        {**records[0], "response": "blues"},
        {k: v for k, v in records[1].items() if k != "audio_path"} | {"response": "jazz"},
        {**records[2]},
        {**records[3], "response": 7},
    ]
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in bad) + "[1]\n{not json\n")
    log = ProblemLog()
    rows = PREDICTION_IMPORTERS["cmi-bench"](path, log)
    assert [line for line, _ in rows] == [1]
    found = {(p.line, p.field, p.kind) for p in log.problems}
    assert found == {(2, "audio_path", "missing_field"), (3, "response", "missing_field"),
                     (4, "response", "wrong_type"), (5, None, "not_object"), (6, None, "not_json")}


def test_a_result_file_with_a_missing_item_is_an_error_naming_it(tmp_path: Path, cli) -> None:
    items = result_file("cmi-gtzan", tmp_path / "run.json", 3)
    (tmp_path / "short.json").write_text(json.dumps(items[1:]))
    result = cli.run("validate", "--benchmark", "cmi-gtzan", "--references", released_file("cmi-gtzan"),
                     "--references-format", "cmi-bench", "--predictions", tmp_path / "short.json",
                     "--predictions-format", "cmi-bench")
    assert result.returncode == 1
    assert "1 of 290 items have no prediction" in result.stdout
    assert 'no prediction in short.json: "data/GTZAN/Data/genres_original/blues/' in result.stdout


def inference_layout(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records the publisher's inference scripts write: question, response, correct_answer, audioid."""
    return [{"question": i["instruction"][:40], "response": i["response"], "correct_answer": i["output"],
             "audioid": "../testdata/" + i["audio_path"][0].removeprefix("data/"), "other": ""} for i in items]


@pytest.mark.slow
def test_inference_script_records_are_matched_by_place_and_score_the_same(tmp_path: Path, cli) -> None:
    items = result_file("cmi-vocalset-tech", tmp_path / "run.json", 8)
    layout = inference_layout(items)
    layout[3]["correct_answer"] = "not compared"  # the record's own label is never read
    (tmp_path / "inference.json").write_text(json.dumps(layout))
    (tmp_path / "inference.jsonl").write_text("".join(json.dumps(r) + "\n" for r in layout))
    common = ("--benchmark", "cmi-vocalset-tech", "--references", released_file("cmi-vocalset-tech"),
              "--references-format", "cmi-bench", "--bootstrap", "10")
    keyed = cli.score_json(*common, "--predictions", tmp_path / "run.json", "--predictions-format", "cmi-bench")
    for run, fmt in (("inference.json", ("--predictions-format", "cmi-bench")), ("inference.json", ()),
                     ("inference.jsonl", ())):
        report = cli.score_json(*common, "--predictions", tmp_path / run, *fmt)
        assert report["metrics"] == keyed["metrics"]
        assert report["metrics"]["accuracy"] == pytest.approx(publisher_accuracy(publisher_view(items)), abs=1e-12)


def test_inference_records_out_of_order_or_repeated_are_errors(tmp_path: Path, cli) -> None:
    layout = inference_layout(result_file("cmi-gtzan", tmp_path / "run.json", 9))
    layout[0], layout[1] = layout[1], layout[0]
    layout.append(dict(layout[5]))
    (tmp_path / "swapped.json").write_text(json.dumps(layout))
    result = cli.run("validate", "--benchmark", "cmi-gtzan", "--references", released_file("cmi-gtzan"),
                     "--references-format", "cmi-bench", "--predictions", tmp_path / "swapped.json")
    assert result.returncode == 1
    lines = [line for line in result.stdout.splitlines() if ": warning: " not in line]
    # record 1 holds item 2's audio and is joined to it; record 2 (item 1's) then comes after its item
    assert not any(line.startswith("swapped.json:1:") for line in lines), result.stdout
    assert any(line.startswith("swapped.json:2: audio: record 2 is for audio") and "blues.00012.wav" in line
               and "must keep the released order" in line for line in lines), result.stdout
    assert any(line.startswith("swapped.json:291: audio: record 291 is for audio") and "blues.00017.wav" in line
               for line in lines)
    assert any(line.startswith("swapped.json:0: id: 1 of 290 items have no prediction") for line in lines)
    assert "correct_answer" not in result.stdout


@pytest.mark.parametrize("flag", [True, False], ids=["predictions-format", "read-as-uploaded"])
def test_a_result_line_over_the_line_limit_gets_one_verdict_whether_or_not_the_format_is_named(
        tmp_path: Path, cli, flag: bool) -> None:
    items = result_file("cmi-gtzan", tmp_path / "run.json", 5)
    items[0]["response"] = "blues " * 200_000
    run = tmp_path / "long.jsonl"
    run.write_text("".join(json.dumps(item) + "\n" for item in items))
    result = cli.run("validate", "--benchmark", "cmi-gtzan", "--references", released_file("cmi-gtzan"),
                     "--references-format", "cmi-bench", "--predictions", run,
                     *(["--predictions-format", "cmi-bench"] if flag else []))
    assert result.returncode == 1
    assert "long.jsonl:1: line is 1,200," in result.stdout and "the limit is 1,048,576" in result.stdout


def test_a_repeated_result_record_is_named_with_its_repeat_number(tmp_path: Path, cli) -> None:
    items = result_file("cmi-gtzan", tmp_path / "run.json", 6)
    run = tmp_path / "twice.json"
    run.write_text(json.dumps([*items, items[0]]))
    result = cli.run("validate", "--benchmark", "cmi-gtzan", "--references", released_file("cmi-gtzan"),
                     "--references-format", "cmi-bench", "--predictions", run, "--predictions-format", "cmi-bench")
    assert result.returncode == 0
    assert "are ignored (the released items are scored, each once)" in result.stdout
    assert '0]#2"' in result.stdout  # the clipped id keeps the suffix that tells it from the released item


def test_a_list_response_is_scored_by_its_first_element_with_a_warning(tmp_path: Path, cli) -> None:
    """evaluate.py's ``normalise`` takes ``text[0]`` of a list: such answers are scored, not refused."""
    items = result_file("cmi-gtzan", tmp_path / "run.json", 7)
    as_strings = tmp_path / "strings.json"
    as_strings.write_text(json.dumps(items))
    listed = [dict(item) for item in items]
    listed[0]["response"] = [items[0]["output"], "something else"]
    listed[1]["response"] = ["rock", items[1]["output"]]  # the second element is never read
    items[1]["response"] = "rock"
    as_strings.write_text(json.dumps(items))
    as_lists = tmp_path / "lists.json"
    as_lists.write_text(json.dumps(listed))
    args = ["--benchmark", "cmi-gtzan", "--references", released_file("cmi-gtzan"), "--references-format",
            "cmi-bench", "--predictions-format", "cmi-bench", "--bootstrap", "5", "--predictions"]
    expected = cli.score_json(*args, as_strings)
    got = cli.run("score", *args, as_lists)
    assert got.returncode == 0, got.stderr
    report = json.loads(got.stdout)
    assert report["metrics"]["accuracy"] == expected["metrics"]["accuracy"]
    assert report["warnings"]["counts"]["list_response"] == 2
    listed[2]["response"] = []
    as_lists.write_text(json.dumps(listed))
    refused = cli.run("validate", *args[:-3], "--predictions", as_lists)
    assert refused.returncode == 1 and "lists.json:3: response: response must be a string, got array" in refused.stdout
