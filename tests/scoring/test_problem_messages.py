"""Errors that teach, on the released MMAU test-mini and MMAR files: alike problems grouped into one line with a
count and the first lines, a file that is not UTF-8 named by the encoding it looks like, a CSV, another
benchmark's file and a misnamed answer key each named once, and a one-line JSON array's problems named by item.
Every expected message is written out in full; positions are counted here from the bytes written."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path
from typing import Any

import pytest

from scoring.cli import main
from scoring.reading.problems import ProblemLog
from tests.helpers.shared import shared_file

MMAR = ("data", "mmar", "MMAR-meta.jsonl")
MMAU = ("data", "mmau", "mmau-test-mini.json")


def _mmar_items() -> list[dict[str, Any]]:
    return [json.loads(line) for line in shared_file(*MMAR).read_text(encoding="utf-8").splitlines() if line.strip()]


def _mmau_items() -> list[dict[str, Any]]:
    return json.loads(shared_file(*MMAU).read_text(encoding="utf-8"))


def _messy(item: dict[str, Any], rng: random.Random) -> str:
    """A model's answer as models write them: a chosen option in one of several wrappings, accents, quotes."""
    choice = rng.choice([c for c in item["choices"] if c.strip()] or ["?"])
    return rng.choice([f"Réponse: {choice}", f'The answer is "{choice}".', f"({choice}) — sûrement",
                       f"{choice}\n\nBecause the timbre is bright.", f"  {choice.upper()}  ", "Je ne sais pas."])


def _run(capsys: pytest.CaptureFixture[str], benchmark: str, run: Path, *extra: str) -> tuple[int, list[str], str]:
    """``validate`` on the released references: the exit code, the error lines (warnings left out), stderr."""
    refs = shared_file(*(MMAR if benchmark == "mmar" else MMAU))
    code = main(["validate", "--benchmark", benchmark, "--references", str(refs), "--references-format", benchmark,
                 "--predictions", str(run), *extra])
    out, err = capsys.readouterr()
    return code, [line for line in out.splitlines() if "warning:" not in line], err


def _contract_lines(items: list[dict[str, Any]], seed: int = 5) -> str:
    rng = random.Random(seed)
    return "".join(json.dumps({"id": item["id"], "prediction": _messy(item, rng)}, ensure_ascii=False) + "\n"
                   for item in items)


def _first_foreign_byte(data: bytes) -> tuple[int, int, int]:
    """(line, column, byte) of the first byte above 0x7f, both 1-based."""
    offset = next(i for i, b in enumerate(data) if b > 0x7F)
    return data.count(b"\n", 0, offset) + 1, offset - (data.rfind(b"\n", 0, offset) + 1) + 1, data[offset]


@pytest.mark.parametrize(("codec", "named"), [("latin-1", "Latin-1 (ISO-8859-1) or Windows-1252"),
                                              ("cp1252", "Windows-1252 (cp1252)")])
def test_a_latin1_or_cp1252_file_is_one_problem_naming_the_encoding(tmp_path: Path, capsys: Any, codec: str,
                                                                    named: str) -> None:
    text = _contract_lines(_mmar_items())
    assert "—" in text  # the em dash: 0x97 in cp1252, not in Latin-1
    data = text.encode(codec, errors="replace")
    run = tmp_path / "run.jsonl"
    run.write_bytes(data)
    line, column, byte = _first_foreign_byte(data)
    char = bytes([byte]).decode(codec)
    word = next(w for w in data.split(b"\n")[line - 1].decode(codec).split(" ") if char in w).strip('"{}:,')
    code, errors, err = _run(capsys, "mmar", run)
    assert code == 1
    assert errors == [f'run.jsonl:{line}: the file is not UTF-8: it looks like {named}: byte 0x{byte:02x} at column '
                      f'{column} is "{char}" there, as in "{word}"; save it as UTF-8']
    assert "1 problem(s) (encoding: 1)" in err  # not one per line, and no "1,000 items have no prediction"


