"""Problems on the site as the CLI says them, on the released MMAR items: alike problems stored and served as one
entry with a count and the first lines (``count``, ``lines``, ``where``; ``problem_count`` and ``problem_counts``
still count every one), a misnamed key named once by the dry run, and the entry page listing the group."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Status, Submission
from scoring.publishers.mmar_importers import mmar_reference_rows
from scoring.reading.problems import ProblemLog
from tests.helpers.shared import shared_file
from tests.helpers.site import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def mmar(make_split: Any) -> tuple[Any, list[dict[str, Any]]]:
    path = shared_file("data", "mmar", "MMAR-meta.jsonl")
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return make_split("mmar", "test", [record for _, record in mmar_reference_rows(path, ProblemLog())]), items


def _rows(items: list[dict[str, Any]], key: str, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [{**item, key: rng.choice([f"({c})", f"The answer is {c}.", f"{c} — I think", "No idea"])}
            for item in items for c in [rng.choice(item["choices"])]]


def _post(user: Any, split: Any, rows: list[dict[str, Any]], route: str, **fields: Any) -> Any:
    data = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()
    url = f"/api/v1/benchmarks/{split.benchmark.name}/{split.name}/{route}"
    return client_for(user).post(url, {**fields, "predictions": [SimpleUploadedFile("run.jsonl", data)]})


def test_dry_run_names_a_misnamed_key_once(alice: Any, mmar: Any) -> None:
    split, items = mmar
    dry = _post(alice, split, _rows(items, "model_prediction", 1), "validate").json()
    assert (dry["valid"], dry["problem_count"], dry["problem_counts"]) == (False, 1, {"misnamed_key": 1})
    assert dry["problems"] == [{
        "file": "run.jsonl", "line": 0, "field": "answer_prediction", "kind": "misnamed_key",
        "message": f'found "model_prediction" on {len(items):,} of {len(items):,} lines and no "answer_prediction": '
                   'the MMAR format reads "answer_prediction"; rename the key',
        "severity": "error", "count": 1, "lines": [0], "unit": "line", "where": "the file", "varied": False}]


def test_an_invalid_upload_stores_and_serves_alike_problems_as_one_entry(
        alice: Any, mmar: Any, django_capture_on_commit_callbacks: Any) -> None:
    split, items = mmar
    rows = _rows(items, "answer_prediction", 2)
    unanswered = sorted(random.Random(3).sample(range(len(rows)), 9))
    for n in unanswered:
        del rows[n]["answer_prediction"]
    with django_capture_on_commit_callbacks(execute=True):
        response = _post(alice, split, rows, "submissions", model_name="M")
    assert response.status_code == 201, response.content
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.INVALID
    first = [n + 1 for n in unanswered[:3]]
    where = f"lines {', '.join(map(str, first))} and 6 more"
    served = client_for(alice).get(f"/api/v1/submissions/{submission.uid}").json()
    assert served["problem_counts"] == {"missing_field": 9}
    assert served["problems"] == [{
        "file": "run.jsonl", "line": first[0], "field": "prediction", "kind": "missing_field",
        "message": 'required field "prediction" is missing', "severity": "error", "count": 9, "lines": first,
        "unit": "line", "where": where, "varied": False}]
    page = client_for(alice).get(f"/s/{submission.uid}/").content.decode()
    assert (f"<li><code>run.jsonl: {where}</code> <code>prediction</code>: required field &quot;prediction&quot; is "
            "missing</li>") in page
