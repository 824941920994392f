"""CMI-Bench end to end: the released task files imported with the management commands, the publisher's
result files (JSON array or JSON Lines) uploaded as they are, scored by a real Celery worker on
PostgreSQL, with numbers and signatures equal to the CLI's on the same files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command

from tests.helpers.cmi_data import released_file, released_records, result_file
from tests.helpers.e2e import REPO, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# benchmark -> (seed of the model-like responses, upload as JSON Lines rather than one JSON array)
RUNS = {
    "cmi-gtzan": (11, False),
    "cmi-vocalset-tech": (12, True),
    "cmi-nsynth-instrument": (13, False),
    "cmi-emo-arousal": (14, True),
    "cmi-emo-valence": (15, False),
    "cmi-dsing": (16, True),
}


def _cli(benchmark: str, run: Path) -> dict[str, Any]:
    args = [sys.executable, "-m", "scoring", "score", "--benchmark", benchmark, "--references",
            str(released_file(benchmark)), "--references-format", "cmi-bench", "--predictions", str(run),
            "--predictions-format", "cmi-bench", "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"])]
    return json.loads(subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=True).stdout)


def test_cmi_result_files_score_on_the_site_like_the_cli(alice, start_worker, api, tmp_path) -> None:
    files = {name: released_file(name) for name in RUNS}  # skips without the shared data
    call_command("create_benchmark", *RUNS)
    for name, path in files.items():
        call_command("import_references", name, "test", str(path), "--format", "cmi-bench")
    client = api(alice)
    runs = {}
    for name, (seed, jsonl) in RUNS.items():
        runs[name] = tmp_path / f"{name}-run.{'jsonl' if jsonl else 'json'}"
        result_file(name, runs[name], seed, jsonl=jsonl)

    dry = client.post("/api/v1/benchmarks/cmi-gtzan/test/validate", files=[
        ("predictions", ("run.json", runs["cmi-gtzan"].read_bytes(), "application/json"))]).json()
    assert dry["problem_counts"] == {}, dry

    start_worker()
    uids = {}
    for name, run in runs.items():
        response = client.post(f"/api/v1/benchmarks/{name}/test/submissions", data={"model_name": f"{name} model"},
                               files=[("predictions", (run.name, run.read_bytes(), "application/octet-stream"))])
        assert response.status_code == 201, response.text
        uids[name] = str(response.json()["id"])
    finals = {name: wait_for(lambda uid=uid: (s := client.get(f"/api/v1/submissions/{uid}").json())["status"]
                             in ("scored", "failed", "invalid") and s, 180, f"{name} to finish")
              for name, uid in uids.items()}
    for name, final in finals.items():
        assert final["status"] == "scored", (name, final["status_detail"], final.get("problems"))
        cli = _cli(name, runs[name])
        assert {k: v["value"] for k, v in final["metrics"].items()} == cli["metrics"], name
        assert {k: v["signature"] for k, v in final["metrics"].items()} == cli["signatures"], name
        assert all(v is not None for v in cli["metrics"].values()), name
        entry = client.get(f"/s/{uids[name]}/")
        assert entry.status_code == 200, name
        items = client.get(f"/s/{uids[name]}/items.jsonl")
        assert items.status_code == 200 and len(items.text.splitlines()) == len(released_records(name)), name
    page = client.get("/b/cmi-emo-arousal/test/", follow_redirects=True)
    assert page.status_code == 200 and "cmi-emo-arousal model" in page.text
    about = client.get("/b/cmi-gtzan/", follow_redirects=True).text
    assert "CC BY 4.0" in about and "arXiv 2506.12285" in about and "eval()" in about
    inputs = [json.loads(line) for line in client.get("/b/cmi-gtzan/test/inputs.jsonl").text.splitlines()]
    assert inputs[0]["id"] == "data/GTZAN/Data/genres_original/blues/blues.00012.wav[0.0:30.0]"