@pytest.mark.parametrize(("codec", "named"), [
    ("utf-16", "UTF-16 little-endian"), ("utf-16-le", "UTF-16 little-endian without a byte-order mark"),
    ("utf-16-be", "UTF-16 big-endian without a byte-order mark"), ("utf-32", "UTF-32 little-endian")])
def test_a_utf16_or_utf32_file_is_named_with_or_without_its_byte_order_mark(tmp_path: Path, capsys: Any, codec: str,
                                                                            named: str) -> None:
    run = tmp_path / "run.jsonl"
    run.write_bytes(_contract_lines(_mmar_items()).encode(codec))
    code, errors, err = _run(capsys, "mmar", run)
    assert code == 1 and errors == [f"run.jsonl:0: the file is {named}, not UTF-8; save it as UTF-8"]
    assert "1 problem(s) (encoding: 1)" in err


@pytest.mark.parametrize(("delimiter", "kind"), [(",", "CSV"), ("\t", "TSV")])
def test_a_csv_renamed_jsonl_is_named_once(tmp_path: Path, capsys: Any, delimiter: str, kind: str) -> None:
    rng = random.Random(2)
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter)
    writer.writerow(["id", "prediction", "model"])
    for item in _mmar_items():
        writer.writerow([item["id"], _messy(item, rng), "my-model, v2"])
    run = tmp_path / "run.jsonl"
    run.write_text(buffer.getvalue(), encoding="utf-8")
    code, errors, err = _run(capsys, "mmar", run)
    assert code == 1 and errors == [
        f'run.jsonl:1: this is a {kind} (columns: id, prediction, model), not JSON Lines: write one JSON object per '
        'line, such as {"id": "...", "prediction": "..."} with the fields the benchmark reads']
    assert "1 problem(s) (csv_file: 1)" in err


def test_an_mmau_file_sent_to_mmar_is_named_as_mmau(tmp_path: Path, capsys: Any) -> None:
    rng = random.Random(3)
    items = [{**item, "model_output": _messy(item, rng)} for item in _mmau_items()]
    run = tmp_path / "run.json"
    run.write_text(json.dumps(items, indent=2, ensure_ascii=False), encoding="utf-8")
    code, errors, err = _run(capsys, "mmar", run)
    assert code == 1 and errors == [
        f'run.json:0: this looks like an MMAU file (keys audio_id, choices and ids like "{items[0]["id"]}"), '
        "not one of MMAR (mmar): its ids are no items of this split; wrong benchmark or split?"]
    assert "1 problem(s) (wrong_benchmark: 1)" in err


def test_an_mmar_file_sent_to_mmau_is_named_as_mmar(tmp_path: Path, capsys: Any) -> None:
    rng = random.Random(4)
    items = _mmar_items()
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps({**item, "answer_prediction": _messy(item, rng)}, ensure_ascii=False) + "\n"
                           for item in items), encoding="utf-8")
    code, errors, _ = _run(capsys, "mmau", run)
    assert code == 1 and errors == [
        "run.jsonl:0: this looks like an MMAR file (keys audio_path, choices, modality and ids like "
        f'"{items[0]["id"]}"), not one of MMAU (mmau): its ids are no items of this split; wrong benchmark or split?']


def test_a_misnamed_answer_key_is_named_once_with_the_key_the_format_reads(tmp_path: Path, capsys: Any) -> None:
    rng = random.Random(6)
    items = _mmar_items()
    rows = [{**item, "model_prediction": _messy(item, rng)} for item in items]
    rows[17] = {**items[17], "answer_prediction": _messy(items[17], rng)}  # one row already right
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    code, errors, err = _run(capsys, "mmar", run)
    assert code == 1 and errors == [
        f'run.jsonl:0: answer_prediction: found "model_prediction" on {len(items) - 1:,} of {len(items):,} lines and '
        'no "answer_prediction": the MMAR format reads "answer_prediction"; rename the key']
    assert "1 problem(s) (misnamed_key: 1)" in err


