"""CMI-Bench multi-label tagging end to end: released-format task files imported with the management commands,
result files with messy model-like responses uploaded as the publisher's inference writes them, scored by a real
Celery worker on PostgreSQL (BERTScore included), with numbers and signatures equal to the CLI's on the same
files; the papers' micro-F1 rows sit in the other-protocol lane of the site's tag-set column.

Each split holds a slice of its released file (a slice is a released-format file): for every tag the first clip
whose reference holds it, plus the first clips of the file and, for MagnaTagATune, clips without a tag, so that
every tag column has both classes (the ROC-AUC is defined) while the worker's BERTScore on the CPU stays short."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command

from scoring.metrics.cmi_tag_vocabularies import VOCABULARIES
from tests.helpers.e2e import REPO, wait_for
from tests.helpers.shared import shared_file

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# benchmark -> (released file, vocabulary, seed of the responses, upload as JSON Lines rather than one JSON array)
RUNS = {
    "cmi-mtt": ("CMI_MTT_test.jsonl", "MTT", 31, True),
    "cmi-mtg-mood": ("CMI_MTG_emotion_test.jsonl", "MTG_emotion", 32, False),
}
RESULT_FIELDS = ("question", "response", "correct_answer", "audioid")  # as model/infer.py writes a result record


def _slice(name: str, vocabulary: str, path: Path) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in shared_file("data", "cmi-bench-tags", name).open(encoding="utf-8")]
    keep = set(range(12)) | {n for n, r in enumerate(records) if not r["output"]}.intersection(range(200))
    for tag in VOCABULARIES[vocabulary]:
        keep.add(next(n for n, r in enumerate(records) if tag.lower() in r["output"].lower()))
    chosen = [records[n] for n in sorted(keep)]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in chosen), encoding="utf-8")
    return chosen


def _response(reference: str, vocabulary: str, rng: random.Random) -> str:
    tags = [t for t in reference.split(", ") if t]
    other = rng.choice(VOCABULARIES[vocabulary])
    return rng.choice([
        reference,
        reference.upper().replace(", ", "; "),
        f"The music sounds {', '.join(tags[:2]) or 'calm'} with some {other}.",
        "\n".join([*tags, other, "xylophone-ish"]),
        "",
        " / ".join(t.replace(" ", "-") for t in [*tags, *tags]),
        other,
        "I cannot identify any tags for this audio.",
    ])


def _result_file(records: list[dict[str, Any]], vocabulary: str, run: Path, seed: int, jsonl: bool) -> None:
    rng = random.Random(seed)
    results = [{"question": r["instruction"], "response": _response(r["output"], vocabulary, rng),
                "correct_answer": r["output"], "audioid": "../test" + r["audio_path"][0]} for r in records]
    with open(run, "w", encoding="utf-8") as handle:
        if jsonl:
            handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in results)
        else:
            json.dump(results, handle, ensure_ascii=False)


def _cli(benchmark: str, references: Path, run: Path) -> dict[str, Any]:
    args = [sys.executable, "-m", "scoring", "score", "--benchmark", benchmark, "--references", str(references),
            "--references-format", "cmi-bench", "--predictions", str(run), "--predictions-format", "cmi-bench",
            "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"])]
    return json.loads(subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=True).stdout)


def test_cmi_tagging_result_files_score_on_the_site_like_the_cli(alice, start_worker, api, tmp_path) -> None:
    references, runs = {}, {}
    for name, (file, vocabulary, seed, jsonl) in RUNS.items():
        references[name] = tmp_path / f"{name}-references.jsonl"
        records = _slice(file, vocabulary, references[name])
        runs[name] = tmp_path / f"{name}-run.{'jsonl' if jsonl else 'json'}"
        _result_file(records, vocabulary, runs[name], seed, jsonl)
    call_command("create_benchmark", *RUNS)
    for name, path in references.items():
        call_command("import_references", name, "test", str(path), "--format", "cmi-bench")
    call_command("load_baselines")
    client = api(alice)

    start_worker()
    uids = {}
    for name, run in runs.items():
        response = client.post(f"/api/v1/benchmarks/{name}/test/submissions", data={"model_name": f"{name} model"},
                               files=[("predictions", (run.name, run.read_bytes(), "application/octet-stream"))])
        assert response.status_code == 201, response.text
        uids[name] = str(response.json()["id"])
    finals = {name: wait_for(lambda uid=uid: (s := client.get(f"/api/v1/submissions/{uid}").json())["status"]
                             in ("scored", "failed", "invalid") and s, 600, f"{name} to finish")
              for name, uid in uids.items()}
    for name, final in finals.items():
        assert final["status"] == "scored", (name, final["status_detail"], final.get("problems"))
        cli = _cli(name, references[name], runs[name])
        assert {k: v["value"] for k, v in final["metrics"].items()} == cli["metrics"], name
        assert {k: v["signature"] for k, v in final["metrics"].items()} == cli["signatures"], name
        assert set(cli["metrics"]) == {"bertscore_roc_auc", "bertscore_pr_auc", "micro_f1", "micro_precision",
                                       "micro_recall"}
        assert all(v is not None for v in cli["metrics"].values()), name
        assert cli["diagnostics"]["out_of_vocabulary"][0] > 0 and cli["diagnostics"]["no_tag"][0] > 0
    mtt_clips_without_tag = sum(1 for line in references["cmi-mtt"].open() if not json.loads(line)["output"])
    assert mtt_clips_without_tag > 0  # kept: the publisher scores them (all-negative rows)

    board = client.get("/api/v1/benchmarks/cmi-mtt/test/leaderboard", params={"sort": "micro_f1"}).json()
    assert [r["rank"] for r in board["rows"]] == [1]
    papers = {r["model_name"]: r for r in board["published_rows"]}
    assert set(papers) == {"Qwen3-Omni-30B-A3B-Instruct", "MuQ"}
    assert {(r["rank"], r["lane"]) for r in papers.values()} == {(None, "other_protocol")}
    page = client.get("/b/cmi-mtg-mood/test/", follow_redirects=True)
    assert page.status_code == 200 and "cmi-mtg-mood model" in page.text
    inputs = [json.loads(line) for line in client.get("/b/cmi-mtg-mood/test/inputs.jsonl").text.splitlines()]
    assert len(inputs) == sum(1 for _ in references["cmi-mtg-mood"].open())  # the starter kit's inputs: no label
    assert inputs and all(set(i) <= {"id", "question", "audio"} for i in inputs)
    about = client.get("/b/cmi-mtg-mood/", follow_redirects=True).text  # the licence of the labels, on its page
    assert "CC BY-NC-SA 4.0" in about and "never the labels" in about and "not computed here" in about
