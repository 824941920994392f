"""The README's first command on a fresh copy of the repository: SQLite, a filesystem broker,
demo data, the web server and a worker; then a submission through the API ends scored with
the CLI's numbers. No PostgreSQL or Redis is involved."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers.datagen import dialbgm_predictions, write_jsonl
from tests.helpers.e2e import REPO, SUITE_VARIABLES, free_port, fresh_copy, site_up, wait_for
from tests.helpers.shared import shared_file

pytestmark = pytest.mark.e2e
README_COMMAND = "./scripts/run-site"


@dataclass
class Site:
    clone: Path
    base: str
    env: dict[str, str]
    client: httpx.Client
    session: int  # the process session run-site and everything it starts belong to

    def manage(self, *args: str) -> str:
        """A README command as written (no DEBUG, no SECRET_KEY in the caller's environment)."""
        return subprocess.run([sys.executable, "manage.py", *args], cwd=self.clone, env=self.env,
                              capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The README's first command on a fresh copy, run once for the module; a token for an account."""
    assert README_COMMAND in (REPO / "README.md").read_text()
    tmp_path = tmp_path_factory.mktemp("embedded")
    venv = str(Path(sys.executable).parents[1])
    # installed from this checkout first: the copy's setup then finds it done and never points the shared
    # environment's editable install at the copy (deleted after the test)
    subprocess.run([str(REPO / "scripts" / "setup")], cwd=REPO, env={**os.environ, "VENV": venv}, check=True,
                   capture_output=True)
    clone = fresh_copy(tmp_path / "clone")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in SUITE_VARIABLES}
    env.update({"VENV": venv, "ADDR": f"127.0.0.1:{port}"})
    log = tmp_path / "run-site.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([README_COMMAND], cwd=clone, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: site_up(base) or process.poll() is not None, 300, "the site to answer")
        assert process.poll() is None, log.read_text(errors="replace")[-4000:]
        token = subprocess.run([sys.executable, "manage.py", "issue_token", "tester", "--create"], cwd=clone,
                               env=env, capture_output=True, text=True, check=True).stdout.strip()
        with httpx.Client(base_url=base, headers={"Authorization": f"Token {token}"}, timeout=60) as client:
            yield Site(clone, base, env, client, process.pid)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def test_readme_command_runs_site_and_worker_on_the_embedded_default(site: Site, tmp_path: Path) -> None:
    assert (site.clone / "var" / "db.sqlite3").exists()
    references = _demo_references(site.clone)
    predictions = write_jsonl(dialbgm_predictions(references, seed=3), tmp_path / "predictions.jsonl")
    response = site.client.post("/api/v1/benchmarks/dialbgm/demo/submissions", data={"model_name": "Fresh clone"},
                                files=[("predictions", ("predictions.jsonl", predictions.read_bytes()))])
    assert response.status_code == 201, response.text
    final = _ended(site, response.json()["id"], 180)
    assert final["status"] == "scored", final["status_detail"]

    reference_file = write_jsonl(references, tmp_path / "references.jsonl")
    cli = json.loads(subprocess.run(
        [sys.executable, "-m", "scoring", "score", "--benchmark", "dialbgm", "--references", str(reference_file),
         "--predictions", str(predictions)], cwd=site.clone, capture_output=True, text=True, check=True).stdout)
    assert {k: v["value"] for k, v in final["metrics"].items()} == cli["metrics"]
    assert {k: v["ci95"] for k, v in final["metrics"].items()} == cli["ci95"]
    home = site.client.get("/")
    assert home.status_code == 200 and "Demo (generated data)" in home.text


def test_light_work_never_waits_behind_heavy_work(site: Site) -> None:
    """Right after MusicQA's and MMAU's references are imported (MusicQA's BERTScore reference embeddings then
    encode on the heavy lane), and again while a 5,040-item MusicQA run scores, a 1,000-item MMAU run is scored
    within 20 s of its upload and a broken MMAU file is reported invalid within 10 s."""
    musicqa = shared_file("data", "musicqa", "EvalMusicQA.json")
    mmau = shared_file("data", "mmau", "mmau-test-mini.json")
    site.manage("import_references", "--from", str(musicqa.parent))
    site.manage("import_references", "--from", str(mmau.parent))
    _light_lane_answers(site, "right after the imports")

    inputs = [json.loads(line) for line in site.client.get("/b/musicqa/test/inputs.jsonl").text.splitlines()]
    run = "".join(json.dumps({"id": item["id"], "prediction": "A calm piano piece."}) + "\n" for item in inputs)
    response = site.client.post("/api/v1/benchmarks/musicqa/test/submissions", data={"model_name": "Heavy run"},
                                files=[("predictions", ("musicqa.jsonl", run.encode()))])
    assert response.status_code == 201, response.text
    heavy = response.json()["id"]
    wait_for(lambda: site.client.get(f"/api/v1/submissions/{heavy}").json()["status"] in ("queued", "scoring"), 120,
             "the MusicQA run to be validated")
    _light_lane_answers(site, "while a MusicQA run scores")
    status = site.client.get(f"/api/v1/submissions/{heavy}").json()
    assert status["status"] in ("queued", "scoring", "aggregating", "scored"), status["status_detail"]


def test_the_heavy_lane_yields_the_cores_to_light_work(site: Site) -> None:
    """Every process of the heavy lane's worker runs at a lower CPU priority than the light lane's."""
    niceness = _lane_niceness(site.session)
    assert niceness["heavy"] and set(niceness["heavy"]) == {10}, niceness
    assert len(niceness["light"]) >= 3 and set(niceness["light"]) == {0}, niceness  # the worker and its two processes


def _lane_niceness(session: int) -> dict[str, list[int]]:
    """The niceness of each Celery worker process in ``session``, by lane (its ``-n light@``/``heavy@`` name)."""
    found: dict[str, list[int]] = {"light": [], "heavy": []}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getsid(int(entry.name)) != session:
                continue
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            niceness = os.getpriority(os.PRIO_PROCESS, int(entry.name))
        except (OSError, ProcessLookupError):
            continue  # ended meanwhile
        for lane in found:
            if f" {lane}@".encode() in command:
                found[lane].append(niceness)
    return found


def _light_lane_answers(site: Site, when: str) -> None:
    inputs = [json.loads(line) for line in site.client.get("/b/mmau/test-mini/inputs.jsonl").text.splitlines()]
    run = "".join(json.dumps({"id": item["id"], "prediction": item["options"][0]}) + "\n" for item in inputs)
    started = time.monotonic()
    response = site.client.post("/api/v1/benchmarks/mmau/test-mini/submissions", data={"model_name": f"MMAU {when}"},
                                files=[("predictions", ("mmau.jsonl", run.encode()))])
    assert response.status_code == 201, response.text
    final = _ended(site, response.json()["id"], 60)
    assert final["status"] == "scored" and time.monotonic() - started <= 20, (when, final["status"],
                                                                              time.monotonic() - started)
    started = time.monotonic()
    response = site.client.post("/api/v1/benchmarks/mmau/test-mini/submissions", data={"model_name": f"Broken {when}"},
                                files=[("predictions", ("broken.jsonl", b'{"id": 1, "prediction": \n not json\n'))])
    assert response.status_code == 201, response.text
    final = _ended(site, response.json()["id"], 60)
    assert final["status"] == "invalid" and time.monotonic() - started <= 10, (when, final["status"],
                                                                               time.monotonic() - started)


def _ended(site: Site, uid: str, seconds: float) -> dict[str, Any]:
    return wait_for(lambda: (d := site.client.get(f"/api/v1/submissions/{uid}").json())["status"]
                    in ("scored", "failed", "invalid") and d, seconds, f"submission {uid} to end")




def _demo_references(clone: Path) -> list[dict]:
    with sqlite3.connect(clone / "var" / "db.sqlite3") as db:
        (sha,) = db.execute(
            "SELECT s.references_sha256 FROM leaderboard_split s JOIN leaderboard_benchmark b "
            "ON s.benchmark_id = b.id WHERE b.name = 'dialbgm' AND s.name = 'demo'").fetchone()
    blob = clone / "var" / "media" / "blobs" / sha[:2] / sha
    return [json.loads(line) for line in blob.read_text().splitlines() if line.strip()]
