"""CMI-Bench GiantSteps key and NSynth pitch end to end: the rebuilt test files imported with the management
commands, result files in the publisher's formats uploaded as they are (the task file's records with ``response``;
the inference scripts' ``question, response, correct_answer, audioid`` records), scored by a real Celery worker on
PostgreSQL, with numbers and signatures equal to the CLI's on the same files, and the key read shown per item."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command

from leaderboard.models import ItemScore
from tests.helpers.cmi_key_oracle import oracle_key_item, released_file, result_file
from tests.helpers.e2e import REPO, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# benchmark -> (seed of the model-like responses, upload as JSON Lines, in the inference scripts' record layout)
RUNS = {"cmi-gs-key": (31, False, False), "cmi-nsynth-pitch": (32, True, True)}


def _upload_file(name: str, run: Path, seed: int, jsonl: bool, inference: bool) -> list[dict[str, Any]]:
    records = result_file(name, run, seed)
    if inference:
        records = [{"question": r["instruction"][:40], "response": r["response"], "correct_answer": r["output"],
                    "audioid": "../testdata/" + r["audio_path"][0].removeprefix("data/")} for r in records]
    with open(run, "w", encoding="utf-8") as handle:
        if jsonl:
            handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
        else:
            json.dump(records, handle, ensure_ascii=False)
    return records


def _cli(benchmark: str, run: Path) -> dict[str, Any]:
    args = [sys.executable, "-m", "scoring", "score", "--benchmark", benchmark, "--references",
            str(released_file(benchmark)), "--references-format", "cmi-bench", "--predictions", str(run),
            "--predictions-format", "cmi-bench", "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"])]
    return json.loads(subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=True).stdout)


def test_key_and_pitch_result_files_score_on_the_site_like_the_cli(alice, start_worker, api, tmp_path) -> None:
    call_command("create_benchmark", *RUNS)
    for name in RUNS:
        call_command("import_references", name, "test", str(released_file(name)), "--format", "cmi-bench")
    runs, records = {}, {}
    for name, (seed, jsonl, inference) in RUNS.items():
        runs[name] = tmp_path / f"{name}-run.{'jsonl' if jsonl else 'json'}"
        records[name] = _upload_file(name, runs[name], seed, jsonl, inference)

    start_worker()
    client = api(alice)
    uids = {}
    for name, run in runs.items():
        response = client.post(f"/api/v1/benchmarks/{name}/test/submissions", data={"model_name": f"{name} model"},
                               files=[("predictions", (run.name, run.read_bytes(), "application/octet-stream"))])
        assert response.status_code == 201, response.text
        uids[name] = str(response.json()["id"])
    finals = {name: wait_for(lambda uid=uid: (s := client.get(f"/api/v1/submissions/{uid}").json())["status"]
                             in ("scored", "failed", "invalid") and s, 600, f"{name} to finish")
              for name, uid in uids.items()}
    for name, final in finals.items():
        assert final["status"] == "scored", (name, final["status_detail"], final.get("problems"))
        cli = _cli(name, runs[name])
        assert {k: v["value"] for k, v in final["metrics"].items()} == cli["metrics"], name
        assert {k: v["signature"] for k, v in final["metrics"].items()} == cli["signatures"], name
        assert cli["n_items"] == {"cmi-gs-key": 2406, "cmi-nsynth-pitch": 4096}[name]
    assert set(finals["cmi-gs-key"]["metrics"]) == {"weighted_score"}
    assert set(finals["cmi-nsynth-pitch"]["metrics"]) == {"accuracy", "pitch_accuracy"}
    assert 0.2 < finals["cmi-gs-key"]["metrics"]["weighted_score"]["value"] < 0.8

    stored = ItemScore.objects.filter(submission__uid=uids["cmi-gs-key"], run=1).order_by("index")
    key_records = records["cmi-gs-key"]
    assert stored.count() == len(key_records)
    for row in stored[:300]:
        value, key = oracle_key_item(key_records[row.index]["output"], key_records[row.index]["response"])
        assert row.values["weighted_score"] == value
        assert row.notes["weighted_score"] == {"choice": key or "none"}
    board = client.get("/b/cmi-gs-key/test/", follow_redirects=True)
    assert board.status_code == 200 and "cmi-gs-key model" in board.text
    first = client.get(f"/api/v1/submissions/{uids['cmi-gs-key']}/items").json()["items"][0]
    _, key = oracle_key_item(key_records[0]["output"], key_records[0]["response"])
    assert first["notes"]["weighted_score"] == {"choice": key or "none"}
    entry = client.get(f"/s/{uids['cmi-gs-key']}/", follow_redirects=True).text
    assert f'<span class="parsed meta">parsed: {key or "none"}</span>' in entry  # the key read, beside the answer