def test_a_misnamed_key_in_the_jsonl_contract(tmp_path: Path, capsys: Any) -> None:
    rng = random.Random(7)
    items = _mmau_items()
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps({"id": item["id"], "pred": _messy(item, rng)}, ensure_ascii=False) + "\n"
                           for item in items), encoding="utf-8")
    code, errors, _ = _run(capsys, "mmau", run)
    assert code == 1 and errors == [
        'run.jsonl:0: prediction: found "pred" on 1,000 of 1,000 lines and no "prediction": mmau\'s JSON Lines '
        'contract reads "prediction"; rename the key']


def test_alike_problems_are_one_line_with_a_count_and_the_first_lines(tmp_path: Path, capsys: Any) -> None:
    rng = random.Random(8)
    items = _mmar_items()
    rows = [{**item, "answer_prediction": _messy(item, rng)} for item in items]
    unanswered = sorted(rng.sample(range(len(rows)), 7))
    for n in unanswered:
        del rows[n]["answer_prediction"]  # the released script skips these rows; here each is an error
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    code, errors, err = _run(capsys, "mmar", run)
    first = ", ".join(str(n + 1) for n in unanswered[:3])
    assert code == 1 and errors == [f'run.jsonl: lines {first} and 4 more: prediction: required field "prediction" '
                                    "is missing"]
    assert "7 problem(s) (missing_field: 7)" in err


def test_a_one_line_json_array_names_items_not_lines(tmp_path: Path, capsys: Any) -> None:
    rng = random.Random(9)
    items = [{**item, "model_output": _messy(item, rng)} for item in _mmau_items()]
    missing = [2, 9, 63, 400, 998]  # 0-based
    for n in missing:
        del items[n]["model_output"]
    run = tmp_path / "run.json"
    run.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    assert run.read_text(encoding="utf-8").count("\n") == 0
    code, errors, _ = _run(capsys, "mmau", run)
    assert code == 1 and errors == [
        'run.json: items 3, 10, 64 and 2 more: prediction: required field "prediction" is missing']


def test_a_broken_one_line_json_array_names_the_item(tmp_path: Path, capsys: Any) -> None:
    items = [{**item, "model_output": item["choices"][0]} for item in _mmau_items()]
    parts = [json.dumps(item, ensure_ascii=False) for item in items]
    parts[63] = parts[63].replace('"question": ', '"question" ', 1)  # item 64 loses a colon
    text = "[" + ", ".join(parts) + "]"
    position = text.index('"question" "') + len('"question" ')
    run = tmp_path / "run.json"
    run.write_text(text, encoding="utf-8")
    code, errors, _ = _run(capsys, "mmau", run)
    assert code == 1 and errors == [f"run.json:64: not a JSON document: Expecting ':' delimiter in item 64 of the "
                                    f"array (character {position + 1:,} of the line)"]


def test_groups_keep_exact_counts_past_the_listing_bound() -> None:
    log = ProblemLog(keep=2)
    for line in range(1, 1001):
        log.add("run.jsonl", line, "encoding", f"not valid UTF-8 (byte 0xe9 at column {line % 7 + 1})")
    log.add("run.jsonl", 5, "not_json", "not valid JSON: Expecting value (column 1)")
    log.add("run.jsonl", 6, "too_deep", "JSON nesting is too deep")  # a third kind: past keep=2, counted only
    (encoding, not_json) = log.problems
    assert (encoding.count, encoding.lines, encoding.varied) == (1000, (1, 2, 3), True)
    assert str(encoding) == ("run.jsonl: lines 1, 2, 3 and 997 more: e.g. line 1: not valid UTF-8 (byte 0xe9 at "
                             "column 2)")
    assert str(not_json) == "run.jsonl:5: not valid JSON: Expecting value (column 1)"
    assert log.counts == {"encoding": 1000, "not_json": 1, "too_deep": 1} and log.total == 1002
    assert encoding.as_dict() == {
        "file": "run.jsonl", "line": 1, "field": None, "kind": "encoding",
        "message": "not valid UTF-8 (byte 0xe9 at column 2)", "severity": "error", "count": 1000,
        "lines": [1, 2, 3], "unit": "line", "where": "lines 1, 2, 3 and 997 more", "varied": True}
