"""LP-MusicCaps end to end: its test list imported with the management commands (captions from
``musiccaps-public.csv`` beside it), model-like captions uploaded, scored by a real Celery worker on PostgreSQL,
with numbers and signatures equal to the CLI's on the same files.

The split holds the list's first 40 clips (a slice of the list is a list of the same format) so that the worker's
BERTScore on the CPU stays short. NLTK's Punkt English model is not installed here: both sides read the small
model of ``tests/helpers/lp_musiccaps.py`` through ``SCORING_PUNKT_DIR``."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command

from tests.helpers.e2e import REPO, wait_for
from tests.helpers.lp_musiccaps import messy_captions, write_punkt_model
from tests.helpers.shared import shared_file

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CLIPS = 40
LIST = "lp-musiccaps-test-subset.csv"


def _release(tmp_path: Path) -> Path:
    """The list's first clips, with the captions file beside it."""
    source = shared_file("data", "musiccaps", LIST)  # skips without the shared data
    folder = tmp_path / "release"
    folder.mkdir()
    (folder / "musiccaps-public.csv").write_bytes((source.parent / "musiccaps-public.csv").read_bytes())
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / LIST).write_text("".join(lines[: CLIPS + 1]), encoding="utf-8")
    return folder / LIST


def _run_file(references: Path, tmp_path: Path) -> Path:
    with open(references, newline="", encoding="utf-8") as handle:
        ids = [row["ytid"] for row in csv.DictReader(handle)]
    with open(references.parent / "musiccaps-public.csv", newline="", encoding="utf-8") as handle:
        captions = {row["ytid"]: row["caption"] for row in csv.DictReader(handle)}
    outputs = messy_captions([captions[i] for i in ids], seed=5)
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps({"id": i, "prediction": o}, ensure_ascii=False) + "\n"
                           for i, o in zip(ids, outputs)), encoding="utf-8")
    return run


def _cli(references: Path, run: Path, punkt: Path) -> dict[str, Any]:
    args = [sys.executable, "-m", "scoring", "score", "--benchmark", "lp-musiccaps", "--references", str(references),
            "--references-format", "lp-musiccaps", "--predictions", str(run),
            "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"])]
    env = {**os.environ, "SCORING_PUNKT_DIR": str(punkt)}
    return json.loads(subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=True, env=env).stdout)


def test_lp_musiccaps_scores_on_the_site_like_the_cli(alice, start_worker, api, tmp_path, monkeypatch) -> None:
    punkt = write_punkt_model(tmp_path / "nltk_data")
    monkeypatch.setenv("SCORING_PUNKT_DIR", str(punkt))
    references = _release(tmp_path)
    call_command("create_benchmark", "lp-musiccaps")
    call_command("import_references", "lp-musiccaps", "test", str(references), "--format", "lp-musiccaps")
    run = _run_file(references, tmp_path)

    start_worker(SCORING_PUNKT_DIR=str(punkt))
    client = api(alice)
    response = client.post("/api/v1/benchmarks/lp-musiccaps/test/submissions", data={"model_name": "captioner"},
                           files=[("predictions", (run.name, run.read_bytes(), "application/octet-stream"))])
    assert response.status_code == 201, response.text
    uid = str(response.json()["id"])
    final = wait_for(lambda: (s := client.get(f"/api/v1/submissions/{uid}").json())["status"]
                     in ("scored", "failed", "invalid") and s, 600, "the submission to finish")
    assert final["status"] == "scored", (final["status_detail"], final.get("problems"))
    cli = _cli(references, run, punkt)
    assert cli["n_items"] == CLIPS
    assert {k: v["value"] for k, v in final["metrics"].items()} == cli["metrics"]
    assert {k: v["signature"] for k, v in final["metrics"].items()} == cli["signatures"]
    assert {"bleu1", "bleu2", "bleu3", "bleu4", "meteor", "rougeL_f1"} <= set(cli["metrics"])
    assert all(v is not None for v in cli["metrics"].values())
    assert "punkt:" in cli["signatures"]["meteor"]
    assert "evaluator:seungheondoh/lp-music-caps" in cli["signatures"]["bleu1"]
    page = client.get("/b/lp-musiccaps/test/", follow_redirects=True)
    assert page.status_code == 200 and "captioner" in page.text
