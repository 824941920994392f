"""The multiple-choice family on the site: per-item rows for the explorer, downloads, heatmaps,
hidden-label MMAU test, and MuChoMusic's published option order enforced on upload."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest
from django.test import Client
from scipy.stats import pearsonr

from leaderboard.models import Status, Submission
from tests.helpers.site import client_for, upload, upload_scored

pytestmark = pytest.mark.django_db

TASKS = ("music", "sound", "speech")


def mmau_like(n: int) -> list[dict[str, Any]]:
    rng = random.Random(n)
    refs = []
    for i in range(n):
        options = [f"{w} {i}" for w in rng.sample(["piano", "violin", "drum kit", "a man", "the guitar"], 4)]
        refs.append({"id": f"q{i}", "question": f"Question {i}?", "options": options, "answer": options[i % 4],
                     "metadata": {"task": TASKS[i % 3], "difficulty": ("easy", "medium", "hard")[i % 3],
                                  "sub-category": "Instrumentation" if i % 2 else "Temporal Reasoning"}})
    return refs


def answers(refs: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [{"id": r["id"], "prediction": rng.choice([r["answer"], rng.choice(r["options"]), "B", ""])} for r in refs]


def _scored(user: Any, split: Any, run: list[dict[str, Any]] | bytes, name: str, capture: Any) -> Submission:
    return upload_scored(user, split, [run], capture, model_name=name)


def test_items_downloads_and_heatmap_for_mmau(make_split, alice, django_capture_on_commit_callbacks) -> None:
    refs = mmau_like(36)
    split = make_split("mmau", "test-mini", refs)
    entries = [_scored(alice, split, answers(refs, s), f"M{s}", django_capture_on_commit_callbacks) for s in range(3)]
    owner = client_for(alice)
    page = owner.get(f"/api/v1/submissions/{entries[0].uid}/items").json()
    item = page["items"][1]
    assert item["inputs"]["metadata"] == refs[1]["metadata"] and item["inputs"]["options"] == refs[1]["options"]
    assert item["reference"] == refs[1]["answer"]
    assert item["notes"]["accuracy"]["choice"] in ("A", "B", "C", "D", "unanswered")
    assert set(item["scores"]) >= {"accuracy", "sound_accuracy", "difficulty_medium", "subcat_instrumentation"}

    vectors = []
    for entry in entries:
        rows = [json.loads(line) for line in b"".join(owner.get(f"/s/{entry.uid}/items.jsonl").streaming_content)
                .decode().splitlines()]
        assert len(rows) == 36
        vectors.append(np.array([r["scores"]["accuracy"] for r in rows]))
        assert entry.report["metrics"]["accuracy"] == pytest.approx(vectors[-1].mean(), abs=1e-9)
        music = [r["scores"]["accuracy"] for r in rows if r["inputs"]["metadata"]["task"] == "music"]
        assert entry.report["metrics"]["music_accuracy"] == pytest.approx(np.mean(music), abs=1e-9)
    browser = Client()
    board = browser.get("/b/mmau/test-mini/").content.decode()
    assert all(f"M{s}" in board for s in range(3)) and "Total acc." in board
    assert browser.get("/b/mmau/").status_code == 200
    browser.force_login(alice)
    entry_page = browser.get(f"/s/{entries[0].uid}/").content.decode()
    assert "Instrumentation" in entry_page and "Temporal Reasoning" in entry_page and "Music acc." in entry_page
    empty = sum(1 for r in answers(refs, 0) if r["prediction"] == "")
    assert empty and f"empty answers were scored as wrong (run 1: {empty})" in entries[0].status_detail
    data = Client().get("/api/v1/benchmarks/mmau/test-mini/heatmap", {"metric": "accuracy"}).json()
    agreement = data["model_agreement"]
    assert agreement["metric"] == "accuracy"
    order = [int(name.removeprefix("M")) for name in data["models"]]
    assert sorted(order) == [0, 1, 2]
    for a in range(3):
        for b in range(3):
            expected = pearsonr(vectors[order[a]], vectors[order[b]]).statistic
            assert agreement["matrix"][a][b] == pytest.approx(round(expected, 4))


def test_hidden_mmau_test_keeps_per_item_correctness_from_the_submitter(
        make_split, alice, django_capture_on_commit_callbacks) -> None:
    refs = mmau_like(12)
    split = make_split("mmau", "test", refs, hidden=True)
    entry = _scored(alice, split, answers(refs, 1), "Hidden", django_capture_on_commit_callbacks)
    owner = client_for(alice)
    page = owner.get(f"/api/v1/submissions/{entry.uid}/items").json()
    assert page["details_visible"] is False
    assert all("scores" not in i and "notes" not in i and "reference" not in i for i in page["items"])
    assert owner.get(f"/s/{entry.uid}/items.jsonl").status_code == 403


def test_muchomusic_upload_with_other_option_order_is_invalid_naming_lines(
        make_split, alice, django_capture_on_commit_callbacks) -> None:
    refs = [{"id": f"{i}::Q{i}", "question": f"Q{i}", "options": ["rock", "folk rock", "jazz", "pop"],
             "answer": "jazz", "metadata": {"knowledge": ["melody"] if i % 2 else [], "reasoning": ["lyrics"]}}
            for i in range(5)]
    split = make_split("muchomusic", "test", refs)
    run = [{"id": r["id"], "prediction": "C", "options": r["options"]} for r in refs]
    run[3]["options"] = ["folk rock", "rock", "jazz", "pop"]
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, split, [run], model_name="Wrong order")
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.INVALID
    assert [(p["file"], p["line"], p["field"], p["kind"]) for p in submission.problems] == [
        ("run1.jsonl", 4, "options", "options_mismatch")]
    run[3]["options"] = refs[3]["options"]
    ok = _scored(alice, split, run, "Right order", django_capture_on_commit_callbacks)
    assert ok.report["metrics"]["accuracy"] == 100.0
    assert ok.report["metrics"]["knowledge_melody"] == 100.0 and ok.report["n_scored"]["knowledge_accuracy"] == 2


def test_publisher_json_upload_is_read_like_the_jsonl_contract(
        make_split, alice, django_capture_on_commit_callbacks) -> None:
    refs = mmau_like(15)
    split = make_split("mmau", "test-mini", refs)
    run = answers(refs, 4)
    publisher = [{"id": r["id"], "question": r["question"], "choices": r["options"], "answer": r["answer"],
                  **r["metadata"], "model_output": p["prediction"]} for r, p in zip(refs, run)]
    del publisher[6]["model_output"]
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, split, [json.dumps(publisher).encode()], model_name="JSON, one missing")
    invalid = Submission.objects.get(uid=response.json()["id"])
    assert invalid.status == Status.INVALID
    assert [(p["line"], p["field"], p["kind"]) for p in invalid.problems] == [(7, "prediction", "missing_field")]
    publisher[6]["model_prediction"] = run[6]["prediction"]  # the README's key is read too
    from_json = _scored(alice, split, json.dumps(publisher).encode(), "JSON", django_capture_on_commit_callbacks)
    from_jsonl = _scored(alice, split, run, "JSONL", django_capture_on_commit_callbacks)
    assert from_json.report["metrics"] == from_jsonl.report["metrics"]


def test_hidden_subset_columns_are_rounded_by_their_own_item_count(make_split) -> None:
    """A sub-category column moves by 100/n_subset per item: the step must follow that count, not the split's."""
    from leaderboard.services.policy.disclosure import disclosure_step

    refs = mmau_like(300)
    for ref in refs[:4]:
        ref["metadata"]["sub-category"] = "Lyrical Reasoning"
    split = make_split("mmau", "test", refs, hidden=True)
    profile = split.spec.profile()
    assert disclosure_step(split=split, metric=profile.metric("accuracy")) == 10.0  # 4*100/300 -> 10
    assert disclosure_step(split=split, metric=profile.metric("music_accuracy")) == 10.0  # 4*100/100 -> 10
    rare = profile.metric("subcat_lyrical_reasoning")
    assert rare.applies_to == "sub-category=Lyrical Reasoning"
    assert disclosure_step(split=split, metric=rare) == 100.0  # 4 items: one moves it by 25 points
