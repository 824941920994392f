"""A 5,040-item MusicQA submission on the embedded default vs the CLI on the same files.

In a temporary data directory (SQLite, the filesystem broker, one worker: ``manage.py runsite``,
what ``scripts/run-site`` starts), imports MusicQA's released references (EvalMusicQA.json) as a
split, uploads one run of real answers (``bench.bertscore_speed.real_pairs``: other items' answers,
lower-cased, first two words swapped, 2% short outputs) through the API and polls the submission every
2 s until it is scored: the time from upload to scored and the progress over time (the BERTScore stage
must move). The import has queued the encoding of the references' embeddings into the worker host's store
(``BERTSCORE_STORE``, ``leaderboard/services/pipeline/warming.py``); the first submission is uploaded once
the worker has done that (its time is printed), as when references were imported a while before, so it reads
them as every later submission does. A second submission (another seed's answers) is timed the same way.
``--no-warm`` (``BERTSCORE_WARM=0``) leaves the store empty until the first submission fills it.
The CLI (``python -m scoring score``, default MiniLM BERTScore, interpreter start included) scores
the same files before and after the site, so both see similar load; every line carries the load
average. The site's and the CLI's values must agree (BERTScore to 1e-6, every other metric exactly).

    SHARED_DIR=/work/shared .venv/bin/python bench/bertscore_site.py [--items 5040] [--no-warm]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bertscore_speed import MUSICQA, load_average, real_pairs  # noqa: E402

SUITE_VARIABLES = ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "CELERY_QUEUE",
                   "CELERY_TASK_ALWAYS_EAGER", "CACHE_KEY_PREFIX", "ALLOWED_HOSTS", "BOOTSTRAP_REPLICATES")


def write_files(folder: Path, n: int) -> tuple[Path, Path, Path]:
    """The references, the run both sides score, and another seed's run for the site's second submission."""
    from scoring.publishers.importers import import_musicqa

    records = import_musicqa(MUSICQA)[:n]
    references = folder / "references.jsonl"
    references.write_text("".join(json.dumps(r) + "\n" for r in records))
    runs = []
    for seed in (0, 1):
        cands, _ = real_pairs(len(records), seed=seed)
        run = folder / f"predictions-{seed}.jsonl"
        run.write_text("".join(json.dumps({"id": r["id"], "prediction": c}) + "\n" for r, c in zip(records, cands)))
        runs.append(run)
    return references, runs[0], runs[1]


def cli_score(env: dict[str, str], references: Path, predictions: Path) -> tuple[float, dict]:  # type: ignore[type-arg]
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "scoring", "score", "--benchmark", "musicqa", "--references",
                          str(references), "--predictions", str(predictions)], cwd=REPO, env=env,
                         capture_output=True, text=True, check=True).stdout
    elapsed = time.perf_counter() - start
    print(f"CLI: {elapsed:.1f} s (load {load_average()})", flush=True)
    return elapsed, json.loads(out)


def manage(env: dict[str, str], *args: str) -> str:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True,
                          check=True).stdout


def site_score(env: dict[str, str], references: Path, n: int, *runs: Path) -> list[tuple[float, dict]]:  # type: ignore[type-arg]
    """Each run uploaded as a submission once the previous one is scored (the first once the references' embeddings
    are stored, unless warming is off): (upload to scored, final state) each."""
    manage(env, "migrate", "--verbosity", "0")
    manage(env, "create_benchmark", "musicqa")
    manage(env, "import_references", "musicqa", "bench", str(references))
    token = manage(env, "issue_token", "bench", "--create").strip().splitlines()[-1]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = open(Path(env["LEADERBOARD_DATA_DIR"]) / "runsite.log", "wb")  # noqa: SIM115 - closed below
    site = subprocess.Popen([sys.executable, "manage.py", "runsite", "--addr", f"127.0.0.1:{port}"], cwd=REPO,
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        client = httpx.Client(base_url=base, headers={"Authorization": f"Token {token}"}, timeout=60)
        for _ in range(300):
            try:
                if client.get("/healthz").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(1)
        time.sleep(5)  # the worker's own start (imports) is not part of a submission's time
        if env.get("BERTSCORE_WARM") != "0":
            _wait_warmed(Path(log.name), n)
        return [_submission(client, run, number) for number, run in enumerate(runs, 1)]
    finally:
        os.killpg(site.pid, signal.SIGTERM)
        try:
            site.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(site.pid, signal.SIGKILL)
        log.close()


def _wait_warmed(log: Path, n: int) -> None:
    """Until the worker logs the last step of encoding the references' embeddings (items ..-n)."""
    start = time.perf_counter()
    last_step = re.compile(rf"BERTScore embeddings of musicqa/bench, items \d+-{n}: ")
    while not last_step.search(log.read_text(errors="replace")):
        if time.perf_counter() - start > 900:
            raise SystemExit("the references' embeddings were not stored within 15 minutes")
        time.sleep(1)
    print(f"references' embeddings stored by the worker {time.perf_counter() - start:.1f} s after it was up "
          f"(load {load_average()})", flush=True)


