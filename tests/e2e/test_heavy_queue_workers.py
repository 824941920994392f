"""BERTScore on a heavy queue with two real workers: PostgreSQL, Redis, Celery.

The second worker consumes only ``SCORING_HEAVY_QUEUE`` (a GPU worker in production; CPU here, since
the routing is what is tested). Each heavy chunk records the node that stored it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from leaderboard.models import HeavyChunk, ItemScore, Status, Submission
from tests.helpers.datagen import (
    dialbgm_predictions,
    dialbgm_references,
    jamendo_predictions,
    jamendo_references,
    write_jsonl,
)
from tests.helpers.e2e import FAST_RECOVERY, REPO, wait_for
from tests.helpers.reports import assert_same_item_rows, assert_same_values

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
CHUNK = {"SCORING_CHUNK_SIZE": 60}  # 10 chunks of a 600-item run to route; production: 2,000 items or ~32,768 tokens
# chunks that take seconds, so that a worker can be caught mid-chunk: 200 sentences a chunk, none of whose references
# the embedding store holds from an earlier test
SLOW_CHUNKS = {"SCORING_CHUNK_SIZE": 600, "BERTSCORE_STORE": ""}


def _post(client: Any, split: Any, path: Path, name: str) -> str:
    response = client.post(f"/api/v1/benchmarks/{split.benchmark.name}/{split.name}/submissions",
                           data={"model_name": name}, files=[("predictions", (path.name, path.read_bytes()))])
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def _finished(uid: str, timeout: float) -> Submission:
    return wait_for(lambda: (s := Submission.objects.get(uid=uid)).status in (Status.SCORED, Status.FAILED) and s,
                    timeout, "the submission to finish")


def _cli(refs: Path, run: Path, per_item: Path) -> dict[str, Any]:
    args = [sys.executable, "-m", "scoring", "score", "--benchmark", "jamendo-mt-qa", "--references", str(refs),
            "--predictions", str(run), "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"]),
            "--per-item", str(per_item)]
    return dict(json.loads(subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=True).stdout))


def _assert_like_the_cli(client: Any, submission: Submission, refs: Path, run: Path, tmp_path: Path) -> None:
    cli = _cli(refs, run, tmp_path / "cli-items.jsonl")
    assert_same_values(submission.report["metrics"], cli["metrics"])
    assert_same_values(submission.report["ci95"], cli["ci95"])
    assert submission.report["signatures"] == cli["signatures"]
    assert any(key.startswith("bertscore") for key in cli["metrics"])
    rows = ItemScore.objects.filter(submission=submission)
    assert rows.values("run", "index").distinct().count() == rows.count()  # no duplicate rows
    site_rows = [json.loads(line) for line in client.get(f"/s/{submission.uid}/items.jsonl").text.splitlines()]
    cli_rows = [json.loads(line) for line in (tmp_path / "cli-items.jsonl").read_text().splitlines()]
    assert len(site_rows) == len(cli_rows) == rows.count()
    assert_same_item_rows(site_rows, cli_rows)


def _heavy_setup(make_split: Any, start_worker: Any, worker_env: dict[str, str], tmp_path: Path,
                 pairs: int, chunk: dict[str, Any] = CHUNK, **extra: Any) -> tuple[Any, Path, Path, str, Any]:
    refs = jamendo_references(pairs, seed=5)
    split = make_split("jamendo-mt-qa", "full", refs)
    ref_path = write_jsonl(refs, tmp_path / "refs.jsonl")
    run = write_jsonl(jamendo_predictions(refs, seed=1), tmp_path / "run.jsonl")
    queue = worker_env["CELERY_QUEUE"] + "-heavy"
    cpu = start_worker(SCORING_HEAVY_QUEUE=queue, **chunk, **extra)
    return split, ref_path, run, queue, cpu


def test_bertscore_chunks_go_to_the_heavy_worker_while_other_submissions_keep_flowing(
        alice, make_split, start_worker, worker_env, api, tmp_path):
    split, ref_path, run, queue, cpu = _heavy_setup(make_split, start_worker, worker_env, tmp_path, pairs=200)
    gpu = start_worker(queues=[queue], SCORING_HEAVY_QUEUE=queue, **CHUNK)
    ranking_refs = dialbgm_references(80, seed=2)
    ranking = make_split("dialbgm", "test", ranking_refs)
    client = api(alice)

    uid = _post(client, split, run, "With BERTScore")
    wait_for(lambda: HeavyChunk.objects.filter(submission__uid=uid).exclude(lease_owner="").exists(), 120,
             "the heavy worker to take a BERTScore chunk")
    other = _post(client, ranking, write_jsonl(dialbgm_predictions(ranking_refs), tmp_path / "rank.jsonl"), "Ranking")
    other_done = _finished(other, 120)
    busy = HeavyChunk.objects.filter(submission__uid=uid, status=HeavyChunk.PENDING)
    pending, leased = busy.count(), busy.filter(lease_until__gt=timezone.now()).count()
    assert other_done.status == Status.SCORED, other_done.status_detail
    assert not other_done.heavy_chunks.exists()
    print(f"\n[heavy queue] ranking submission scored while {pending} BERTScore chunk(s) were pending, "
          f"{leased} leased by the heavy worker")
    assert pending >= 1 and leased == 1  # the heavy worker was still busy with the first submission

    final = _finished(uid, 300)
    assert final.status == Status.SCORED, final.status_detail
    chunks = list(final.heavy_chunks.values_list("start", "stop", "status", "worker", "queue"))
    assert [c[:2] for c in chunks] == [(s, min(s + 60, 600)) for s in range(0, 600, 60)]
    assert {c[2:] for c in chunks} == {(HeavyChunk.DONE, gpu.name, queue)}
    cpu_log, gpu_log = cpu.log.read_text(errors="replace"), gpu.log.read_text(errors="replace")
    assert "score_heavy_chunk[" not in cpu_log and "score_submission[" in cpu_log  # "Task <name>[<id>] received"
    assert "score_heavy_chunk[" in gpu_log and "score_submission[" not in gpu_log
    assert "validate_submission[" not in gpu_log
    _assert_like_the_cli(client, final, ref_path, run, tmp_path)


def test_heavy_worker_killed_mid_chunk_is_replaced_without_duplicates(
        alice, make_split, start_worker, worker_env, api, tmp_path):
    split, ref_path, run, queue, _ = _heavy_setup(make_split, start_worker, worker_env, tmp_path, pairs=600,
                                                 chunk=SLOW_CHUNKS, **FAST_RECOVERY)
    start_worker(sweeper_only=True, SCORING_HEAVY_QUEUE=queue, **FAST_RECOVERY)
    first = start_worker(queues=[queue], SCORING_HEAVY_QUEUE=queue, **SLOW_CHUNKS, **FAST_RECOVERY)
    client = api(alice)
    uid = _post(client, split, run, "GPU lost")
    chunks = HeavyChunk.objects.filter(submission__uid=uid)
    held = wait_for(lambda: chunks.filter(status=HeavyChunk.DONE).exists()
                    and chunks.filter(status=HeavyChunk.PENDING).exclude(lease_owner="").first(), 180,
                    "a chunk stored and the next one underway")
    first.kill()  # the whole GPU worker, mid-chunk: its message stays unacknowledged
    killed = time.monotonic()
    second = start_worker(queues=[queue], SCORING_HEAVY_QUEUE=queue, **SLOW_CHUNKS, **FAST_RECOVERY)
    final = _finished(uid, 240)
    print(f"\n[heavy queue] GPU worker SIGKILLed mid-chunk -> scored on a new one: {time.monotonic() - killed:.1f} s")
    assert final.status == Status.SCORED, final.status_detail
    taken_over = HeavyChunk.objects.get(pk=held.pk)
    assert taken_over.status == HeavyChunk.DONE and taken_over.attempts == 2 and taken_over.worker == second.name
    assert set(chunks.values_list("worker", flat=True)) <= {first.name, second.name}
    assert chunks.count() == 3 and not chunks.exclude(status=HeavyChunk.DONE).exists()
    _assert_like_the_cli(client, final, ref_path, run, tmp_path)


def test_two_heavy_workers_share_the_chunks_and_accounts_take_turns(
        alice, bob, make_split, start_worker, worker_env, api, tmp_path):
    """Alice's two runs are queued before Bob's: two heavy worker processes take chunks from one queue, every
    chunk is stored once, and Bob's run is scored before Alice's second (accounts take turns; in message order
    his chunks would all wait behind hers)."""
    chunk = {"SCORING_CHUNK_SIZE": 15}
    refs = jamendo_references(50, seed=7)  # 150 items: ten chunks a run
    split = make_split("jamendo-mt-qa", "full", refs)
    queue = worker_env["CELERY_QUEUE"] + "-heavy"
    start_worker(SCORING_HEAVY_QUEUE=queue, **chunk)
    runs = [write_jsonl(jamendo_predictions(refs, seed=s), tmp_path / f"run{s}.jsonl") for s in (1, 2, 3)]
    uids = [_post(api(alice), split, runs[0], "Alice one"), _post(api(alice), split, runs[1], "Alice two"),
            _post(api(bob), split, runs[2], "Bob")]
    wait_for(lambda: HeavyChunk.objects.filter(submission__uid=uids[2]).count() == 10, 180,
             "every run's chunks to be planned")
    heavy = [start_worker(queues=[queue], SCORING_HEAVY_QUEUE=queue, **chunk) for _ in range(2)]
    finals = [_finished(uid, 400) for uid in uids]
    assert [f.status for f in finals] == [Status.SCORED] * 3, [f.status_detail for f in finals]
    chunks = HeavyChunk.objects.filter(submission__in=finals)
    assert chunks.count() == 30 and not chunks.exclude(status=HeavyChunk.DONE).exists()
    assert set(chunks.values_list("worker", flat=True)) == {w.name for w in heavy}  # both took chunks
    assert set(chunks.values_list("attempts", flat=True)) == {1}  # none scored twice
    ended = {f.model_name: f.finished_at for f in finals}
    print(f"\n[heavy queue] two workers: Bob's run ended {(ended['Alice two'] - ended['Bob']).total_seconds():.1f} s "
          "before Alice's second")
    assert ended["Bob"] < ended["Alice two"]
