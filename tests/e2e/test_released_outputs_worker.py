"""Released outputs end to end: the CMI-Bench authors' result files of two tasks imported with
``import_released_outputs`` after ``import_references``, scored by a real Celery worker on PostgreSQL, each entry's
values, intervals and signatures equal to ``python -m scoring score`` on the same file; provenance ``released`` on
the API and in ``python -m scoring leaderboard`` against the live site."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command

from leaderboard.models import Provenance, Submission
from tests.helpers.e2e import REPO, wait_for
from tests.helpers.released_outputs import (
    every_nth_removed,
    release_copy,
    release_records,
    release_write,
    shared_release,
)
from tests.helpers.shared import shared_file

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TASKS = {"GTZAN": ("cmi-gtzan", "CMI_GTZAN_test.jsonl"),
         "EMO_arousal": ("cmi-emo-arousal", "CMI_EMO_arousal_test.jsonl")}
MODELS = ("qwen2", "salmonn", "ltu_as")  # ltu_as: absolute audio paths in its records
FINISHED = ("scored", "failed", "invalid")


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scoring", *args], cwd=REPO, capture_output=True, text=True,
                          check=False, timeout=300, env=env)


def _cli_score(benchmark: str, references: Path, released: Path, tmp_path: Path) -> dict[str, Any]:
    """``python -m scoring score`` on the released file as it was released (decompressed)."""
    plain = tmp_path / released.name.removesuffix(".gz")
    plain.write_bytes(gzip.decompress(released.read_bytes()))
    result = _cli("score", "--benchmark", benchmark, "--references", str(references), "--references-format",
                  "cmi-bench", "--predictions", str(plain), "--predictions-format", "cmi-bench", "--missing-as-empty",
                  "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"]))
    assert result.returncode == 0, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_released_outputs_are_scored_by_the_worker_as_the_cli_scores_them(start_worker, live_server, tmp_path) -> None:
    tasks = tmp_path / "cmi-bench"
    tasks.mkdir()
    for _, name in TASKS.values():
        shutil.copy(shared_file("data", "cmi-bench", name), tasks / name)  # skips without the shared data
    release = tmp_path / "cmi-bench-results"
    for model in MODELS:
        for task in TASKS:
            release_copy(release, model, task)
    kept, _ = every_nth_removed(release_records(shared_release("pengi", "EMO_arousal")), 10)
    release_write(release, "pengi", "EMO_arousal", kept)  # an incomplete run: 115 of 125 items

    call_command("import_references", "--from", str(tasks), stdout=io.StringIO())
    start_worker()
    out = io.StringIO()
    call_command("import_released_outputs", "--from", str(release), stdout=out)
    assert out.getvalue().splitlines()[-1] == "7 imported", out.getvalue()
    entries = list(Submission.objects.select_related("split__benchmark"))
    assert len(entries) == 7 and all(e.provenance == Provenance.RELEASED for e in entries)
    for entry in entries:
        wait_for(lambda pk=entry.pk: Submission.objects.get(pk=pk).status in FINISHED, 240, f"{entry} to finish")

    for entry in Submission.objects.select_related("split__benchmark"):
        assert entry.status == "scored", (entry.model_name, entry.status_detail, entry.problems)
        task = next(t for t, (benchmark, _) in TASKS.items() if benchmark == entry.split.benchmark.name)
        model = entry.source["path"].split("/")[-2]
        released = release / model / f"{model}_{task}.jsonl.gz"
        cli = _cli_score(entry.split.benchmark.name, tasks / TASKS[task][1], released, tmp_path)
        assert entry.report["metrics"] == cli["metrics"], (model, task)  # exact: the same code, the same bits
        assert entry.report["ci95"] == cli["ci95"] and entry.report["signatures"] == cli["signatures"], (model, task)
        assert {v.key: v.value for v in entry.metric_values.filter(current=True)} == cli["metrics"]
        assert entry.source["items_total"] - entry.source["items_answered"] == cli["missing_as_empty"]
    partial = Submission.objects.get(model_name="Pengi")
    assert (partial.source["items_answered"], partial.source["items_total"]) == (115, 125)

    again = io.StringIO()
    call_command("import_released_outputs", "--from", str(release), stdout=again)
    assert again.getvalue().splitlines()[-1] == "7 already imported" and Submission.objects.count() == 7

    env = {**{k: v for k, v in os.environ.items() if not k.startswith("MUSIC_SCORING_")},
           "MUSIC_SCORING_SITE": live_server.url, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    table = _cli("leaderboard", "cmi-emo-arousal", "test", "--provenance", "released", env=env)
    assert table.returncode == 0, table.stderr
    rows = table.stdout.splitlines()
    assert rows[0] == "cmi-emo-arousal/test: 4 row(s)" and rows[1].split()[:3] == ["rank", "model", "provenance"]
    assert all(" released" in row for row in rows[2:])
    assert any("Pengi" in row and "released (115 of 125 items answered)" in row for row in rows[2:]), table.stdout
    none = _cli("leaderboard", "cmi-emo-arousal", "test", "--provenance", "submitted", env=env)
    assert none.stdout.strip() == "cmi-emo-arousal/test: 0 row(s); no scored entries yet"
    as_csv = list(csv.DictReader(io.StringIO(_cli("leaderboard", "cmi-gtzan", "test", "--csv", env=env).stdout)))
    assert len(as_csv) == 3 and {row["provenance"] for row in as_csv} == {"released"}
