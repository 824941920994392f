"""Light work beside heavy work on the embedded default: how long a small run and a broken file wait.

In a temporary data directory (SQLite, the filesystem broker: ``manage.py runsite``, what ``scripts/run-site``
starts, with its lanes of workers), imports MusicQA's and MMAU test-mini's released references with
``import_references --from`` (the import queues the encoding of MusicQA's BERTScore reference embeddings on the
heavy lane), then, right after the imports and again while a 5,040-item MusicQA run scores:

- a 1,000-item MMAU run (every answer its first option): upload to scored;
- a broken MMAU file (a line that is not JSON): upload to invalid.

Beside them: the same MMAU file scored by ``python -m scoring score`` (interpreter start included: the bare
library's time for that work) and the MusicQA run's own upload to scored. Targets: the MMAU run within 20 s and
the broken file within 10 s in both phases; every line carries the load average.

    SHARED_DIR=/work/shared .venv/bin/python bench/lane_latency.py
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bertscore_site import SUITE_VARIABLES, manage  # noqa: E402
from bench.bertscore_speed import load_average  # noqa: E402

SHARED = Path(os.environ.get("SHARED_DIR", REPO.parent / "shared"))
BROKEN = b'{"id": 1, "prediction": \n not json\n'


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _until(check: Callable[[], Any], seconds: float, what: str) -> Any:
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        found = check()
        if found:
            return found
        time.sleep(0.25)
    raise SystemExit(f"{what}: not within {seconds:.0f} s")


def _upload(client: httpx.Client, path: str, name: str, body: bytes) -> str:
    response = client.post(f"/api/v1/benchmarks/{path}/submissions", data={"model_name": name},
                           files=[("predictions", (f"{name}.jsonl", body))])
    response.raise_for_status()
    return str(response.json()["id"])


def _ended(client: httpx.Client, uid: str, seconds: float) -> dict[str, Any]:
    def state() -> dict[str, Any] | None:
        found: dict[str, Any] = client.get(f"/api/v1/submissions/{uid}").json()
        return found if found["status"] in ("scored", "failed", "invalid") else None
    return dict(_until(state, seconds, f"submission {uid} to end"))


def _timed(client: httpx.Client, path: str, name: str, body: bytes, expect: str, seconds: float) -> float:
    start = time.monotonic()
    final = _ended(client, _upload(client, path, name, body), seconds)
    if final["status"] != expect:
        raise SystemExit(f"{name}: {final['status']} ({final.get('status_detail')}), expected {expect}")
    return time.monotonic() - start


def _light_lane(client: httpx.Client, mmau_run: bytes, when: str) -> None:
    run = _timed(client, "mmau/test-mini", f"MMAU {when}", mmau_run, "scored", 600)
    broken = _timed(client, "mmau/test-mini", f"Broken {when}", BROKEN, "invalid", 600)
    verdict = "ok" if run <= 20 and broken <= 10 else "OVER TARGET"
    print(f"{when:28} MMAU 1,000-item run upload to scored {run:6.1f} s (target 20)   broken file upload to "
          f"invalid {broken:5.1f} s (target 10)   {verdict}   (load {load_average()})", flush=True)


def _cli_seconds(env: dict[str, str], references: Path, predictions: Path) -> float:
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "scoring", "score", "--benchmark", "mmau", "--references-format", "mmau",
                    "--references", str(references), "--predictions", str(predictions)], cwd=REPO, env=env,
                   capture_output=True, check=True)
    return time.monotonic() - start


def main() -> None:
    musicqa, mmau = SHARED / "data" / "musicqa", SHARED / "data" / "mmau"
    if not (musicqa / "EvalMusicQA.json").exists() or not (mmau / "mmau-test-mini.json").exists():
        raise SystemExit(f"needs {musicqa}/EvalMusicQA.json and {mmau}/mmau-test-mini.json (SHARED_DIR)")
    folder = Path(tempfile.mkdtemp(prefix="lane-latency-"))
    env = {k: v for k, v in os.environ.items() if k not in SUITE_VARIABLES}
    env.update({"LEADERBOARD_DATA_DIR": str(folder / "var"), "DEBUG": "1",
                "BERTSCORE_STORE": str(folder / "bertscore.sqlite3")})
    manage(env, "migrate", "--verbosity", "0")
    port = _port()
    log = open(folder / "runsite.log", "wb")  # noqa: SIM115 - closed below
    site = subprocess.Popen([sys.executable, "manage.py", "runsite", "--addr", f"127.0.0.1:{port}"], cwd=REPO,
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        token = manage(env, "issue_token", "bench", "--create").strip().splitlines()[-1]
        client = httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Token {token}"},
                              timeout=60)
        _until(lambda: _healthy(client), 300, "the site to answer")
        time.sleep(5)  # the workers' own start (imports) is no submission's wait
        for data in (musicqa, mmau):
            manage(env, "import_references", "--from", str(data))
        print(f"MusicQA and MMAU test-mini imported (load {load_average()})", flush=True)
        inputs = [json.loads(line) for line in client.get("/b/mmau/test-mini/inputs.jsonl").text.splitlines()]
        mmau_run = "".join(json.dumps({"id": i["id"], "prediction": i["options"][0]}) + "\n" for i in inputs).encode()
        (folder / "mmau.jsonl").write_bytes(mmau_run)
        _light_lane(client, mmau_run, "right after the imports")

        questions = [json.loads(line) for line in client.get("/b/musicqa/test/inputs.jsonl").text.splitlines()]
        heavy_run = "".join(json.dumps({"id": q["id"], "prediction": "A calm piano piece."}) + "\n"
                            for q in questions).encode()
        heavy_start = time.monotonic()
        heavy = _upload(client, "musicqa/test", "Heavy run", heavy_run)
        _until(lambda: client.get(f"/api/v1/submissions/{heavy}").json()["status"] in ("scoring", "aggregating"),
               600, "the MusicQA run to start scoring")
        _light_lane(client, mmau_run, "while MusicQA scores")
        final = _ended(client, heavy, 3600)
        print(f"the {len(questions):,}-item MusicQA run itself: upload to {final['status']} "
              f"{time.monotonic() - heavy_start:.1f} s (load {load_average()})", flush=True)
        cli = _cli_seconds(env, mmau / "mmau-test-mini.json", folder / "mmau.jsonl")
        print(f"the same MMAU file by python -m scoring score (bare library, interpreter start included): {cli:.1f} s",
              flush=True)
    finally:
        os.killpg(site.pid, signal.SIGTERM)
        try:
            site.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(site.pid, signal.SIGKILL)
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


def _healthy(client: httpx.Client) -> bool:
    try:
        return client.get("/healthz").status_code == 200
    except httpx.HTTPError:
        return False


if __name__ == "__main__":
    main()
