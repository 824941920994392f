"""MMAR and RUL-MuChoMusic end to end: the publishers' files imported with the management commands,
a publisher-format MMAR file and a leave-one-out responses file uploaded and scored by a real Celery
worker on PostgreSQL, numbers and signatures equal to the CLI's, the board, the explorer (each raw
response beside the answer extracted from it) and the downloads."""

from __future__ import annotations

import csv
import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command

from tests.helpers.e2e import REPO, wait_for
from tests.helpers.listening_data import mmar_answer, rul_response
from tests.helpers.shared import shared_file

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _cli(*args: str) -> str:
    return subprocess.run([sys.executable, "-m", "scoring", *args], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout


def _submit(client: Any, benchmark: str, path: Path, model: str) -> str:
    response = client.post(f"/api/v1/benchmarks/{benchmark}/test/submissions", data={"model_name": model},
                           files=[("predictions", (path.name, path.read_bytes(), "application/x-ndjson"))])
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def test_mmar_and_rul_muchomusic_score_on_the_site_like_the_cli(alice, start_worker, api, tmp_path) -> None:
    meta = shared_file("data", "mmar", "MMAR-meta.jsonl")
    rul = shared_file("data", "rul-muchomusic", "RUL-MuchoMusic.json")
    call_command("create_benchmark", "mmar", "rul-muchomusic")
    call_command("import_references", "mmar", "test", str(meta), "--format", "mmar")
    call_command("import_references", "rul-muchomusic", "test", str(rul), "--format", "rul-muchomusic")
    client = api(alice)

    # the inputs download is what `python -m scoring inputs` prints, byte for byte
    files = {"mmar": (meta, "mmar"), "rul-muchomusic": (rul, "rul-muchomusic")}
    for name, (path, fmt) in files.items():
        served = client.get(f"/b/{name}/test/inputs.jsonl").text
        assert served == _cli("inputs", "--benchmark", name, "--references", str(path), "--references-format", fmt)
    inputs = [json.loads(line) for line in client.get("/b/rul-muchomusic/test/inputs.jsonl").text.splitlines()]
    assert len(inputs) == 1187 and all(len(i["prompts"]) == 4 and "answer" not in i for i in inputs)

    # MMAR: the publisher's own rows (MMAR-meta items + answer_prediction), JSON Lines
    rng = random.Random(5)
    rows = [json.loads(line) for line in meta.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        row["answer_prediction"] = mmar_answer(rng, row)
    mmar_run = tmp_path / "mmar-run.jsonl"
    mmar_run.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    # RUL-MuChoMusic: four responses per item, to the published prompts
    responses = [{"id": i["id"], "responses": [rul_response(rng, p["options"]) for p in i["prompts"]]} for i in inputs]
    rul_run = tmp_path / "rul-run.jsonl"
    rul_run.write_text("".join(json.dumps(r) + "\n" for r in responses), encoding="utf-8")

    start_worker()
    uids = {"mmar": _submit(client, "mmar", mmar_run, "MMAR model"),
            "rul-muchomusic": _submit(client, "rul-muchomusic", rul_run, "RUL model")}
    finals = {name: wait_for(lambda uid=uid: (s := client.get(f"/api/v1/submissions/{uid}").json())["status"]
                             in ("scored", "failed", "invalid") and s, 180, f"{name} to finish")
              for name, uid in uids.items()}
    runs = {"mmar": (mmar_run, ["--predictions-format", "mmar"]), "rul-muchomusic": (rul_run, [])}
    for name, final in finals.items():
        assert final["status"] == "scored", (final["status_detail"], final.get("problems"))
        path, fmt = files[name]
        run, extra = runs[name]
        cli = json.loads(_cli("score", "--benchmark", name, "--references", str(path), "--references-format", fmt,
                              "--predictions", str(run), *extra,
                              "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"])))
        assert {k: v["value"] for k, v in final["metrics"].items()} == cli["metrics"], name
        assert {k: v["signature"] for k, v in final["metrics"].items()} == cli["signatures"], name
        board = client.get(f"/api/v1/benchmarks/{name}/test/leaderboard").json()
        (row,) = board["rows"]
        shown = {cell["key"]: cell["value"] for cell in row["entry"]["metrics"].values()}
        assert shown["accuracy"] == cli["metrics"]["accuracy"]
        if name == "mmar":
            assert shown["music_accuracy"] == cli["metrics"]["music_accuracy"]
        else:
            assert shown["pass_accuracy"] == cli["metrics"]["pass_accuracy"]

    # explorer: each raw response beside the answer the publisher's rules extract from it
    items = client.get(f"/api/v1/submissions/{uids['rul-muchomusic']}/items").json()["items"]
    first = items[0]
    assert first["prediction"] == responses[0]["responses"]
    assert len(first["notes"]["accuracy"]["passes"]) == 4
    page = client.get(f"/s/{uids['rul-muchomusic']}/").text
    parsed = first["notes"]["accuracy"]["passes"]
    assert page.count('class="parsed meta"') >= 4 * len(items)
    assert f"parsed: {parsed[0]}" in page and f"vote: {first['notes']['accuracy']['answer']}" in page
    mmar_items = client.get(f"/api/v1/submissions/{uids['mmar']}/items").json()["items"]
    assert mmar_items[0]["prediction"] == rows[0]["answer_prediction"]
    assert f"parsed: {mmar_items[0]['notes']['accuracy']['choice']}" in client.get(f"/s/{uids['mmar']}/").text

    # downloads: every item, raw responses and scores
    lines = [json.loads(line) for line in client.get(f"/s/{uids['rul-muchomusic']}/items.jsonl").text.splitlines()]
    assert len(lines) == 1187 and lines[0]["prediction"] == responses[0]["responses"]
    assert sum(line["scores"]["accuracy"] for line in lines) / 1187 == pytest.approx(
        finals["rul-muchomusic"]["metrics"]["accuracy"]["value"], abs=1e-9)
    table = list(csv.DictReader(io.StringIO(client.get(f"/s/{uids['mmar']}/items.csv").text)))
    assert len(table) == 1000 and table[0]["prediction"] == rows[0]["answer_prediction"]
    assert sum(float(r["music_accuracy"]) for r in table if r["music_accuracy"]) / 206 == pytest.approx(
        finals["mmar"]["metrics"]["music_accuracy"]["value"], abs=1e-9)
