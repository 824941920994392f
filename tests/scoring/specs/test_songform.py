"""SongFormBench through ``python -m scoring``: the released file read as references, warnings on messy answers
naming file, line and field, every song required, public inputs without the labels, per-subset columns."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from scoring.publishers.importers import REFERENCE_IMPORTERS, convert_file
from tests.helpers.shared import shared_file

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def references(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("songform") / "references.jsonl"
    released = shared_file("data", "songformbench", "songformbench_segments.jsonl")
    assert not convert_file(REFERENCE_IMPORTERS["songformbench"], released, target)
    return target


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_references_as_their_own_answers_score_one_in_both_subsets(cli, references: Path, tmp_path: Path) -> None:
    run = _write(tmp_path / "self.jsonl", [{"id": r["id"], "prediction": r["answer"]} for r in _records(references)])
    released = shared_file("data", "songformbench", "songformbench_segments.jsonl")
    report = cli.score_json("--benchmark", "songformbench", "--references", released, "--references-format",
                            "songformbench", "--predictions", run, "--no-bertscore")
    assert report["n_items"] == 300 and report["warnings"]["total"] == 0
    assert set(report["metrics"]) >= {"hx_acc", "hx_hr05_f", "hx_hr3_f", "cn_acc", "cn_hr05_f", "cn_hr3_f"}
    assert all(value == 1.0 for value in report["metrics"].values()), report["metrics"]
    assert "subset:CN" in report["signatures"]["cn_acc"] and "subset:HarmonixSet" in report["signatures"]["hx_acc"]


def test_messy_answers_are_warned_on_their_line_and_missing_songs_are_errors(cli, references: Path,
                                                                              tmp_path: Path) -> None:
    rows = [{"id": r["id"], "prediction": r["answer"]} for r in _records(references)]
    rows[4]["prediction"] = "1:05 Chorus\n0:00 intro\n3:30 end"
    rows[7]["prediction"] = "no sections here"
    run = _write(tmp_path / "messy.jsonl", rows)
    result = cli.run("validate", "--benchmark", "songformbench", "--references", references, "--predictions", run)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("messy.jsonl:5: prediction: warning: ") and "'Chorus' read as 'chorus'" in line
               and "times not in order" in line for line in lines), lines
    assert any(line.startswith("messy.jsonl:8: prediction: warning: ") and "no section could be read" in line
               for line in lines), lines
    short = _write(tmp_path / "short.jsonl", rows[:-1])
    missing = cli.run("validate", "--benchmark", "songformbench", "--references", references, "--predictions", short)
    assert missing.returncode == 1 and rows[-1]["id"] in missing.stdout + missing.stderr


def test_public_inputs_hold_the_subset_and_duration_but_no_labels(cli, references: Path) -> None:
    result = cli.run("inputs", "--benchmark", "songformbench", "--references", references)
    assert result.returncode == 0, result.stderr
    inputs = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(inputs) == 300 and {item["context"] for item in inputs} == {"HarmonixSet", "CN"}
    assert all("answer" not in item and "The audio lasts" in item["question"] for item in inputs)
    assert not any("chorus\n" in json.dumps(item) for item in inputs)


def test_segment_lists_as_json_values_are_read_and_other_values_refused(cli, references: Path, tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [{"id": r["id"], "prediction": r["answer"]} for r in _records(references)]
    first = [line.split() for line in rows[0]["prediction"].splitlines()]
    rows[0]["prediction"] = [[float(a[0]), float(b[0]), a[1]] for a, b in itertools.pairwise(first)]
    run = _write(tmp_path / "lists.jsonl", rows)
    report = cli.score_json("--benchmark", "songformbench", "--references", references, "--predictions", run)
    assert all(value == 1.0 for value in report["metrics"].values()) and report["warnings"]["total"] == 0
    rows[1]["prediction"] = {"start": 0}
    bad = _write(tmp_path / "bad.jsonl", rows)
    result = cli.run("validate", "--benchmark", "songformbench", "--references", references, "--predictions", bad)
    assert result.returncode == 1
    assert "bad.jsonl:2: prediction: prediction must be a string or a list of segments, got object" in result.stdout
