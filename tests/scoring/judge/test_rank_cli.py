"""DialBGM judge-as-ranker, judge agreement, and the judge CLI commands (over loopback HTTP)."""

from __future__ import annotations

import argparse
import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from scoring.engine import Scorer
from scoring.judge.agreement import judge_agreement
from scoring.judge.cli import add_judge_commands
from scoring.judge.rank import context_text, judge_rank
from scoring.reading.validation import load_predictions, load_references
from scoring.specs import get_benchmark
from tests.helpers.fake_llm import FakeLLM, fake_score
from tests.helpers.judge_data import API_KEY, API_KEY_ENV, jamendo_items

CAPTIONS = {
    "calm": "calm ambient pads with soft piano",  # 0.2*8 + 0.5*6 + 0.3*6 = 6.4
    "busy": "busy drums and sharp leads",  # technicality 2 < 3: capped at 3.0
    "vocal": "pop song with prominent female vocal singing",  # prominent vocals: capped at 2.0
    "gentle": "gentle acoustic guitar melody in a slow tempo with warm strings",  # fit 0: 3.4
}
EXPECTED = {"calm": 6.4, "busy": 3.0, "vocal": 2.0, "gentle": 3.4}
DIALOGUE = [{"speaker": "A", "text": "Shall we take a walk by the lake?"},
            {"speaker": "B", "text": "Sure, it is calm."}]
GOLD = ["calm", "gentle", "busy", "vocal"]


