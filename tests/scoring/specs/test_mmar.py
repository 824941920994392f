"""MMAR scored as ddlBoJack/MMAR ``code/evaluation.py`` (@ 3bce090a) scores it, on the released
MMAR-meta.jsonl with real-model-like answers, through the CLI with the publisher's own files.

``released_evaluation`` below is written in this test from the released script's rules (its
``string_match`` and its per-modality / per-layer / per-sub-category / Total counting), not
from ``scoring``.
"""

from __future__ import annotations

import io
import json
import random
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from scoring.cli import main
from scoring.metrics.mcq import mmau_string_match
from tests.helpers.listening_data import mmar_answer
from tests.helpers.shared import shared_file

MODALITY_KEYS = {
    "sound": "sound_accuracy", "music": "music_accuracy", "speech": "speech_accuracy",
    "mix-sound-music": "mix_sound_music_accuracy", "mix-sound-speech": "mix_sound_speech_accuracy",
    "mix-music-speech": "mix_music_speech_accuracy", "mix-sound-music-speech": "mix_sound_music_speech_accuracy",
}
LAYER_KEYS = {"Signal Layer": "signal_layer_accuracy", "Perception Layer": "perception_layer_accuracy",
              "Semantic Layer": "semantic_layer_accuracy", "Cultural Layer": "cultural_layer_accuracy"}


def released_string_match(answer: str, prediction: str, choices: list[str]) -> bool:
    def tokens(text: str) -> set[str]:
        return set(re.findall(r"\b\w+\b", text.lower()))

    pred, gold = tokens(prediction), tokens(answer)
    if not pred:
        return False
    wrong: set[str] = set()
    for choice in choices:
        if tokens(choice) != gold:
            wrong |= tokens(choice) - gold
    return gold <= pred and not (pred & wrong)


