"""MMAU's LLM-mapped columns (``mcq_mapped``): a loopback judge maps each answer onto an option, the released
string_match scores the option's text (or the answer as written when it maps to none, or is not mapped), one
column per configured judge beside the raw ones, and not computed without a judge."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from scoring import load_predictions, load_references
from scoring.api import ScoringOptions, build_scorer, score_runs
from scoring.judge.mapping import MappedChoice, options_text
from scoring.judge.profiles import get_profile
from scoring.metrics import ScoringContext, get_family
from scoring.specs import get_benchmark
from tests.helpers.fake_llm import FakeLLM, Reply, fake_choice
from tests.helpers.mcq_data import mmau_output
from tests.helpers.shared import shared_file
from tests.scoring.metrics.test_unparsed import string_match

MMAU = get_benchmark("mmau")


def _gold(tmp_path: Path, n: int) -> tuple[Path, list[dict]]:
    """The first ``n`` items of MMAU test-mini as the multiple-choice contract's references."""
    items = json.loads(shared_file("data", "mmau", "mmau-test-mini.json").read_text(encoding="utf-8"))[:n]
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps({"id": i["id"], "question": i["question"], "options": i["choices"],
                                        "answer": i["answer"], "metadata": {"task": i["task"]}}) + "\n"
                            for i in items), encoding="utf-8")
    return path, items


def _answers(items: list[dict], seed: int) -> list[str]:
    rng = random.Random(seed)
    extra = ["option 2", "(c)", "It is {0}, surely.", "{0} or maybe {1}"]
    out = []
    for item in items:
        if rng.random() < 0.5:
            out.append(mmau_output(rng, item))
        else:
            pick = rng.choice(extra).format(*rng.sample(item["choices"], min(2, len(item["choices"]))))
            out.append(pick)
    return out


def _expected(items: list[dict], answers: list[str], mapped: bool = True) -> dict[str, float]:
    """The columns as MMAU's evaluation.py computes them on the mapped answers (the fake judge's choice)."""
    correct = {"all": [], "music": [], "sound": [], "speech": []}
    for item, answer in zip(items, answers):
        choice = fake_choice(answer, item["choices"]) if mapped else 0
        text = item["choices"][choice - 1] if choice else answer
        hit = string_match(item["answer"], text, item["choices"])
        correct["all"].append(hit)
        correct[item["task"]].append(hit)
    return {k: 100 * sum(v) / len(v) for k, v in correct.items() if v}


def _score(tmp_path: Path, gold: Path, answers: list[str], items: list[dict], judges: dict) -> dict:
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"id": item["id"], "prediction": a}) + "\n"
                                   for item, a in zip(items, answers)))
    references = load_references(MMAU, gold)
    run = load_predictions(MMAU, references, predictions)
    scorer = build_scorer(MMAU, references.references, ScoringOptions(bertscore=False, n_bootstrap=50),
                          context=ScoringContext(judges=judges))
    return score_runs(scorer, [run], ScoringOptions(n_bootstrap=50))[0].as_json()


def test_the_family_is_registered_and_needs_a_judge() -> None:
    assert get_family("mcq_mapped") is MappedChoice and MappedChoice.needs == "judges"
    assert options_text(["A cat", "A dog"]) == "1. A cat\n2. A dog"


def test_mapped_columns_sit_beside_the_raw_ones_one_per_judge(tmp_path: Path, fake: FakeLLM, make_judge) -> None:
    gold, items = _gold(tmp_path, 120)
    answers = _answers(items, seed=3)
    report = _score(tmp_path, gold, answers, items, {"mapper": make_judge("mapper")})
    metrics = report["metrics"]
    expected, raw = _expected(items, answers), _expected(items, answers, mapped=False)
    assert metrics["mapped_accuracy:mapper"] == pytest.approx(expected["all"], abs=1e-9)
    for task in ("music", "sound", "speech"):
        if task in expected:
            assert metrics[f"mapped_{task}_accuracy:mapper"] == pytest.approx(expected[task], abs=1e-9)
    assert metrics["accuracy"] == pytest.approx(raw["all"], abs=1e-9)  # the raw column is unchanged
    assert metrics["mapped_accuracy:mapper"] > metrics["accuracy"]  # letters and "option 2" are credited
    changed = sum(string_match(i["answer"], i["choices"][c - 1] if (c := fake_choice(a, i["choices"])) else a,
                               i["choices"]) != string_match(i["answer"], a, i["choices"])
                  for i, a in zip(items, answers))
    assert report["diagnostics"]["mapped_changed"] == [changed]
    assert report["diagnostics"]["mapped_unjudged"] == [0]
    signature = report["signatures"]["mapped_accuracy:mapper"]
    assert "after LLM answer mapping" in signature and "judge_model:gpt-4o-mini" in signature
    assert "judge_profile:mmau-answer-mapping" in signature
    profile = get_profile("mmau-answer-mapping")
    shown = {profile.render({"question": i["question"], "options": options_text(i["choices"]), "prediction": a}).user
             for i, a in zip(items, answers)}
    assert {r.user_text for r in fake.requests} == shown  # question, options and answer: nothing of the gold
    assert len(fake.requests) == len(shown)  # each answer mapped once, whatever the columns


def test_an_unmapped_answer_is_scored_as_written(tmp_path: Path, fake: FakeLLM, make_judge) -> None:
    gold, items = _gold(tmp_path, 3)
    answers = [items[0]["answer"], "(A)", items[2]["answer"]]
    fake.queue(Reply(status=400, content="bad request"), Reply(content='{"choice": 1}'),
               Reply(content="no json at all"))
    report = _score(tmp_path, gold, answers, items, {"mapper": make_judge("mapper", max_retries=0)})
    judged = report["metrics"]["mapped_accuracy:mapper"]
    hits = [string_match(items[0]["answer"], answers[0], items[0]["choices"]),
            string_match(items[1]["answer"], items[1]["choices"][0], items[1]["choices"]),
            string_match(items[2]["answer"], answers[2], items[2]["choices"])]
    assert judged == pytest.approx(100 * sum(hits) / 3, abs=1e-9)
    assert report["diagnostics"]["mapped_unjudged"] == [2]


def test_without_a_judge_the_mapped_columns_are_not_computed(tmp_path: Path) -> None:
    gold, items = _gold(tmp_path, 10)
    report = _score(tmp_path, gold, _answers(items, seed=1), items, {})
    assert not any(key.startswith("mapped_") for key in report["metrics"])
    assert report["not_computed"]["mapped_music_accuracy"] == (
        "not judged: no judge configured for the mmau-answer-mapping profile")