def _dialbgm_refs(path: Path) -> Path:
    rows = [
        {"id": "d1", "candidates": ["busy", "calm", "vocal", "gentle"], "gold_ranking": GOLD,
         "dialogue": DIALOGUE, "summary": "A calm walk.", "candidate_captions": CAPTIONS},
        {"id": "d2", "candidates": ["vocal", "gentle", "calm", "busy"], "gold_ranking": GOLD,
         "dialogue": DIALOGUE, "summary": "A calm walk."},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _captions_csv(path: Path, ids: list[str]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=["ytid", "caption"])
        writer.writeheader()
        writer.writerows({"ytid": i, "caption": CAPTIONS[i]} for i in ids)
    return path


def _cli(fake: FakeLLM, *args: str) -> int:
    parser = argparse.ArgumentParser()
    add_judge_commands(parser.add_subparsers())
    backend = ["--backend", "openai", "--model", "gpt-4o-mini", "--base-url", fake.base_url,
               "--api-key-env", API_KEY_ENV, "--max-retries", "0"]
    ns = parser.parse_args([*args, *backend])
    return int(ns.handler(ns))


def test_judge_rank_scores_every_candidate(fake: FakeLLM, make_judge, tmp_path: Path) -> None:
    spec = get_benchmark("dialbgm")
    references = load_references(spec, _dialbgm_refs(tmp_path / "refs.jsonl")).references
    outcome = judge_rank(references[:1], make_judge())
    assert outcome.rows == [{"id": "d1", "scores": {c: pytest.approx(EXPECTED[c]) for c in references[0].candidates}}]
    assert fake.count() == 4 and not outcome.left_out
    prompt = fake.requests[0].body["messages"][1]["content"]
    assert "<dialogue>\nA: Shall we take a walk by the lake?\nB: Sure, it is calm.\n</dialogue>" in prompt


def test_missing_captions_leave_the_item_out(fake: FakeLLM, make_judge, tmp_path: Path) -> None:
    references = load_references(get_benchmark("dialbgm"), _dialbgm_refs(tmp_path / "r.jsonl")).references
    outcome = judge_rank(references, make_judge(), captions={"calm": CAPTIONS["calm"]})
    assert [r["id"] for r in outcome.rows] == ["d1"]
    assert "no caption" in outcome.left_out["d2"]


def test_summary_context() -> None:
    assert context_text({"summary": "A calm walk.", "dialogue": DIALOGUE}, "summary") == "A calm walk."
    assert context_text({"dialogue": ["hi", "hello"]}, "dialogue") == "hi\nhello"


def test_cli_judge_rank_writes_predictions_the_ranking_metrics_score(fake: FakeLLM, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    refs, out = _dialbgm_refs(tmp_path / "refs.jsonl"), tmp_path / "pred.jsonl"
    captions = _captions_csv(tmp_path / "musiccaps.csv", list(CAPTIONS))
    cache = tmp_path / "judge.sqlite"
    args = ["judge-rank", "--references", str(refs), "--out", str(out), "--captions", str(captions),
            "--cache", str(cache), "--context", "summary"]
    assert _cli(fake, *args) == 0
    assert fake.count() == 4  # both items share the summary: the same four prompts, each sent once
    spec = get_benchmark("dialbgm")
    reference_set = load_references(spec, refs)
    predictions = load_predictions(spec, reference_set, out)
    scorer = Scorer(spec, reference_set.references)
    report = scorer.report([scorer.score_run(predictions)], n_bootstrap=10)
    # The fake judge's scores order the candidates as the gold rankings do.
    assert report.metrics["hit_at_1"] == 1.0 and report.metrics["kendall_tau_b"] == pytest.approx(1.0)
    assert "<dialogue>\nA calm walk.\n</dialogue>" in fake.requests[0].body["messages"][1]["content"]
    assert _cli(fake, *args) == 0 and fake.count() == 4  # a second run is served by the SQLite cache


def test_cli_judge_check_prints_per_item_results(fake: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    references, predictions = jamendo_items(3)
    refs, preds = tmp_path / "refs.jsonl", tmp_path / "preds.jsonl"
    refs.write_text("".join(json.dumps({"id": r.id, **r.public, "answer": r.answers[0]}) + "\n" for r in references))
    preds.write_text("".join(json.dumps({"id": p.id, "prediction": p.text}) + "\n" for p in predictions))
    code = _cli(fake, "judge-check", "--benchmark", "jamendo-mt-qa", "--references", str(refs),
                "--predictions", str(preds), "--profile", "jamendo-paper", "--json")
    assert code == 0
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert [row["id"] for row in rows] == [r.id for r in references if r.qa_type == "sentence"]
    by_id = {p.id: p.text for p in predictions}
    assert all(row["values"] == {"score": fake_score(by_id[row["id"]])} for row in rows)
    assert all(row["status"] == "judged" for row in rows)
    summary = json.loads(captured.err.strip().splitlines()[-1])
    assert summary["totals"]["judge_requests"] == 3 and API_KEY not in captured.err + captured.out


def test_cli_judge_profiles(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_judge_commands(parser.add_subparsers())
    ns = parser.parse_args(["judge-profiles", "--json"])
    assert ns.handler(ns) == 0
    names = {row["name"] for row in json.loads(capsys.readouterr().out)}
    assert {"jamendo-released", "jamendo-paper", "dialbgm-suitability", "jamendo-error-type"} <= names


def test_agreement_between_two_judges() -> None:
    a = np.array([1.0, 2.0, 3.0, 4.0, 5.0, np.nan, 2.0])
    b = np.array([1.0, 3.0, 2.0, 5.0, 5.0, 4.0, np.nan])
    result = judge_agreement(a, b)
    x, y = np.array([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([1.0, 3.0, 2.0, 5.0, 5.0])
    assert result.n == 5
    assert result.pearson == pytest.approx(stats.pearsonr(x, y).statistic)
    assert result.spearman == pytest.approx(stats.spearmanr(x, y).statistic)
    assert result.mean_abs_diff == pytest.approx(0.6)
    constant = judge_agreement([3.0, 3.0, 3.0], [1.0, 2.0, 3.0])
    assert constant.pearson is None and constant.spearman is None and constant.mean_abs_diff == pytest.approx(1.0)
    empty = judge_agreement([math.nan], [1.0])
    assert empty.n == 0 and empty.mean_abs_diff is None
    with pytest.raises(ValueError, match="different items"):
        judge_agreement([1.0], [1.0, 2.0])
