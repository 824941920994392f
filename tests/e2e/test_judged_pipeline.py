"""Judged metrics through the whole pipeline: a real worker, and a loopback HTTP server speaking the
OpenAI and Anthropic wire formats in place of the paid APIs."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from leaderboard.models import Submission
from leaderboard.services.pipeline.steps import submission_rescore
from tests.helpers.datagen import jamendo_references, write_jsonl
from tests.helpers.e2e import wait_for
from tests.helpers.fake_llm import FakeLLM, fake_error_type, fake_released, fake_score

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
KEY = "sk-test-never-shown-0123456789"


def _predictions(refs: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    words = "both tracks roughly differ in tempo genre mood energy production vocals".split()
    out = []
    for ref in refs:
        if ref["qa_type"] == "sentence":
            text = " ".join(rng.choice(words) for _ in range(rng.randint(3, 14)))
        else:
            text = ref["answer"]
        out.append({"id": ref["id"], "prediction": text})
    return out


def _finished(client: Any, uid: str) -> dict[str, Any] | None:
    data = client.get(f"/api/v1/submissions/{uid}").json()
    if data["status"] not in ("scored", "failed", "invalid"):
        return None
    return data


def _judges_file(tmp_path: Path, base_url: str) -> Path:
    path = tmp_path / "judges.toml"
    path.write_text(f"""
budget_usd = 10.0

[judges.gpt-fake]
kind = "openai"
base_url = "{base_url}"
model = "gpt-4o-mini"
api_key_env = "FAKE_JUDGE_KEY"
max_concurrency = 4
input_usd_per_mtok = 0.15
output_usd_per_mtok = 0.6

[judges.claude-fake]
profiles = ["jamendo-paper"]
kind = "anthropic"
base_url = "{base_url}"
model = "claude-haiku"
api_key_env = "FAKE_JUDGE_KEY"
max_concurrency = 4
""")
    return path


def _expected(predictions: list[dict[str, Any]], refs: list[dict[str, Any]]) -> dict[str, Any]:
    sentences = [p["prediction"] for p, r in zip(predictions, refs) if r["qa_type"] == "sentence"]
    scores = [fake_score(s) for s in sentences]
    failed = [s for s, score in zip(sentences, scores) if score < 3]
    labels = [fake_error_type(s) for s in failed]
    return {
        "judge_score": float(np.mean(scores)),
        "judge_correctness": float(np.mean([fake_released(s)["correctness"] for s in sentences])),
        "error_shares": {label: labels.count(label) / len(labels) for label in
                         ("comparative_collapse", "attribute_hallucination", "granularity_mismatch")},
        "sentences": len(sentences),
    }


def test_judged_columns_audit_and_error_heatmap(alice, maintainer, make_split, start_worker, api, tmp_path):
    refs = jamendo_references(40, seed=12)
    make_split("jamendo-mt-qa", "full", refs)
    runs = {name: _predictions(refs, seed) for name, seed in (("Model one", 1), ("Model two", 2))}
    with FakeLLM() as fake:
        start_worker(JUDGES_FILE=_judges_file(tmp_path, fake.base_url), FAKE_JUDGE_KEY=KEY)
        client = api(alice)
        uids = {}
        for name, predictions in runs.items():
            path = write_jsonl(predictions, tmp_path / f"{name}.jsonl")
            response = client.post("/api/v1/benchmarks/jamendo-mt-qa/full/submissions", data={"model_name": name},
                                   files=[("predictions", (path.name, path.read_bytes()))])
            assert response.status_code == 201, response.text
            uids[name] = response.json()["id"]
        for uid in uids.values():
            final = wait_for(lambda uid=uid: _finished(client, uid), 180, "judged submission to finish")
            assert final["status"] == "scored", final["status_detail"]
        requests_after_first_scoring = fake.count()
        assert requests_after_first_scoring > 0
        assert {r.path for r in fake.requests} == {"/v1/chat/completions", "/v1/messages"}

        for name, uid in uids.items():
            data = client.get(f"/api/v1/submissions/{uid}").json()
            expected = _expected(runs[name], refs)
            metrics = data["metrics"]
            assert metrics["judge_score:gpt-fake"]["value"] == pytest.approx(expected["judge_score"], abs=1e-12)
            assert metrics["judge_score:claude-fake"]["value"] == pytest.approx(expected["judge_score"], abs=1e-12)
            assert metrics["judge_correctness:gpt-fake"]["value"] == pytest.approx(expected["judge_correctness"])
            assert "judge_correctness:claude-fake" not in metrics  # claude serves only jamendo-paper
            for label, share in expected["error_shares"].items():
                assert metrics[f"error_{label}:gpt-fake"]["value"] == pytest.approx(share)
            assert metrics["judge_score:gpt-fake"]["n_scored"] == expected["sentences"]
            assert "gpt-4o-mini" in metrics["judge_score:gpt-fake"]["signature"]
            assert not any(k.startswith("judge_") for k in data["not_computed"])

            report = Submission.objects.get(uid=uid).report
            audit = report["judge"]["columns"]["judge_score:gpt-fake"]
            assert audit["judged"] == expected["sentences"] and audit["parse_failure_rate"] == 0.0
            assert sum(audit["histogram"].values()) == expected["sentences"]
            agreement = report["judge"]["agreement"][0]
            assert agreement["metric"] == "judge_score" and agreement["n"] == expected["sentences"]
            assert agreement["pearson"] == pytest.approx(1.0) and agreement["mean_abs_diff"] == 0.0

        items = client.get(f"/api/v1/submissions/{uids['Model one']}/items", params={"q": "::sentence"}).json()
        note = items["items"][0]["notes"]["judge_score:gpt-fake"]
        assert note["status"] in ("judged", "cached") and '"score"' in note["raw"]

        board = client.get("/api/v1/benchmarks/jamendo-mt-qa/full/leaderboard").json()
        labels = [c["label"] for c in board["columns"]]
        assert "Judge 0-5 [gpt-fake]" in labels and "Judge 0-5 [claude-fake]" in labels
        assert board["not_judged"] == []
        assert board["rows"][0]["entry"]["judge_agreement"][0]["metric"] == "judge_score"
        page = client.get("/b/jamendo-mt-qa/full/").text
        assert "Agreement between judges" in page and "claude-fake" in page
        heatmap = client.get("/api/v1/benchmarks/jamendo-mt-qa/full/heatmap").json()
        errors = heatmap["error_types"]
        assert errors["labels"] == ["attribute hallucination", "comparative collapse", "granularity mismatch"]
        assert sorted(errors["models"]) == ["Model one", "Model two"]
        row = errors["models"].index("Model one")
        shares = _expected(runs["Model one"], refs)["error_shares"]
        assert errors["matrix"][row] == pytest.approx(
            [shares["attribute_hallucination"], shares["comparative_collapse"], shares["granularity_mismatch"]],
            abs=1e-4)

        page = api(maintainer).get(f"/s/{uids['Model one']}/")
        assert "Judge audit" in page.text and "parse failures" in page.text
        everything = json.dumps([client.get(f"/api/v1/submissions/{u}").json() for u in uids.values()])
        assert KEY not in everything and KEY not in page.text

        submission_rescore(Submission.objects.get(uid=uids["Model one"]).pk)
        rescored = wait_for(lambda: _finished(client, uids["Model one"]), 180, "re-scored")
        assert rescored["status"] == "scored"
        assert fake.count() == requests_after_first_scoring  # every reply came from the cache
