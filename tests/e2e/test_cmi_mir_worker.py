"""CMI-Bench beat, downbeat, Guzheng technique and captioning end to end: the released task files imported
with the management commands, the publisher's result files uploaded as they are, scored by a real Celery
worker on PostgreSQL, with numbers and signatures equal to the CLI's on the same files.

The captioning splits hold the first 24 released items (a slice of the released file is a released-format
file) so that the worker's BERTScore on the CPU stays short; the other tasks use their whole files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command

from tests.helpers.cmi_mir import released_file, result_file
from tests.helpers.e2e import REPO, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# benchmark -> (seed of the model-like responses, upload as JSON Lines rather than one JSON array)
RUNS = {
    "cmi-gtzan-beat": (21, False),
    "cmi-ballroom-beat": (22, True),
    "cmi-gtzan-downbeat": (23, True),
    "cmi-ballroom-downbeat": (24, False),
    "cmi-guzheng-tech": (25, False),
    "cmi-sdd": (26, True),
    "cmi-musiccaps": (27, False),
}
CAPTION_ITEMS = 24


def _references(name: str, tmp_path: Path) -> Path:
    path = released_file(name)  # skips without the shared data
    if name not in ("cmi-sdd", "cmi-musiccaps"):
        return path
    head = tmp_path / f"{name}-references.jsonl"
    head.write_text("".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:CAPTION_ITEMS]),
                    encoding="utf-8")
    return head


def _result_file(name: str, references: Path, run: Path, seed: int, jsonl: bool) -> None:
    records = result_file(name, run, seed, jsonl=jsonl)[: sum(1 for _ in references.open(encoding="utf-8"))]
    with open(run, "w", encoding="utf-8") as handle:
        if jsonl:
            handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
        else:
            json.dump(records, handle, ensure_ascii=False)


def _cli(benchmark: str, references: Path, run: Path) -> dict[str, Any]:
    args = [sys.executable, "-m", "scoring", "score", "--benchmark", benchmark, "--references", str(references),
            "--references-format", "cmi-bench", "--predictions", str(run), "--predictions-format", "cmi-bench",
            "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"])]
    return json.loads(subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=True).stdout)


def test_cmi_mir_result_files_score_on_the_site_like_the_cli(alice, start_worker, api, tmp_path) -> None:
    references = {name: _references(name, tmp_path) for name in RUNS}
    call_command("create_benchmark", *RUNS)
    for name, path in references.items():
        call_command("import_references", name, "test", str(path), "--format", "cmi-bench")
    client = api(alice)
    runs = {}
    for name, (seed, jsonl) in RUNS.items():
        runs[name] = tmp_path / f"{name}-run.{'jsonl' if jsonl else 'json'}"
        _result_file(name, references[name], runs[name], seed, jsonl)

    start_worker()
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
        cli = _cli(name, references[name], runs[name])
        assert {k: v["value"] for k, v in final["metrics"].items()} == cli["metrics"], name
        assert {k: v["signature"] for k, v in final["metrics"].items()} == cli["signatures"], name
        assert all(v is not None for v in cli["metrics"].values()), name
    assert set(finals["cmi-sdd"]["metrics"]) == {"bleu", "bleu4", "meteor", "rougeL_recall", "bertscore_recall"}
    assert set(finals["cmi-guzheng-tech"]["metrics"]) == {"micro_f1", "macro_f1"}
    page = client.get("/b/cmi-guzheng-tech/test/", follow_redirects=True)
    assert page.status_code == 200 and "cmi-guzheng-tech model" in page.text
