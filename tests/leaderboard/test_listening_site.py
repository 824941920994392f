"""RUL-MuChoMusic on the site without a worker: leave-one-out items stored with their published
prompts, responses files scored (eagerly), the explorer and the comparison page show the four raw
responses (with the extracted letter in the explorer), bad files refused line by line."""

from __future__ import annotations

import html
import random
from typing import Any

import pytest
from django.test import Client

from leaderboard.models import Status, Submission
from scoring.publishers.rul_importers import leave_one_out_prompts
from tests.helpers.listening_data import rul_response
from tests.helpers.site import upload, upload_scored

pytestmark = pytest.mark.django_db

WORDS = ("warm", "bright", "synth", "guitar", "tempo", "drums", "mellow", "piano", "vocals", "ambient", "reverb")


def rul_like(n: int) -> list[dict[str, Any]]:
    rng = random.Random(n)
    refs = []
    for i in range(n):
        correct, *distractors = [" ".join(rng.sample(WORDS, 2)) + f" {i}-{k}" for k in range(5)]
        question = f"Which description fits clip {i}?"
        refs.append({"id": str(100 + i), "question": question, "answer": correct,
                     "prompts": leave_one_out_prompts(str(100 + i), question, correct, distractors)})
    return refs


def _scored(user: Any, split: Any, run: list[dict[str, Any]], name: str, capture: Any) -> Submission:
    return upload_scored(user, split, [run], capture, model_name=name)


def test_rul_explorer_and_compare_show_every_response(make_split, alice, bob,
                                                      django_capture_on_commit_callbacks) -> None:
    refs = rul_like(24)
    split = make_split("rul-muchomusic", "test", refs)
    rng = random.Random(4)
    runs = [[{"id": r["id"], "responses": [rul_response(rng, p["options"]) for p in r["prompts"]]} for r in refs]
            for _ in range(2)]
    a = _scored(alice, split, runs[0], "A", django_capture_on_commit_callbacks)
    b = _scored(bob, split, runs[1], "B", django_capture_on_commit_callbacks)

    items = Client().get(f"/api/v1/submissions/{a.uid}/items").json()["items"]
    assert [i["prediction"] for i in items] == [r["responses"] for r in runs[0]]
    assert all(len(i["notes"]["accuracy"]["passes"]) == 4 for i in items)
    assert items[0]["inputs"]["prompts"] == refs[0]["prompts"]
    page = Client().get(f"/s/{a.uid}/").content.decode()
    first = items[0]
    for response, letter in zip(first["prediction"], first["notes"]["accuracy"]["passes"]):
        shown = html.escape(response) if response.strip() else "(empty)"  # an empty response is named, not blank
        assert f'<span class="raw">{shown}</span> <span class="parsed meta">parsed: {letter}</span>' in page
    assert html.escape(refs[0]["prompts"][0]["options"][0]) in page  # the options under the question

    compare = Client().get(f"/compare/?pick={a.uid}&pick={b.uid}").content.decode()
    shown = Client().get(f"/api/v1/compare?a={a.uid}&b={b.uid}").json()["items"]
    assert shown and all(isinstance(i["a"]["prediction"], list) for i in shown)
    top = shown[0]["a"]["prediction"]
    assert "<ol class=\"responses\">" + "".join(f"<li>{html.escape(r)}</li>" for r in top) + "</ol>" in compare


def test_rul_upload_with_wrong_responses_is_refused_with_lines(make_split, alice,
                                                               django_capture_on_commit_callbacks) -> None:
    refs = rul_like(6)
    split = make_split("rul-muchomusic", "test", refs)
    run: list[dict[str, Any]] = [{"id": r["id"], "responses": ["[[A]]"] * 4} for r in refs]
    run[1] = {"id": refs[1]["id"], "responses": ["[[A]]", "[[B]]"]}
    run[4] = {"id": refs[4]["id"], "prediction": "[[A]]"}
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, split, [run], model_name="Bad")
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.INVALID
    found = [(p["file"], p["line"], p["field"], p["kind"]) for p in submission.problems]
    assert found == [("run1.jsonl", 2, "responses", "invalid_value"), ("run1.jsonl", 5, "responses", "missing_field")]
