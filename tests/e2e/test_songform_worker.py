"""SongFormBench end to end: the released segments file imported with the management commands, messy
model answers (MSA TXT, m:ss, unsorted lines, lists of segments as JSON values, an unreadable answer) uploaded
as JSON Lines, scored by a real Celery worker on PostgreSQL, with numbers and signatures equal to the CLI's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.conf import settings
from django.core.management import call_command

from scoring.publishers.importers import REFERENCE_IMPORTERS, convert_file
from tests.helpers.e2e import REPO, wait_for
from tests.helpers.shared import shared_file

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _answers(references: Path, run: Path) -> None:
    rng = np.random.default_rng(5)
    rows = []
    for n, line in enumerate(references.read_text(encoding="utf-8").splitlines()):
        record = json.loads(line)
        msa = [(float(t), label) for t, label in (row.split() for row in record["answer"].splitlines())]
        times = [max(0.0, t + rng.normal(0, 1.0)) for t, _ in msa]
        answer: Any
        if n % 4 == 0:
            answer = "\n".join(f"{t:.3f} {label}" for t, (_, label) in zip(times, msa[:-1])) + f"\n{times[-1]:.3f} end"
        elif n % 4 == 1:
            lines = [f"{int(t // 60)}:{t % 60:06.3f} {label.title()}" for t, (_, label) in zip(times, msa[:-1])]
            answer = "\n".join(lines[::-1])  # unsorted, no end line
        elif n % 4 == 2:  # a JSON list of segments, not a string
            answer = [[round(a, 2), round(b, 2), label] for a, b, (_, label) in zip(times, times[1:], msa)]
        else:
            answer = "I could not find any sections." if n == 3 else record["answer"]
        rows.append({"id": record["id"], "prediction": answer})
    run.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _cli(references: Path, run: Path) -> dict[str, Any]:
    args = [sys.executable, "-m", "scoring", "score", "--benchmark", "songformbench", "--references", str(references),
            "--predictions", str(run), "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"])]
    return json.loads(subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=True).stdout)


def test_songform_answers_score_on_the_site_like_the_cli(alice, start_worker, api, tmp_path) -> None:
    released = shared_file("data", "songformbench", "songformbench_segments.jsonl")
    references = tmp_path / "references.jsonl"
    assert not convert_file(REFERENCE_IMPORTERS["songformbench"], released, references)
    call_command("create_benchmark", "songformbench")
    call_command("import_references", "songformbench", "test", str(released), "--format", "songformbench")
    run = tmp_path / "run.jsonl"
    _answers(references, run)

    start_worker()
    client = api(alice)
    response = client.post("/api/v1/benchmarks/songformbench/test/submissions", data={"model_name": "structure model"},
                           files=[("predictions", (run.name, run.read_bytes(), "application/octet-stream"))])
    assert response.status_code == 201, response.text
    uid = str(response.json()["id"])
    final = wait_for(lambda: (s := client.get(f"/api/v1/submissions/{uid}").json())["status"]
                     in ("scored", "failed", "invalid") and s, 600, "songformbench to finish")
    assert final["status"] == "scored", (final["status_detail"], final.get("problems"))
    cli = _cli(references, run)
    assert {k: v["value"] for k, v in final["metrics"].items()} == cli["metrics"]
    assert {k: v["signature"] for k, v in final["metrics"].items()} == cli["signatures"]
    assert 0.3 < cli["metrics"]["hx_acc"] < 1.0 and 0.3 < cli["metrics"]["cn_hr3_f"] < 1.0
    assert cli["warnings"]["total"] > 0
    page = client.get("/b/songformbench/test/", follow_redirects=True)
    assert page.status_code == 200 and "structure model" in page.text
