"""What the publishers' evaluators score is scored (with a warning), and hostile input is a clear
problem naming file, line and field: on the publisher-format route (``--predictions-format``) and on a
publisher JSON array read without a format flag. Numbers are checked against independent
re-implementations of the released rules written here (MMAU ``string_match``, MuChoMusic
``extract_responses``) and in ``helpers.evaluate_py`` (Jamendo-MT-QA evaluate.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from scoring.cli import main
from tests.helpers.evaluate_py import evaluate_py
from tests.helpers.jamendo_records import jamendo_records
from tests.helpers.mcq_data import muchomusic_items, write_json
from tests.helpers.publisher_files import WORDS, mmau_items, released_mmau_accuracy, released_muchomusic_accuracy


def run_cli(capsys: pytest.CaptureFixture[str], *args: Any) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def score_mmau(capsys: pytest.CaptureFixture[str], refs: Path, run: Path, *extra: str,
               fmt: bool = True) -> tuple[int, dict[str, Any] | str]:
    flags = ["--predictions-format", "mmau"] if fmt else []
    code, out, err = run_cli(capsys, "score", "--benchmark", "mmau", "--references", refs, "--references-format",
                             "mmau", "--predictions", run, *flags, "--bootstrap", "10", *extra)
    return code, (json.loads(out) if code == 0 else out + err)


def score_muchomusic(capsys: pytest.CaptureFixture[str], refs: Path, run: Path,
                     fmt: bool = True) -> tuple[int, dict[str, Any] | str]:
    flags = ["--predictions-format", "muchomusic"] if fmt else []
    code, out, err = run_cli(capsys, "score", "--benchmark", "muchomusic", "--references", refs,
                             "--references-format", "muchomusic", "--predictions", run, *flags, "--bootstrap", "10")
    return code, (json.loads(out) if code == 0 else out + err)


def assert_scored_as_released_mmau(capsys: pytest.CaptureFixture[str], refs: Path, run: Path,
                                   items: list[dict[str, Any]], *extra: str, fmt: bool = True) -> dict[str, Any]:
    """The run scores as MMAU's released evaluation.py scores ``items``; returns the report."""
    code, report = score_mmau(capsys, refs, run, *extra, fmt=fmt)
    assert code == 0, report
    assert isinstance(report, dict)
    assert report["metrics"]["accuracy"] == pytest.approx(released_mmau_accuracy(items), abs=1e-9)
    return report


def assert_scored_as_released_muchomusic(capsys: pytest.CaptureFixture[str], refs: Path, run: Path,
                                         items: list[dict[str, Any]], fmt: bool = True) -> None:
    """The run scores as MuChoMusic's released extract_responses scores ``items``."""
    code, report = score_muchomusic(capsys, refs, run, fmt=fmt)
    assert code == 0 and isinstance(report, dict), report
    assert report["metrics"]["accuracy"] == pytest.approx(released_muchomusic_accuracy(items), abs=1e-9)


def validate(capsys: pytest.CaptureFixture[str], benchmark: str, refs: Path, run: Path, *extra: Any) -> tuple[int, str]:
    code, out, err = run_cli(capsys, "validate", "--benchmark", benchmark, "--references", refs,
                             "--references-format", benchmark, "--predictions", run, *extra)
    return code, out + err


