"""docs/scoring.md's statements about accepted inputs, quoted from the page itself and checked on every
benchmark family and route (JSONL contract, ``--predictions-format``), so the doc and the code cannot drift."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scoring.cli import main
from scoring.publishers.importers import import_jamendo, import_musicqa
from scoring.publishers.mcq_importers import import_muchomusic_references
from scoring.reading.jsonl import MAX_LINE_BYTES
from tests.helpers.evaluate_py import evaluate_py
from tests.helpers.mcq_data import muchomusic_items, write_json
from tests.helpers.publisher_files import mmau_items, released_mmau_accuracy

SCORING_DOC = " ".join((Path(__file__).resolve().parents[2] / "docs" / "scoring.md").read_text(encoding="utf-8")
                       .split())


def docs_say(sentence: str) -> None:
    assert " ".join(sentence.split()) in SCORING_DOC, f"docs/scoring.md no longer says: {sentence}"


# --- one small reference file per benchmark family, in its publisher's format ------------------------


def _jamendo(tmp: Path) -> tuple[Path, list[str], dict[str, Any]]:
    records = [{"pair_id": f"a{i}__b{i}", "audio1": f"a{i}", "audio2": f"b{i}", "qa_type": qa_type,
                "question": f"Q {i}?", "gold_answer": {"yes_no": "Yes", "short_answer": f"a{i}",
                                                       "sentence": f"a{i} is warm and b{i} is bright."}[qa_type]}
               for i in range(4) for qa_type in ("yes_no", "short_answer", "sentence")]
    path = write_json(records, tmp / "records.json")
    return path, [r["id"] for r in import_jamendo(path)[0]], {}


def _musicqa(tmp: Path) -> tuple[Path, list[str], dict[str, Any]]:
    items = [{"audio_name": f"m{i}.wav", "conversation": [{"from": "human", "value": f"What plays {i}?"},
                                                           {"from": "gpt", "value": f"A warm piano {i}."}]}
             for i in range(6)]
    path = write_json(items, tmp / "EvalMusicQA.json")
    return path, [r["id"] for r in import_musicqa(path)], {}


def _mmau(tmp: Path) -> tuple[Path, list[str], dict[str, Any]]:
    items = mmau_items(9, seed=2)
    path = write_json([{k: v for k, v in i.items() if k != "model_output"} for i in items], tmp / "gold.json")
    return path, [i["id"] for i in items], {}


def _muchomusic(tmp: Path) -> tuple[Path, list[str], dict[str, Any]]:
    path = write_json(muchomusic_items(8, seed=1), tmp / "muchomusic.json")
    return path, [r["id"] for r in import_muchomusic_references(path)], {}


FAMILIES: dict[str, tuple[str, str, Callable[[Path], tuple[Path, list[str], dict[str, Any]]]]] = {
    "jamendo-mt-qa": ("jamendo", "jamendo", _jamendo),
    "musicqa": ("musicqa", "musicqa", _musicqa),
    "mmau": ("mmau", "mmau", _mmau),
    "muchomusic": ("muchomusic", "muchomusic", _muchomusic),
}


def run_cli(capsys: pytest.CaptureFixture[str], *args: Any) -> tuple[int, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def predictions_file(tmp: Path, ids: list[str], answers: dict[int, Any], *, drop: tuple[int, ...] = (),
                     raw: dict[int, str] | None = None) -> Path:
    """JSONL: item i answers ``answers[i]`` (default "warm piano"), ``raw[i]`` is written as is."""
    lines = []
    for i, item_id in enumerate(ids):
        if i in drop:
            continue
        if raw and i in raw:
            lines.append(raw[i].replace("ID", json.dumps(item_id)))
        else:
            lines.append(json.dumps({"id": item_id, "prediction": answers.get(i, "warm piano")}))
    path = tmp / "run.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def cli_args(benchmark: str, refs: Path, run: Path, *extra: Any) -> list[Any]:
    return ["--benchmark", benchmark, "--references", refs, "--references-format", FAMILIES[benchmark][0],
            "--predictions", run, *extra]


@pytest.fixture(params=list(FAMILIES))
def family(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path, list[str]]:
    benchmark = request.param
    refs, ids, _ = FAMILIES[benchmark][2](tmp_path)
    return benchmark, refs, ids


# --- the documented sentences ----------------------------------------------------------------------


def test_answers_of_any_length_are_scored_within_the_line_limit(tmp_path, capsys, family) -> None:
    docs_say("Answers of any length are scored; a prediction *line* may hold at most 1 MiB "
                "(`scoring.reading.jsonl.MAX_LINE_BYTES`).")
    assert MAX_LINE_BYTES == 1 << 20
    benchmark, refs, ids = family
    run = predictions_file(tmp_path, ids, {0: "warm piano " * 5_000})  # 55,000 characters
    code, out = run_cli(capsys, "validate", *cli_args(benchmark, refs, run))
    assert code == 0, out
    run = predictions_file(tmp_path, ids, {1: "x" * MAX_LINE_BYTES})
    code, out = run_cli(capsys, "validate", *cli_args(benchmark, refs, run))
    assert code == 1 and re.search(r"run\.jsonl:2: line is 1,048,\d{3} bytes; the limit is 1,048,576", out), out


def test_lone_surrogates_are_errors_and_nul_characters_warnings_naming_file_line_and_field(tmp_path, capsys,
                                                                                          family) -> None:
    docs_say("A string holding a lone surrogate (e.g. the JSON escape `\\ud800`), or a key holding U+0000, is an "
             "error naming file, line and field; a NUL character (`\\u0000`) inside a value cannot be stored either, "
             "but the answer is scored: the character is removed, with a warning naming file, line and field")
    benchmark, refs, ids = family
    run = predictions_file(tmp_path, ids, {}, raw={2: '{"id": ID, "prediction": "warm \\udc00"}'})
    code, out = run_cli(capsys, "validate", *cli_args(benchmark, refs, run))
    assert code == 1
    assert "run.jsonl:3: prediction: prediction contains a lone surrogate (U+DC00), which cannot be stored; " \
           "remove it" in out
    run = predictions_file(tmp_path, ids, {}, raw={2: '{"id": ID, "prediction": "warm \\u0000"}'})
    code, out = run_cli(capsys, "validate", *cli_args(benchmark, refs, run))
    assert code == 0, out
    assert "run.jsonl:3: prediction: warning: prediction contains a NUL character (U+0000), which cannot be " \
           "stored: removed" in out


def test_items_without_a_prediction_are_an_error_or_empty_when_asked(tmp_path, capsys, family) -> None:
    docs_say("Items without a prediction are an error (how many, and the first ids); `--missing-as-empty` scores "
                "them as empty predictions instead and says so (`missing_as_empty` in the report)")
    benchmark, refs, ids = family
    run = predictions_file(tmp_path, ids, {}, drop=(1,))
    code, out = run_cli(capsys, "validate", *cli_args(benchmark, refs, run))
    assert code == 1
    assert f'run.jsonl:0: id: 1 of {len(ids)} items have no prediction in run.jsonl: "{ids[1]}"' in out
    code, out = run_cli(capsys, "score", *cli_args(benchmark, refs, run, "--missing-as-empty", "--no-bertscore",
                                                   "--bootstrap", "5"))
    assert code == 0, out
    assert json.loads(out[out.index("{"):out.rindex("}") + 1])["missing_as_empty"] == 1


def test_empty_whitespace_and_null_predictions_are_scored_and_warned(tmp_path, capsys, family) -> None:
    docs_say("Empty, whitespace-only and `null` predictions (null = `\"\"`: MMAR's and CMI-Bench's scripts stop on a "
                "null answer, the others read it as empty) are scored exactly as each evaluator scores an empty answer")
    docs_say("reported as **warnings** (`FILE:LINE: field: warning: message`; `validate` exits 0 when there are "
                "only warnings;")
    benchmark, refs, ids = family
    run = predictions_file(tmp_path, ids, {0: "", 1: " \n", 2: None})
    code, out = run_cli(capsys, "validate", *cli_args(benchmark, refs, run))
    assert code == 0, out
    assert "run.jsonl:1: prediction: warning: prediction is empty" in out
    assert "run.jsonl:2: prediction: warning: prediction is whitespace only" in out
    assert "run.jsonl:3: prediction: warning: prediction is null; scored as an empty answer" in out


def test_mcq_empty_and_null_answers_are_wrong_and_warned(tmp_path, capsys) -> None:
    docs_say("an empty or `null` answer is scored as wrong and reported as a warning.")
    refs, _, _ = _mmau(tmp_path)
    items = mmau_items(9, seed=2)
    items[0]["model_output"], items[1]["model_output"] = "", None
    run = write_json(items, tmp_path / "run.json")
    code, out = run_cli(capsys, "score", *cli_args("mmau", refs, run, "--predictions-format", "mmau",
                                                   "--bootstrap", "5"))
    assert code == 0, out
    report = json.loads(out[out.index("{"):out.rindex("}") + 1])
    scored = [{**i, "model_output": i["model_output"] or ""} for i in items]
    assert report["metrics"]["accuracy"] == pytest.approx(released_mmau_accuracy(scored), abs=1e-9)
    assert report["warnings"]["counts"]["null_prediction"] == 1
    assert report["warnings"]["counts"]["empty_prediction"] >= 1


@pytest.mark.parametrize("benchmark", list(FAMILIES))
def test_importers_read_bom_crlf_and_line_separators_inside_strings(tmp_path, capsys, benchmark) -> None:
    docs_say("importers read BOM, CRLF and U+2028/U+2029/U+0085 inside strings.")
    fmt = FAMILIES[benchmark][1]
    refs, ids, _ = FAMILIES[benchmark][2](tmp_path)
    data: Any = json.loads(refs.read_text(encoding="utf-8"))
    separators = "warm\u2028piano\u2029bass\u0085drums"
    if benchmark == "musicqa":
        results = {i["audio_name"]: {i["conversation"][0]["value"]: separators} for i in data}
        fmt = "m2ugen-predictions"
        data = results
    elif benchmark == "mmau":
        data = [{**item, "model_output": separators} for item in data]
    else:
        for item in data:
            item["prediction" if benchmark == "jamendo-mt-qa" else "model_output"] = separators
    for path in (refs, tmp_path / "run.json"):
        text = json.dumps(data if path.name == "run.json" else json.loads(refs.read_text()), indent=1,
                          ensure_ascii=False)
        path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8"))
    code, out = run_cli(capsys, "score", *cli_args(benchmark, refs, tmp_path / "run.json", "--predictions-format",
                                                   fmt, "--no-bertscore", "--bootstrap", "5"))
    assert code == 0, out
    assert len(ids) == json.loads(out[out.index("{"):out.rindex("}") + 1])["n_items"]


@pytest.mark.parametrize("fmt", [True, False], ids=["predictions-format", "json-array-read-as-is"])
def test_publisher_files_ignore_unknown_items_and_score_identical_repeats_once(tmp_path, capsys, fmt) -> None:
    docs_say("a prediction for an item the references lack is ignored with a warning, and only the released items "
                "are scored (scripts that score a result file row by row, as MMAR's and CMI-Bench's do, would count "
                "it; the JSONL contract refuses unknown ids); gold fields inside a prediction file (MMAR's `answer`, "
                "CMI-Bench's `correct_answer`) are never read: the references are the released file; an "
                "MMAU/MuChoMusic item listed twice with the same answer (surrounding whitespace aside) is scored once "
                "(the released scripts count every copy; two different answers are an error).")
    refs, _, _ = _mmau(tmp_path)
    items = mmau_items(9, seed=2)
    extra = {**mmau_items(12, seed=9)[10], "id": "not-in-the-gold"}
    run = write_json([*items, extra, {**items[4], "model_output": items[4]["model_output"] + "  "}],
                     tmp_path / "run.json")
    flags = ["--predictions-format", "mmau"] if fmt else []
    code, out = run_cli(capsys, "score", *cli_args("mmau", refs, run, *flags, "--bootstrap", "5"))
    assert code == 0, out
    report = json.loads(out[out.index("{"):out.rindex("}") + 1])
    assert report["warnings"]["counts"]["unknown_id_ignored"] == 1
    assert report["warnings"]["counts"]["repeated_item"] == 1
    assert report["metrics"]["accuracy"] == pytest.approx(released_mmau_accuracy(items), abs=1e-9)
    jsonl = predictions_file(tmp_path, [*(i["id"] for i in items), "not-in-the-gold"], {})
    code, out = run_cli(capsys, "validate", *cli_args("mmau", refs, jsonl))
    assert code == 1 and 'run.jsonl:10: id: id "not-in-the-gold" is not an item of' in out


def test_jamendo_records_without_pair_id_get_the_released_pair_id(tmp_path, capsys) -> None:
    docs_say("a Jamendo record without `pair_id` (evaluate.py's docstring lists none) gets `<audio1>__<audio2>`, "
                "the released files' pair id; `gold_answer: null` is an empty gold answer, a falsy `prediction` "
                "(`0`, `false`) is `\"\"`, `qa_type: null` is left out, an empty question is scored;")
    refs, ids, _ = _jamendo(tmp_path)
    records = json.loads(refs.read_text())
    for record in records:
        del record["pair_id"]
        record["prediction"] = "Yes"
    records[0]["gold_answer"], records[1]["prediction"], records[2]["qa_type"] = None, 0, None
    records[3]["question"] = ""
    run = write_json(records, tmp_path / "run.json")
    code, out = run_cli(capsys, "score", *cli_args("jamendo-mt-qa", run, run, "--predictions-format", "jamendo",
                                                   "--no-bertscore", "--bootstrap", "5"))
    assert code == 0, out
    report = json.loads(out[out.index("{"):out.rindex("}") + 1])
    assert report["n_items"] == len(ids) - 1  # the null qa_type is left out
    assert report["warnings"]["counts"]["falsy_prediction"] == 1
    assert report["warnings"]["counts"]["empty_gold_answer"] == 1
    assert report["warnings"]["counts"]["empty_question"] == 1
    derived = [w for w in report["warnings"]["first"] if w["kind"] == "derived_pair_id"]
    assert derived and '(this one: "a0__b0")' in derived[0]["message"] and derived[0]["line"] == 1
    for key, value in evaluate_py(records).items():  # the null gold answer wrong, the falsy answer ""
        assert report["metrics"][key] == pytest.approx(value, abs=1e-9), key
    assert report["metrics"]["yes_no_accuracy"] == 3 / 4