def _submission(client: httpx.Client, predictions: Path, number: int) -> tuple[float, dict]:  # type: ignore[type-arg]
    start = time.perf_counter()
    response = client.post("/api/v1/benchmarks/musicqa/bench/submissions", data={"model_name": f"Bench {number}"},
                           files=[("predictions", (predictions.name, predictions.read_bytes()))])
    response.raise_for_status()
    uid = response.json()["id"]
    last = None
    while True:
        state = client.get(f"/api/v1/submissions/{uid}").json()
        progress = (state["status"], state.get("progress", {}).get("done"), state.get("progress", {}).get("total"))
        if progress != last:
            print(f"  {time.perf_counter() - start:7.1f} s  {progress[0]:12} {progress[1]}/{progress[2]}  "
                  f"(load {load_average()})", flush=True)
            last = progress
        if state["status"] in ("scored", "failed", "invalid"):
            break
        time.sleep(2)
    elapsed = time.perf_counter() - start
    if state["status"] != "scored":
        raise SystemExit(f"site: {state['status']}: {state.get('status_detail')}")
    print(f"site (embedded default), submission {number}, upload to scored: {elapsed:.1f} s "
          f"(load {load_average()})", flush=True)
    return elapsed, state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=5040)
    parser.add_argument("--no-warm", action="store_true", help="BERTSCORE_WARM=0: the first submission fills the store")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bertscore-site-"))
    try:
        env = {k: v for k, v in os.environ.items() if k not in SUITE_VARIABLES}
        env.update({"LEADERBOARD_DATA_DIR": str(folder / "var"), "DEBUG": "1",
                    "BERTSCORE_STORE": str(folder / "bertscore.sqlite3"),  # empty at the start, as on a new host
                    "BERTSCORE_WARM": "0" if args.no_warm else "1"})
        references, predictions, second = write_files(folder, args.items)
        print(f"{args.items:,} MusicQA items, load average {load_average()}", flush=True)
        cli_before, report = cli_score(env, references, predictions)
        (site, state), (site_second, _) = site_score(env, references, args.items, predictions, second)
        cli_after, _ = cli_score(env, references, predictions)
        for key, value in report["metrics"].items():
            shown = state["metrics"][key]["value"]
            tolerance = 1e-6 if key.startswith("bertscore") else 0.0
            if abs(shown - value) > tolerance:
                raise SystemExit(f"{key}: site {shown} CLI {value}")
        cli = (cli_before + cli_after) / 2
        print(f"site / CLI (mean of the CLI before and after): {site / cli:.2f}x "
              f"(site {site:.1f} s, CLI {cli_before:.1f} s and {cli_after:.1f} s); values agree", flush=True)
        print(f"the second submission: {site_second:.1f} s, "
              f"{site_second / cli:.2f}x the CLI", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
