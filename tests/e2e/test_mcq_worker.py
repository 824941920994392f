"""MMAU test-mini and MuChoMusic end to end: publisher files imported with the management commands,
submissions scored by a real Celery worker on PostgreSQL, numbers equal to the CLI on the publishers'
own files, visible on the leaderboards next to the pinned raw/parsed baselines."""

from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command

from leaderboard.models import Split
from scoring.publishers.mcq_importers import import_mmau_predictions
from tests.helpers.e2e import REPO, wait_for
from tests.helpers.mcq_data import mmau_prediction_file, muchomusic_items, muchomusic_output, write_json

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

GOLD = Path(os.environ.get("SHARED_DIR", REPO.parent / "shared")) / "data" / "mmau" / "mmau-test-mini.json"


def _cli(benchmark: str, refs: Path, ref_format: str, run: Path, pred_format: str) -> dict[str, Any]:
    args = [sys.executable, "-m", "scoring", "score", "--benchmark", benchmark, "--references", str(refs),
            "--references-format", ref_format, "--predictions", str(run), "--predictions-format", pred_format,
            "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"])]
    return json.loads(subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=True).stdout)


def _jsonl(records: list[dict[str, Any]], path: Path) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _submit(client: Any, benchmark: str, split: str, path: Path, model: str) -> str:
    response = client.post(f"/api/v1/benchmarks/{benchmark}/{split}/submissions", data={"model_name": model},
                           files=[("predictions", (path.name, path.read_bytes(), "application/x-ndjson"))])
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def _muchomusic_csv(tmp_path: Path) -> Path:
    rows = []
    for n, item in enumerate(muchomusic_items(60, seed=8)):
        original = [item["answers"][item["answer_orders"].index(k)] for k in range(4)]
        rows.append({"question": f"Question {n}: which fits?", "dataset": "sdd", "dataset_identifier": f"{n // 2}.json",
                     "correct_answer": original[0], "distractor_1_answer": original[1],
                     "distractor_2_answer": original[2], "distractor_3_answer": original[3], "genre": item["genre"],
                     "music_knowledge": str(item["knowledge"]), "music_reasoning": str(item["reasoning"])})
    path = tmp_path / "muchomusic.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_mmau_and_muchomusic_submissions_score_like_the_cli(alice, start_worker, api, tmp_path) -> None:
    if not GOLD.is_file():
        pytest.skip(f"MMAU test-mini gold {GOLD} is absent (set SHARED_DIR)")
    call_command("create_benchmark", "mmau", "muchomusic")
    call_command("import_references", "mmau", "test-mini", str(GOLD), "--format", "mmau")
    csv_path = _muchomusic_csv(tmp_path)
    call_command("import_references", "muchomusic", "test", str(csv_path), "--format", "muchomusic")
    call_command("load_baselines")
    assert Split.objects.get(benchmark__name="mmau", name="test").hidden_labels
    client = api(alice)

    # MMAU: the publisher's prediction file (gold items + model_output), some outputs empty
    mmau_items = mmau_prediction_file(GOLD, tmp_path / "mmau-run.json", seed=21)
    mmau_run = _jsonl(import_mmau_predictions(tmp_path / "mmau-run.json"), tmp_path / "mmau-run.jsonl")
    empty = sum(1 for i in mmau_items if i["model_output"] == "")
    assert empty > 0
    missing = _jsonl(import_mmau_predictions(tmp_path / "mmau-run.json")[2:], tmp_path / "partial.jsonl")
    dry = client.post("/api/v1/benchmarks/mmau/test-mini/validate",
                      files=[("predictions", ("partial.jsonl", missing.read_bytes(), "application/x-ndjson"))]).json()
    assert dry["problem_counts"] == {"missing_item": 2}
    (problem,) = dry["problems"]  # one problem for the file: how many are missing, and the first ids
    assert problem["file"] == "partial.jsonl" and problem["line"] == 0
    assert all(f'"{item["id"]}"' in problem["message"] for item in mmau_items[:2])

    # MuChoMusic: run a "model" on the published inputs (seeded option order), answer in the publisher's layout
    inputs = [json.loads(line) for line in client.get("/b/muchomusic/test/inputs.jsonl").text.splitlines()]
    assert len(inputs) == 60 and all(len(i["options"]) == 4 and "answer" not in i for i in inputs)
    with open(csv_path, encoding="utf-8") as handle:
        assert [i["options"] for i in inputs] != [
            [r["correct_answer"], r["distractor_1_answer"], r["distractor_2_answer"], r["distractor_3_answer"]]
            for r in csv.DictReader(handle)]  # shuffled, not the CSV's order
    rng = random.Random(3)
    outputs = [muchomusic_output(rng, i["options"]) for i in inputs]
    publisher = [{"id": i["id"].split("::")[0], "prompt": f"Question: {i['question']}\n Options: ...",
                  "question": i["question"], "answers": i["options"], "model_output": o}
                 for i, o in zip(inputs, outputs)]
    write_json(publisher, tmp_path / "muchomusic-run.json")
    mucho_run = _jsonl([{"id": i["id"], "prediction": o, "options": i["options"]} for i, o in zip(inputs, outputs)],
                       tmp_path / "muchomusic-run.jsonl")

    start_worker()
    uids = {"mmau": _submit(client, "mmau", "test-mini", mmau_run, "Raw MMAU model"),
            "muchomusic": _submit(client, "muchomusic", "test", mucho_run, "Mucho model")}
    finals = {name: wait_for(lambda uid=uid: (s := client.get(f"/api/v1/submissions/{uid}").json())["status"]
                             in ("scored", "failed", "invalid") and s, 120, f"{name} to finish")
              for name, uid in uids.items()}
    for final in finals.values():
        assert final["status"] == "scored", (final["status_detail"], final.get("problems"))
    assert f"run 1: {empty}" in finals["mmau"]["status_detail"]

    cli = {"mmau": _cli("mmau", GOLD, "mmau", tmp_path / "mmau-run.json", "mmau"),
           "muchomusic": _cli("muchomusic", csv_path, "muchomusic", tmp_path / "muchomusic-run.json", "muchomusic")}
    for name, final in finals.items():
        assert {k: v["value"] for k, v in final["metrics"].items()} == cli[name]["metrics"], name
        assert {k: v["signature"] for k, v in final["metrics"].items()} == cli[name]["signatures"], name
    assert "gold:" in cli["mmau"]["signatures"]["music_accuracy"]

    for name, split in (("mmau", "test-mini"), ("muchomusic", "test")):
        board = client.get(f"/api/v1/benchmarks/{name}/{split}/leaderboard").json()
        (row,) = client.get(f"/api/v1/benchmarks/{name}/{split}/leaderboard?papers=hide").json()["rows"]
        assert row["rank"] == 1 and row["entry"]["model_name"] in ("Raw MMAU model", "Mucho model")
        (ranked,) = board["rows"]  # beside the papers' rows: after every paper row with a better value
        above = [p for p in board["published_rows"] if p["rank"] is not None and p["rank"] < ranked["rank"]]
        assert ranked["rank"] == len(above) + 1 and board["counts"]["published"] == len(board["published_rows"])
        shown = {cell["key"]: cell["value"] for cell in row["entry"]["metrics"].values()}
        assert shown["accuracy"] == cli[name]["metrics"]["accuracy"]
        tables = {t["table"] for t in board["published"]}
        assert tables == ({"MMAU leaderboard v05.15.25, parsed", "MMAU paper v1, raw string_match"}
                          if name == "mmau" else {"Main results, raw extract_responses"})

    items = client.get(f"/api/v1/submissions/{uids['mmau']}/items").json()["items"]
    first = items[0]
    assert set(first["inputs"]["metadata"]) >= {"task", "difficulty", "sub-category"}
    assert first["notes"]["accuracy"]["choice"] in ("A", "B", "C", "D", "E", "F", "G", "H", "unanswered")
    assert first["scores"]["accuracy"] in (0.0, 100.0)
