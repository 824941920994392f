"""The README's first command on a fresh copy of the repository: SQLite, a filesystem broker,
demo data, the web server and a worker; then a submission through the API ends scored with
the CLI's numbers. No PostgreSQL or Redis is involved."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.helpers.datagen import dialbgm_predictions, write_jsonl
from tests.helpers.e2e import REPO, wait_for

pytestmark = pytest.mark.e2e
README_COMMAND = "./scripts/run-site"
# variables the test suite sets for itself; the embedded default must run without any of them
SUITE_VARIABLES = ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "CELERY_QUEUE",
                   "CELERY_TASK_ALWAYS_EAGER", "CACHE_KEY_PREFIX", "LEADERBOARD_DATA_DIR", "ALLOWED_HOSTS",
                   "BOOTSTRAP_REPLICATES", "SECURE_COOKIES", "DEBUG")


def _fresh_copy(target: Path) -> Path:
    """What `git clone` of the working tree would give: tracked and untracked-but-not-ignored files."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, listed):
        source = REPO / name.decode()
        if source.is_file():
            destination = target / name.decode()
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
    return target


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_readme_command_runs_site_and_worker_on_the_embedded_default(tmp_path: Path) -> None:
    assert README_COMMAND in (REPO / "README.md").read_text()
    clone = _fresh_copy(tmp_path / "clone")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in SUITE_VARIABLES}
    env.update({"VENV": str(Path(sys.executable).parents[1]), "ADDR": f"127.0.0.1:{port}"})
    log = tmp_path / "run-site.log"
    with open(log, "wb") as out:
        site = subprocess.Popen([README_COMMAND], cwd=clone, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: _up(base) or site.poll() is not None, 300, "the site to answer")
        assert site.poll() is None, log.read_text(errors="replace")[-4000:]
        assert (clone / "var" / "db.sqlite3").exists()
        python = str(Path(sys.executable))
        token = subprocess.run([python, "manage.py", "issue_token", "tester", "--create"], cwd=clone,
                               env={**env, "DEBUG": "1"}, capture_output=True, text=True, check=True).stdout.strip()
        references = _demo_references(clone)
        predictions = write_jsonl(dialbgm_predictions(references, seed=3), tmp_path / "predictions.jsonl")
        client = httpx.Client(base_url=base, headers={"Authorization": f"Token {token}"}, timeout=60)
        response = client.post("/api/v1/benchmarks/dialbgm/demo/submissions", data={"model_name": "Fresh clone"},
                               files=[("predictions", ("predictions.jsonl", predictions.read_bytes()))])
        assert response.status_code == 201, response.text
        uid = response.json()["id"]
        final = wait_for(lambda: (d := client.get(f"/api/v1/submissions/{uid}").json())["status"]
                         in ("scored", "failed", "invalid") and d, 180, "the worker to score it")
        assert final["status"] == "scored", final["status_detail"]

        reference_file = write_jsonl(references, tmp_path / "references.jsonl")
        cli = json.loads(subprocess.run(
            [python, "-m", "scoring", "score", "--benchmark", "dialbgm", "--references", str(reference_file),
             "--predictions", str(predictions)], cwd=clone, capture_output=True, text=True, check=True).stdout)
        assert {k: v["value"] for k, v in final["metrics"].items()} == cli["metrics"]
        assert {k: v["ci95"] for k, v in final["metrics"].items()} == cli["ci95"]
        home = client.get("/")
        assert home.status_code == 200 and "Demo (generated data)" in home.text
    finally:
        os.killpg(site.pid, signal.SIGTERM)
        try:
            site.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(site.pid, signal.SIGKILL)


def _up(base: str) -> bool:
    try:
        return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        time.sleep(1)
        return False


def _demo_references(clone: Path) -> list[dict]:
    with sqlite3.connect(clone / "var" / "db.sqlite3") as db:
        (sha,) = db.execute(
            "SELECT s.references_sha256 FROM leaderboard_split s JOIN leaderboard_benchmark b "
            "ON s.benchmark_id = b.id WHERE b.name = 'dialbgm' AND s.name = 'demo'").fetchone()
    blob = clone / "var" / "media" / "blobs" / sha[:2] / sha
    return [json.loads(line) for line in blob.read_text().splitlines() if line.strip()]