@pytest.fixture
def mmau_refs(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    items = mmau_items(60, seed=21)
    gold = [{k: v for k, v in item.items() if k != "model_output"} for item in items]
    return write_json(gold, tmp_path / "gold.json"), items


def without_empty(counts: dict[str, int]) -> dict[str, int]:
    """Warning counts apart from the empty answers the generated outputs hold."""
    return {kind: n for kind, n in counts.items() if kind != "empty_prediction"}


ROUTES = (pytest.param(True, id="predictions-format"), pytest.param(False, id="json-array-read-as-is"))


# --- answers of any length ----------------------------------------------------------------------


def test_mcq_answers_over_20000_characters_are_scored_as_the_publishers_score_them(tmp_path, capsys,
                                                                                     mmau_refs) -> None:
    gold, items = mmau_refs
    items[0]["model_output"] = items[0]["answer"] + " " * 30_000  # right, 30,000+ characters
    items[1]["model_output"] = "x" * 25_000  # wrong
    run = write_json(items, tmp_path / "run.json")
    assert_scored_as_released_mmau(capsys, gold, run, items)
    music = tmp_path / "m.json"
    mitems = muchomusic_items(40, seed=3)
    mitems[0]["model_output"] = "The correct answer is: " + "x" * 25_000 + " (A)"
    write_json(mitems, music)
    assert_scored_as_released_muchomusic(capsys, music, music, mitems)


# --- NUL and lone surrogates: one rule on every route -------------------------------------------


@pytest.mark.parametrize("fmt", ROUTES)
def test_unstorable_text_in_a_publisher_file_is_an_error_naming_item_and_field(tmp_path, capsys, mmau_refs,
                                                                                fmt) -> None:
    gold, items = mmau_refs
    items[2]["model_output"] = "PLACEHOLDER"
    text = json.dumps(items).replace('"PLACEHOLDER"', '"piano \\ud83c bass"')
    (tmp_path / "run.json").write_text(text, encoding="utf-8")
    code, out = score_mmau(capsys, gold, tmp_path / "run.json", fmt=fmt)
    assert code == 1
    assert ("run.json:3: model_output: model_output contains a lone surrogate (U+D83C), which cannot be stored; "
            "remove it") in out
    assert "Traceback" not in out


@pytest.mark.parametrize("fmt", ROUTES)
def test_a_nul_in_a_publisher_file_is_removed_and_the_answer_scored(tmp_path, capsys, mmau_refs, fmt) -> None:
    gold, items = mmau_refs
    answer = items[2]["model_output"]
    items[2]["model_output"] = "PLACEHOLDER"
    text = json.dumps(items).replace('"PLACEHOLDER"', json.dumps(answer[:3] + "\x00" + answer[3:]))
    (tmp_path / "run.json").write_text(text, encoding="utf-8")
    code, report = score_mmau(capsys, gold, tmp_path / "run.json", fmt=fmt)
    assert code == 0 and isinstance(report, dict), report
    (nul,) = [w for w in report["warnings"]["first"] if w["kind"] == "nul_removed"]
    assert (nul["line"], nul["field"]) == (3, "model_output") and "NUL character (U+0000)" in nul["message"]
    items[2]["model_output"] = answer  # the NUL removed: scored as the publisher's matcher reads the rest
    assert report["metrics"]["accuracy"] == pytest.approx(released_mmau_accuracy(items), abs=1e-9)


# --- --missing-as-empty and null outputs ---------------------------------------------------------


@pytest.mark.parametrize("fmt", ROUTES)
def test_missing_as_empty_scores_publisher_items_without_an_output(tmp_path, capsys, mmau_refs, fmt) -> None:
    gold, items = mmau_refs
    del items[4]["model_output"]
    del items[7]["model_output"]
    items[9]["model_output"] = None
    run = write_json(items, tmp_path / "run.json")
    code, out = validate(capsys, "mmau", gold, run, *(["--predictions-format", "mmau"] if fmt else []))
    assert code == 1
    assert 'run.json:5: prediction: required field "prediction" is missing' in out  # both routes read it as uploaded
    assert ":10: prediction: warning: prediction is null; scored as an empty answer" in out
    scored_as_empty = [{**item, "model_output": item.get("model_output") or ""} for item in items]
    report = assert_scored_as_released_mmau(capsys, gold, run, scored_as_empty, "--missing-as-empty", fmt=fmt)
    assert report["missing_as_empty"] == 2
    assert without_empty(report["warnings"]["counts"]) == {"missing_as_empty": 2, "null_prediction": 1}


def test_empty_mcq_answers_are_warnings(tmp_path, capsys, mmau_refs) -> None:
    gold, items = mmau_refs
    items[3]["model_output"] = ""
    items[5]["model_output"] = "  \n"
    code, out = validate(capsys, "mmau", gold, write_json(items, tmp_path / "run.json"), "--predictions-format",
                         "mmau")
    assert code == 0, out
    assert "run.json: items 4, 13, 16 and 4 more: prediction: warning: prediction is empty" in out
    assert "run.json:6: prediction: warning: prediction is whitespace only" in out


@pytest.mark.parametrize("fmt", ROUTES)
def test_a_key_repeated_in_a_publisher_array_keeps_its_last_value_with_a_warning_naming_the_line(
        tmp_path, capsys, mmau_refs, fmt) -> None:
    gold, items = mmau_refs
    last = [dict(item) for item in items]
    last[6]["model_output"] = f"({'ABCD'[len(items[6]['choices']) - 1]}) {items[6]['choices'][-1]}"
    rows = [json.dumps(item) for item in items]
    rows[6] = rows[6][:-1] + f', "model_output": {json.dumps(last[6]["model_output"])}}}'
    run = tmp_path / "run.json"
    run.write_text("[\n" + ",\n".join(rows) + "\n]\n", encoding="utf-8")  # item 7 on line 8
    code, out = validate(capsys, "mmau", gold, run, *(["--predictions-format", "mmau"] if fmt else []))
    assert code == 0, out
    assert ('run.json:8: model_output: warning: key "model_output" appears more than once in an object; its last '
            "value is used, as Python's json reads it") in out
    report = assert_scored_as_released_mmau(capsys, gold, run, last, fmt=fmt)
    assert without_empty(report["warnings"]["counts"]) == {"repeated_key": 1}


# --- a byte-order mark ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ROUTES)
def test_publisher_files_with_a_bom_are_read(tmp_path, capsys, mmau_refs, fmt) -> None:
    gold, items = mmau_refs
    bom_gold = tmp_path / "bom-gold.json"
    bom_gold.write_bytes(b"\xef\xbb\xbf" + gold.read_bytes())
    run = tmp_path / "run.json"
    run.write_bytes(b"\xef\xbb\xbf" + json.dumps(items).encode())
    assert_scored_as_released_mmau(capsys, bom_gold, run, items, fmt=fmt)
    mitems = muchomusic_items(30, seed=8)
    music = tmp_path / "music.json"
    music.write_bytes(b"\xef\xbb\xbf" + json.dumps(mitems).encode())
    assert_scored_as_released_muchomusic(capsys, music, music, mitems, fmt=fmt)


# --- a JSON array of contract rows, and items without their options ------------------------------


@pytest.mark.parametrize("fmt", ROUTES)
def test_a_json_array_of_contract_rows_or_of_items_without_options_is_scored(tmp_path, capsys, mmau_refs,
                                                                            fmt) -> None:
    gold, items = mmau_refs
    contract = [{"id": item["id"], "prediction": item["model_output"]} for item in items]
    bare = [{"id": item["id"], "model_output": item["model_output"]} for item in items]
    for name, rows in (("contract.json", contract), ("bare.json", bare)):
        assert_scored_as_released_mmau(capsys, gold, write_json(rows, tmp_path / name), items, fmt=fmt)
    mitems = muchomusic_items(30, seed=8)
    music = write_json(mitems, tmp_path / "music.json")
    contract_music = [{"id": f"{item['id']}::Which description fits track part {i}?",
                       "prediction": item["model_output"]} for i, item in enumerate(mitems)]
    contract_run = write_json(contract_music, tmp_path / "music-contract.json")
    assert_scored_as_released_muchomusic(capsys, music, contract_run, mitems, fmt=fmt)


@pytest.mark.parametrize("fmt", ROUTES)
def test_a_repeated_contract_row_in_a_json_array_is_a_duplicate_id_as_in_jsonl(tmp_path, capsys, mmau_refs,
                                                                               fmt) -> None:
    gold, items = mmau_refs
    contract = [{"id": item["id"], "prediction": item["model_output"]} for item in items]
    code, report = score_mmau(capsys, gold, write_json([*contract, contract[0]], tmp_path / "repeat.json"), fmt=fmt)
    assert code == 1 and isinstance(report, str)
    assert f'id "{items[0]["id"]}" already on item 1' in report


# --- Jamendo-MT-QA records as evaluate.py reads them ----------------------------------------------


def test_jamendo_records_are_scored_as_evaluate_py_scores_them(tmp_path, capsys) -> None:
    records = jamendo_records()
    path = write_json(records, tmp_path / "results.json")
    code, out, err = run_cli(capsys, "score", "--benchmark", "jamendo-mt-qa", "--references", path,
                             "--references-format", "jamendo", "--predictions", path, "--predictions-format",
                             "jamendo", "--no-bertscore", "--bootstrap", "10")
    assert code == 0, out + err
    report = json.loads(out)
    expected = evaluate_py(records)
    for key, value in expected.items():
        assert report["metrics"][key] == pytest.approx(value, abs=1e-9), key
    assert report["n_items"] == len(records) - 1
    counts = report["warnings"]["counts"]
    assert counts["derived_pair_id"] == 2 * len(records)  # once for the references, once for the predictions
    assert counts["empty_gold_answer"] == 1 and counts["unknown_qa_type"] == 1 and counts["empty_question"] == 1
    assert counts["falsy_prediction"] == 2 and counts["null_prediction"] == 1
    messages = {w["message"] for w in report["warnings"]["first"]} if "first" in report["warnings"] else set()
    assert not messages or any('"rock_Track0__jazz_Song0"' in m for m in messages)


def test_jamendo_ids_derived_from_the_tracks_match_references_with_pair_ids(tmp_path, capsys) -> None:
    records = jamendo_records()
    with_ids = [{**r, "pair_id": f"{r['audio1']}__{r['audio2']}"} for r in records]
    refs = write_json(with_ids, tmp_path / "references.json")
    preds = write_json(records, tmp_path / "results.json")
    code, out, err = run_cli(capsys, "validate", "--benchmark", "jamendo-mt-qa", "--references", refs,
                             "--references-format", "jamendo", "--predictions", preds, "--predictions-format",
                             "jamendo")
    assert code == 0, out + err
    assert 'results.json:1: pair_id: warning: 90 record(s) have no pair_id' in out


# --- M2UGen results with predictions for unknown questions ----------------------------------------


def test_m2ugen_results_with_extra_questions_score_the_known_items(tmp_path, capsys) -> None:
    rng = random.Random(2)
    eval_items = [{"audio_name": f"a{i}.wav", "conversation": [
        {"from": "human", "value": f"What instrument plays in part {i}?"},
        {"from": "gpt", "value": " ".join(rng.sample(WORDS, 6))}]} for i in range(12)]
    refs = write_json(eval_items, tmp_path / "EvalMusicQA.json")
    results = {i["audio_name"]: {i["conversation"][0]["value"]: " ".join(rng.sample(WORDS, 5))} for i in eval_items}
    known = write_json(results, tmp_path / "known.json")
    results["a3.wav"]["A question not in the references?"] = "piano"
    results["unlisted.wav"] = {"Anything?": "drums"}
    extra = write_json(results, tmp_path / "extra.json")
    reports = []
    for path in (known, extra):
        code, out, err = run_cli(capsys, "score", "--benchmark", "musicqa", "--references", refs,
                                 "--references-format", "musicqa", "--predictions", path, "--predictions-format",
                                 "m2ugen-predictions", "--no-bertscore", "--bootstrap", "10")
        assert code == 0, out + err
        reports.append(json.loads(out))
    assert reports[1]["metrics"] == reports[0]["metrics"]
    assert reports[1]["warnings"]["counts"] == {"unknown_id_ignored": 2}
    # the JSONL contract keeps refusing unknown ids
    lines = [{"id": f"{a}::{q}", "prediction": p} for a, qs in results.items() for q, p in qs.items()]
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    code, out, err = run_cli(capsys, "validate", "--benchmark", "musicqa", "--references", refs,
                             "--references-format", "musicqa", "--predictions", jsonl)
    assert code == 1
    assert 'run.jsonl:5: id: id "a3.wav::A question not in the references?" is not an item of' in out
    assert 'run.jsonl:14: id: id "unlisted.wav::Anything?" is not an item of' in out


# --- repeated items and whitespace around options ------------------------------------------------


@pytest.mark.parametrize("fmt", ROUTES)
def test_an_item_repeated_with_the_same_answer_is_scored_once_with_a_warning(tmp_path, capsys, mmau_refs,
                                                                             fmt) -> None:
    gold, items = mmau_refs
    repeated = [*items, {**items[5], "model_output": f"  {items[5]['model_output']}\n"}]
    report = assert_scored_as_released_mmau(capsys, gold, write_json(repeated, tmp_path / "run.json"), items, fmt=fmt)
    assert without_empty(report["warnings"]["counts"]) == {"repeated_item": 1}
    conflicting = [*items, {**items[5], "model_output": items[5]["choices"][0] + " " + items[5]["choices"][1]}]
    code, out = score_mmau(capsys, gold, write_json(conflicting, tmp_path / "run2.json"), fmt=fmt)
    assert code == 1
    assert f':61: id: id "{items[5]["id"]}" already on item 6' in out


@pytest.mark.parametrize("fmt", ROUTES)
def test_options_differing_only_in_surrounding_whitespace_are_accepted(tmp_path, capsys, mmau_refs, fmt) -> None:
    gold_path, items = mmau_refs
    gold = json.loads(gold_path.read_text())
    for item in gold[:6]:  # as 6 test-mini items have: spaces around choices and answer
        item["choices"] = [f" {c} " for c in item["choices"]]
        item["answer"] = f"{item['answer']} "
    write_json(gold, gold_path)
    assert_scored_as_released_mmau(capsys, gold_path, write_json(items, tmp_path / "run.json"), items, fmt=fmt)
    items[8]["choices"] = list(reversed(items[8]["choices"]))
    code, out = score_mmau(capsys, gold_path, write_json(items, tmp_path / "run.json"), fmt=fmt)
    assert code == 1 and ":9: options: options differ from the published options" in out


def test_real_test_mini_items_with_spaced_choices_validate_stripped(tmp_path, capsys) -> None:
    from tests.helpers.shared import shared_file

    gold = shared_file("data", "mmau", "mmau-test-mini.json")
    items = json.loads(gold.read_text(encoding="utf-8"))
    spaced = [i for i in items if any(c != c.strip() for c in i["choices"]) or i["answer"] != i["answer"].strip()]
    assert len(spaced) == 6
    for item in items:
        item["choices"] = [c.strip() for c in item["choices"]]
        item["model_output"] = item["answer"].strip()
    code, report = score_mmau(capsys, gold, write_json(items, tmp_path / "run.json"))
    assert code == 0, report
    assert isinstance(report, dict) and report["metrics"]["accuracy"] == 100.0


# --- nesting too deep to parse -------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ROUTES)
def test_publisher_array_nested_too_deep_is_an_error_naming_the_line(tmp_path, capsys, mmau_refs, fmt) -> None:
    gold, items = mmau_refs
    run = tmp_path / "run.json"
    run.write_text(json.dumps(items[:3])[:-1] + ",\n" + "[" * 50_000 + "]" * 50_000 + "]", encoding="utf-8")
    code, out = score_mmau(capsys, gold, run, fmt=fmt)
    assert code == 1
    assert "run.json:2: JSON nesting is too deep" in out


@pytest.mark.parametrize("benchmark", ["mmau", "jamendo-mt-qa"])
def test_a_jsonl_line_of_200000_brackets_is_an_error_naming_the_line(tmp_path, capsys, benchmark) -> None:
    if benchmark == "mmau":
        refs = write_json([{k: v for k, v in i.items() if k != "model_output"} for i in mmau_items(3, 1)],
                          tmp_path / "gold.json")
        fmt = "mmau"
    else:
        refs = write_json(jamendo_records()[:3], tmp_path / "gold.json")
        fmt = "jamendo"
    run = tmp_path / "run.jsonl"
    run.write_text("[" * 200_000 + "]" * 200_000 + "\n", encoding="utf-8")
    for command in ("validate", "score"):
        code, out, err = run_cli(capsys, command, "--benchmark", benchmark, "--references", refs,
                                 "--references-format", fmt, "--predictions", run)
        assert code == 1
        assert "run.jsonl:1: JSON nesting is too deep" in out + err


@pytest.mark.parametrize("fmt", ["musicqa", "jamendo"])
def test_other_publisher_files_nested_too_deep_name_the_line(tmp_path, capsys, fmt) -> None:
    path = tmp_path / "deep.json"
    path.write_text('[{"a": 1},\n{"b":\n' + "[" * 50_000 + "]" * 50_000 + "}]", encoding="utf-8")
    code, out, _ = run_cli(capsys, "convert", "--format", fmt, "--input", path, "--references-out",
                             tmp_path / "refs.jsonl")
    assert code == 1
    assert out.splitlines() == ["deep.json:3: JSON nesting is too deep"]


# --- unreadable publisher files: the same words and places as JSON Lines ------------------------


@pytest.mark.parametrize("fmt", ROUTES)
def test_invalid_utf8_in_a_publisher_array_names_its_line_and_column(tmp_path, capsys, mmau_refs, fmt) -> None:
    gold, items = mmau_refs
    items[1]["model_output"] = "PLACEHOLDER"
    data = json.dumps(items, indent=1).encode().replace(b'"PLACEHOLDER"', b'"bass \xff line"')
    line = data[: data.index(b"\xff")].count(b"\n") + 1
    column = data.index(b"\xff") - data.rfind(b"\n", 0, data.index(b"\xff"))
    (tmp_path / "run.json").write_bytes(data)
    code, out = score_mmau(capsys, gold, tmp_path / "run.json", fmt=fmt)
    assert code == 1 and line > 1
    assert (f"run.json:{line}: the file is not UTF-8: it looks like Latin-1 (ISO-8859-1) or Windows-1252: byte 0xff at "
            f"column {column}") in out


@pytest.mark.parametrize("fmt", ROUTES)
@pytest.mark.parametrize(("head", "said"), [(b"\x1f\x8b\x08\x00", "this is a gzip file"),
                                            (b"\xff\xfe[\x00", "the file is UTF-16 little-endian, not UTF-8")])
def test_a_compressed_or_utf16_publisher_file_is_named_as_such(tmp_path, capsys, mmau_refs, fmt, head, said) -> None:
    gold, _ = mmau_refs
    (tmp_path / "run.json").write_bytes(head + b"\x00" * 64)
    code, out = score_mmau(capsys, gold, tmp_path / "run.json", fmt=fmt)
    assert code == 1 and f"run.json:0: {said}" in out


def test_a_number_past_pythons_digit_limit_is_named_in_plain_words(tmp_path, capsys, mmau_refs) -> None:
    gold, items = mmau_refs
    run = tmp_path / "run.jsonl"
    run.write_text(f'{{"id": "{items[0]["id"]}", "prediction": "x", "confidence": {"9" * 5000}}}\n')
    code, out = score_mmau(capsys, gold, run, fmt=False)
    assert code == 1 and isinstance(out, str)
    assert "run.jsonl:1: not valid JSON: a number has more than 4,300 digits" in out
    assert "sys.set_int_max_str_digits" not in out
