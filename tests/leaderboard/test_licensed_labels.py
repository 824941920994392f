"""Labels whose licence forbids redistributing them (MTG-Jamendo's, CC BY-NC-SA 4.0): the site publishes scores,
never the labels, in any per-item view or download, to anyone, owner and maintainers included; a benchmark
with redistributable labels keeps its reference column."""

from __future__ import annotations

import csv
import io
import json
import random
from typing import Any

import pytest
from django.test import Client

from scoring.specs import get_benchmark
from tests.helpers.site import client_for, upload_scored

pytestmark = pytest.mark.django_db
MOODS = ("happy", "sad", "energetic", "calm", "dark", "epic", "film", "romantic")


def _refs(n: int) -> list[dict[str, Any]]:
    rng = random.Random(n)
    return [{"id": f"track_{i:07d}", "question": "Which moods or themes fit this music?",
             "answer": ", ".join(sorted(rng.sample(MOODS, rng.randint(1, 3))))} for i in range(n)]


def _download(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.content
    return b"".join(response.streaming_content).decode() if response.streaming else response.content.decode()


def test_mtg_labels_never_leave_the_site_in_per_item_views(alice, maintainer, make_split, no_bertscore,
                                                           django_capture_on_commit_callbacks) -> None:
    assert "CC BY-NC-SA" in get_benchmark("cmi-mtg-mood").labels_withheld
    refs = _refs(12)
    split = make_split("cmi-mtg-mood", "test", refs)
    run = [{"id": r["id"], "prediction": f"{r['answer']}, dreamy"} for r in refs]
    one = upload_scored(alice, split, [run], django_capture_on_commit_callbacks, model_name="Tagger one")
    run2 = [{"id": r["id"], "prediction": "happy"} for r in refs]
    two = upload_scored(alice, split, [run2], django_capture_on_commit_callbacks, model_name="Tagger two")
    labels = {r["answer"] for r in refs if "," in r["answer"]}
    for viewer in (alice, maintainer):
        api = client_for(viewer)
        items = api.get(f"/api/v1/submissions/{one.uid}/items").json()
        assert items["items"] and all("reference" not in i for i in items["items"])
        assert "CC BY-NC-SA" in items["labels_withheld"]
        page = api.get(f"/s/{one.uid}/").content.decode()
        assert 'id="labels-withheld"' in page and '<th scope="col">Reference</th>' not in page
        table = list(csv.DictReader(io.StringIO(_download(api, f"/s/{one.uid}/items.csv"))))
        assert table and "reference" not in table[0]
        lines = [json.loads(line) for line in _download(api, f"/s/{one.uid}/items.jsonl").splitlines()]
        assert lines and all("reference" not in line for line in lines)
        compared = api.get(f"/api/v1/compare?a={one.uid}&b={two.uid}").content.decode()
        assert '"reference"' not in compared
        shown_for_two = (json.dumps(api.get(f"/api/v1/submissions/{two.uid}/items").json()),
                         api.get(f"/s/{two.uid}/").content.decode(), _download(api, f"/s/{two.uid}/items.csv"),
                         _download(api, f"/s/{two.uid}/items.jsonl"))
        for text in shown_for_two:  # two's answers name one mood: a multi-tag label would come from the gold
            assert not any(label in text for label in labels)


def test_redistributable_labels_keep_their_reference_column(alice, make_split, django_capture_on_commit_callbacks):
    refs = [{"id": f"clip{i}", "question": "Which genre?", "answer": ("rock", "jazz", "blues")[i % 3]}
            for i in range(9)]
    split = make_split("cmi-gtzan", "test", refs)
    entry = upload_scored(alice, split, [[{"id": r["id"], "prediction": "rock"} for r in refs]],
                          django_capture_on_commit_callbacks, model_name="Genre")
    items = client_for(alice).get(f"/api/v1/submissions/{entry.uid}/items").json()
    assert [i["reference"] for i in items["items"]] == [r["answer"] for r in refs]
    assert items["labels_withheld"] == ""