def released_evaluation(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Accuracy (%) per modality, per layer, per sub-category and Total, over rows with a prediction."""
    groups: dict[str, list[int]] = {}
    correct = total = 0
    for row in rows:
        if "answer_prediction" not in row:
            continue
        hit = released_string_match(row["answer"], row["answer_prediction"], row["choices"])
        for key in (MODALITY_KEYS[row["modality"]], LAYER_KEYS[row["category"]], "subcat:" + row["sub-category"]):
            counts = groups.setdefault(key, [0, 0])
            counts[0] += hit
            counts[1] += 1
        correct += hit
        total += 1
    result = {key: c / n * 100 for key, (c, n) in groups.items()}
    result["accuracy"] = correct / total * 100
    return result


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _score(meta: Path, predictions: Path) -> tuple[int, str, str]:
    return _run("score", "--benchmark", "mmar", "--references", str(meta), "--references-format", "mmar",
                "--predictions", str(predictions), "--predictions-format", "mmar", "--bootstrap", "20")


@pytest.fixture
def mmar_rows() -> tuple[Path, list[dict[str, Any]]]:
    meta = shared_file("data", "mmar", "MMAR-meta.jsonl")
    return meta, [json.loads(line) for line in meta.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("layout", ["jsonl", "json"])
def test_mmar_cli_equals_the_released_evaluation_on_messy_answers(mmar_rows, tmp_path, layout) -> None:
    meta, rows = mmar_rows
    rng = random.Random(2025)
    for row in rows:
        row["answer_prediction"] = mmar_answer(rng, row)
    path = tmp_path / f"run.{layout}"
    if layout == "json":
        path.write_text(json.dumps(rows), encoding="utf-8")
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    code, out, err = _score(meta, path)
    assert code == 0, err
    report = json.loads(out)
    expected = released_evaluation(rows)
    metrics = report["metrics"]
    assert report["n_items"] == 1000
    for key in ("accuracy", *MODALITY_KEYS.values(), *LAYER_KEYS.values()):
        assert metrics[key] == pytest.approx(expected[key], abs=1e-9), key
    subcats = {k: v for k, v in expected.items() if k.startswith("subcat:")}
    assert len(subcats) == 16
    for name, value in subcats.items():
        key = "subcat_" + re.sub(r"[^a-z0-9]+", "_", name[len("subcat:"):].lower()).strip("_")
        assert metrics[key] == pytest.approx(value, abs=1e-9), key
    assert 20 < metrics["accuracy"] < 80  # the messy answers are neither all right nor all wrong
    assert report["signatures"]["accuracy"].count("ddlBoJack/MMAR") == 1
    # the released file's four empty choices are scored as released, each a warning with its line;
    # empty and whitespace-only answers are scored as wrong, each a warning too
    counts = report["warnings"]["counts"]
    assert counts.pop("empty_option") == 4
    empty = sum(1 for row in rows if row["answer_prediction"] == "")
    blank = sum(1 for row in rows if row["answer_prediction"] != "" and not row["answer_prediction"].strip())
    assert counts == {k: v for k, v in {"empty_prediction": empty, "blank_prediction": blank}.items() if v}
    (options,) = [w for w in report["warnings"]["first"] if w["kind"] == "empty_option"]
    assert (options["count"], options["lines"], options["where"]) == (4, [396, 596, 615],
                                                                      "lines 396, 596, 615 and 1 more")


def _answered_except(rows: list[dict[str, Any]], lost: tuple[int, ...], how: str) -> list[dict[str, Any]]:
    """Every row answered correctly, but the rows at ``lost`` left out (``absent``) or kept without
    ``answer_prediction`` (``no_key``: the rows the released script skips)."""
    for row in rows:
        row["answer_prediction"] = row["answer"]
    for index in lost:
        del rows[index]["answer_prediction"]
    return [r for i, r in enumerate(rows) if i not in lost] if how == "absent" else rows


def test_mmar_rows_without_a_prediction_are_refused_not_skipped(mmar_rows, tmp_path) -> None:
    meta, rows = mmar_rows
    rows = _answered_except(rows, (4, 9), "no_key")
    path = tmp_path / "partial.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    # the released script would report 100.00% over 998 samples
    assert released_evaluation(rows)["accuracy"] == 100.0
    code, out, err = _score(meta, path)
    assert code == 1 and out == ""
    assert err.splitlines()[:2] == [f'partial.jsonl:{n}: prediction: required field "prediction" is missing'
                                    for n in (5, 10)]
    code, out, _ = _run("validate", "--benchmark", "mmar", "--references", str(meta), "--references-format", "mmar",
                        "--predictions", str(path), "--predictions-format", "mmar")
    assert code == 1
    explained = [line for line in out.splitlines() if "answer_prediction: warning:" in line]
    assert [line.split(": ")[0] for line in explained] == ["partial.jsonl:5", "partial.jsonl:10"]
    assert all("the released evaluation.py skips such rows" in line for line in explained)


@pytest.mark.parametrize("how", ["absent", "no_key"])
def test_missing_as_empty_scores_absent_rows_and_rows_without_the_key_as_empty(mmar_rows, tmp_path, how) -> None:
    meta, rows = mmar_rows
    rows = _answered_except(rows, (4, 9), how)
    path = tmp_path / "partial.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = _score(meta, path)
    assert code == 1 and out == ""  # without the flag: refused either way
    if how == "absent":
        assert "2 of 1,000 items have no prediction in partial.jsonl" in err
    code, out, err = _run("score", "--benchmark", "mmar", "--references", str(meta), "--references-format", "mmar",
                          "--predictions", str(path), "--predictions-format", "mmar", "--bootstrap", "20",
                          "--missing-as-empty")
    assert code == 0, err
    report = json.loads(out)
    assert report["n_items"] == 1000
    assert report["metrics"]["accuracy"] == pytest.approx(99.8, abs=1e-9)  # 998 of 1000: the two empty ones wrong
    assert report["missing_as_empty"] == 2
    counts = report["warnings"]["counts"]
    assert counts["missing_as_empty"] == 2
    if how == "no_key":
        assert counts["missing_answer_prediction"] == 2
        lines = [w["line"] for w in report["warnings"]["first"] if w["kind"] == "missing_answer_prediction"]
        assert lines == [5, 10]
    else:
        assert "missing_answer_prediction" not in counts


def test_mmar_contract_lines_and_publisher_rows_score_alike(mmar_rows, tmp_path) -> None:
    meta, rows = mmar_rows
    rng = random.Random(7)
    answers = [mmar_answer(rng, row) for row in rows]
    publisher = tmp_path / "publisher.jsonl"
    publisher.write_text("".join(json.dumps({**r, "answer_prediction": a}) + "\n" for r, a in zip(rows, answers)),
                         encoding="utf-8")
    contract = tmp_path / "contract.jsonl"
    contract.write_text("".join(json.dumps({"id": r["id"], "prediction": a}) + "\n" for r, a in zip(rows, answers)),
                        encoding="utf-8")
    reports = [json.loads(_score(meta, p)[1]) for p in (publisher, contract)]
    assert reports[0]["metrics"] == reports[1]["metrics"]


def test_mmar_inputs_publish_no_answer(mmar_rows) -> None:
    meta, rows = mmar_rows
    code, out, _ = _run("inputs", "--benchmark", "mmar", "--references", str(meta), "--references-format", "mmar")
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["id"] for line in lines] == [r["id"] for r in rows]
    assert lines[0]["options"] == rows[0]["choices"] and lines[0]["question"] == rows[0]["question"]
    assert not {"answer", "thinking", "cue", "rubric"} & set().union(*lines)
    assert lines[0]["metadata"]["modality"] == rows[0]["modality"]


@pytest.mark.parametrize(("prediction", "expected"), [
    ("Open Grassland", True),
    ("(C) Open Grassland", True),             # "c" is no word of a wrong choice of this item
    ("C", False),                             # a bare letter is never credited
    ("The answer is Open Grassland", True),   # "the", "answer", "is" are no words of a wrong choice here
    ("open grassland, not the city streets", False),  # "city", "streets" belong to a wrong choice
    ("Grassland", False),                     # "open" of the answer is missing
    ("", False),
])
def test_mmar_string_match_on_the_first_released_item(mmar_rows, prediction, expected) -> None:
    _, rows = mmar_rows
    row = rows[0]
    assert row["choices"] == ["Mountain Canyon", "Dense Forest", "Open Grassland", "City Streets"]
    assert row["answer"] == "Open Grassland"
    assert mmau_string_match(row["answer"], prediction, row["choices"]) is expected
    assert released_string_match(row["answer"], prediction, row["choices"]) is expected


def test_mmar_null_prediction_is_scored_empty_with_a_warning(mmar_rows, tmp_path) -> None:
    meta, rows = mmar_rows
    for row in rows:
        row["answer_prediction"] = row["answer"]
    rows[2]["answer_prediction"] = None
    path = tmp_path / "nulls.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = _score(meta, path)
    assert code == 0, err
    report = json.loads(out)
    assert report["metrics"]["accuracy"] == pytest.approx(99.9, abs=1e-9)  # 999 of 1000: the null one is wrong
    assert report["warnings"]["counts"]["null_prediction"] == 1
    (warning,) = [w for w in report["warnings"]["first"] if w["kind"] == "null_prediction"]
    assert (warning["file"], warning["line"], warning["field"]) == ("nulls.jsonl", 3, "answer_prediction")
