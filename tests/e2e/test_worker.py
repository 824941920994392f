"""Upload -> validate -> score -> aggregate with a real Celery worker, PostgreSQL and Redis."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from leaderboard.models import ItemScore, Status, Submission
from leaderboard.services.shared.blobs import blob_root
from scoring.metrics.bertscore.store import EmbeddingStore
from tests.helpers.datagen import (
    dialbgm_predictions,
    dialbgm_references,
    jamendo_predictions,
    jamendo_references,
    write_jsonl,
)
from tests.helpers.e2e import REPO, wait_for
from tests.helpers.reports import assert_same_item_rows, assert_same_values

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _post(client: Any, split: Any, paths: list[Path], **metadata: Any) -> Any:
    files = [("predictions", (p.name, p.read_bytes(), "application/x-ndjson")) for p in paths]
    return client.post(f"/api/v1/benchmarks/{split.benchmark.name}/{split.name}/submissions",
                       data=metadata, files=files)


def _status(client: Any, uid: str) -> dict[str, Any]:
    return client.get(f"/api/v1/submissions/{uid}").json()


def _cli_score(benchmark: str, refs: Path, runs: list[Path], per_item: Path, *extra: str) -> dict[str, Any]:
    args = [sys.executable, "-m", "scoring", "score", "--benchmark", benchmark, "--references", str(refs),
            "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"]), "--per-item", str(per_item), *extra]
    for run in runs:
        args += ["--predictions", str(run)]
    done = subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_uploaded_submission_is_scored_by_a_worker_like_the_cli(alice, make_split, start_worker, api, tmp_path):
    refs = jamendo_references(30, seed=5)
    split = make_split("jamendo-mt-qa", "full", refs)
    ref_path = write_jsonl(refs, tmp_path / "refs.jsonl")
    runs = [write_jsonl(jamendo_predictions(refs, seed=s), tmp_path / f"run{s}.jsonl") for s in (1, 2)]
    store = tmp_path / "bertscore.sqlite3"  # this worker's own: the session's is shared by every test
    start_worker(BERTSCORE_STORE=str(store))
    client = api(alice)
    response = _post(client, split, runs, model_name="E2E model", type="Cap")
    assert response.status_code == 201, response.text
    uid = response.json()["id"]
    final = wait_for(lambda: (s := _status(client, uid))["status"] in ("scored", "failed", "invalid") and s,
                     120, "submission to finish")
    assert final["status"] == "scored", final["status_detail"]

    cli = _cli_score("jamendo-mt-qa", ref_path, runs, tmp_path / "cli-items.jsonl")
    submission = Submission.objects.get(uid=uid)
    assert_same_values({k: v["value"] for k, v in final["metrics"].items()}, cli["metrics"])
    assert_same_values(submission.report["ci95"], cli["ci95"])
    assert_same_values(submission.report["std"], cli["std"])
    assert {k: v["signature"] for k, v in final["metrics"].items()} == cli["signatures"]

    download = client.get(f"/s/{uid}/items.jsonl")
    assert download.status_code == 200
    site_rows = [json.loads(line) for line in download.text.splitlines()]
    cli_rows = [json.loads(line) for line in (tmp_path / "cli-items.jsonl").read_text().splitlines()]
    assert len(site_rows) == len(cli_rows) == 2 * len(refs)
    assert [r["run"] for r in site_rows] == [r["run"] for r in cli_rows]
    assert_same_item_rows(site_rows, cli_rows)

    # the worker stored the references' embeddings (the second run read those the first one stored)
    references = {ref["answer"] for ref in refs}
    assert 0 < len(EmbeddingStore(store, 1 << 30)) <= len(references)


def test_worker_killed_mid_scoring_is_recovered_without_duplicates(alice, make_split, start_worker, api, tmp_path):
    refs = jamendo_references(2000, seed=9)  # 6,000 items in 150 chunks, so scoring lasts long enough to be
    # caught underway (BERTScore off: a loaded machine takes minutes per chunk with it;
    # test_uploaded_submission_is_scored_by_a_worker_like_the_cli has it)
    split = make_split("jamendo-mt-qa", "full", refs)
    run = write_jsonl(jamendo_predictions(refs, seed=4), tmp_path / "run.jsonl")
    fast_lease = {"STALE_AFTER_SECONDS": 6, "HEARTBEAT_SECONDS": 1, "SCORING_CHUNK_SIZE": 40, "SWEEP_EVERY_SECONDS": 1,
                  "BERTSCORE": 0}
    first = start_worker(**fast_lease)
    client = api(alice)
    uid = _post(client, split, [run], model_name="Killed").json()["id"]
    wait_for(lambda: (s := _status(client, uid))["status"] == "scoring"
             and 0.1 < s["progress"]["done"] / max(1, s["progress"]["total"]) < 0.7, 240, "scoring to be underway")
    first.kill()
    killed = time.monotonic()
    stuck = _status(client, uid)
    assert stuck["status"] == "scoring" and stuck["progress"]["done"] < stuck["progress"]["total"], stuck

    start_worker(beat=True, **fast_lease)  # the sweeper notices the expired lease and re-queues
    wait_for(lambda: _status(client, uid)["progress"]["done"] > stuck["progress"]["done"], 90, "scoring again")
    print(f"\n[recovery] whole worker SIGKILLed -> scoring again on a new worker: {time.monotonic() - killed:.1f} s "
          "(includes starting that worker; target <= 90 s)")
    final = wait_for(lambda: (s := _status(client, uid))["status"] in ("scored", "failed") and s, 180,
                     "recovery after the kill")
    assert final["status"] == "scored", final["status_detail"]
    submission = Submission.objects.get(uid=uid)
    assert submission.attempts >= 2
    rows = ItemScore.objects.filter(submission=submission)
    assert rows.count() == len(refs)
    assert rows.values("run", "index").distinct().count() == len(refs)
    cli = _cli_score("jamendo-mt-qa", write_jsonl(refs, tmp_path / "refs.jsonl"), [run], tmp_path / "i.jsonl",
                     "--no-bertscore")
    assert submission.report["metrics"] == cli["metrics"]


def test_twenty_simultaneous_uploads_all_end_scored(make_user, make_split, start_worker, api, tmp_path, settings):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "DAILY_QUOTA": 100}
    refs = dialbgm_references(80, seed=2)
    split = make_split("dialbgm", "test", refs)
    start_worker(pool="prefork", concurrency=2)
    users = [make_user(f"user{i}") for i in range(4)]
    clients = [api(u) for u in users]
    paths = [write_jsonl(dialbgm_predictions(refs, seed=i), tmp_path / f"p{i}.jsonl") for i in range(20)]

    def send(i: int) -> Any:
        return _post(clients[i % 4], split, [paths[i]], model_name=f"Parallel {i}")

    with ThreadPoolExecutor(max_workers=20) as pool:
        responses = list(pool.map(send, range(20)))
    assert [r.status_code for r in responses] == [201] * 20
    uids = {r.json()["id"] for r in responses}
    assert len(uids) == 20
    wait_for(lambda: Submission.objects.filter(uid__in=uids, status=Status.SCORED).count() == 20, 240,
             "all 20 submissions scored")
    assert Submission.objects.filter(split=split).count() == 20
    assert set(Submission.objects.values_list("model_name", flat=True)) == {f"Parallel {i}" for i in range(20)}
    for submission in Submission.objects.filter(uid__in=uids):
        assert submission.item_scores.count() == len(refs)


def test_two_hundred_megabyte_upload_is_refused_and_nothing_is_stored(alice, make_split, api, tmp_path):
    split = make_split("dialbgm", "test", dialbgm_references(10))
    huge = tmp_path / "huge.jsonl"
    with open(huge, "wb") as out:
        line = b'{"id": "dlg-0", "scores": {"clip0-0": 1, "clip0-1": 2, "clip0-2": 3, "clip0-3": 4}}\n'
        out.write(line * (200 * 1024 * 1024 // len(line) + 1))
    blobs = sum(1 for _ in blob_root().rglob("*")) if blob_root().exists() else 0
    with open(huge, "rb") as handle:
        response = api(alice).post(f"/api/v1/benchmarks/dialbgm/{split.name}/submissions",
                                   data={"model_name": "Huge"}, files=[("predictions", ("huge.jsonl", handle))])
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "file_too_large"
    assert "100 MB" in response.json()["error"]["message"]
    assert Submission.objects.count() == 0
    assert (sum(1 for _ in blob_root().rglob("*")) if blob_root().exists() else 0) == blobs
