"""An entry's provenance (submitted, or released: a release's outputs re-scored here) on every view of a board:
the row's badge linking to the source and the items a run answers, the entry page, the API's entry JSON, the
CSV's ``provenance`` column and the CLI's table; ``provenance=submitted|released`` filters the page, the API and
the CSV (each row keeping its rank on the whole board), and the API refuses any other value."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.test import Client

from leaderboard.models import Provenance, Submission
from leaderboard.services.shared.cache import leaderboard_changed
from scoring.site.site_cli import board_table
from tests.helpers.boards import make_entry, page_rows

pytestmark = pytest.mark.django_db

BOARD = "/b/dialbgm/test/"
API = "/api/v1/benchmarks/dialbgm/test/leaderboard"
URL = "https://github.com/lab/release/blob/0123abcd/outputs/model_b.jsonl"
SOURCE = {"publisher": "the Lab", "repository": "https://github.com/lab/release", "commit": "0123abcd" * 5,
          "path": "outputs/model_b.jsonl", "url": URL, "licence": "CC BY 4.0", "sha256": "ab" * 32,
          "items_answered": 57, "items_total": 60, "warning_counts": {"missing_as_empty": 3},
          "warnings": [{"file": "model_b.jsonl", "line": 0, "field": "id", "kind": "missing_as_empty",
                        "message": "3 of 60 items have no prediction", "severity": "warning"}]}


@pytest.fixture
def entries(dialbgm_split: Any, alice: Any, make_user: Any) -> dict[str, Submission]:
    system = make_user("released-outputs")
    found = {"A": make_entry(dialbgm_split, alice, "Model A", {"hit_at_1": (0.9, 0.85, 0.95)}),
             "B": make_entry(dialbgm_split, system, "Model B", {"hit_at_1": (0.7, 0.65, 0.75)}),
             "C": make_entry(dialbgm_split, alice, "Model C", {"hit_at_1": (0.5, 0.45, 0.55)})}
    Submission.objects.filter(pk=found["B"].pk).update(provenance=Provenance.RELEASED, source=SOURCE)
    leaderboard_changed(dialbgm_split.pk)
    return found


def _csv(query: str = "") -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(Client().get(f"/b/dialbgm/test/leaderboard.csv{query}").content.decode())))


def test_a_released_row_is_badged_with_its_source_and_the_items_it_answers(entries: dict[str, Submission]) -> None:
    rows = {row["model"]: row for row in page_rows(Client().get(BOARD).content)}
    released = rows["Model B"]["html"]
    assert f'<a class="badge released" href="{URL}"' in released and "re-scored from released outputs</a>" in released
    assert "57 of 60 items answered" in released
    assert all("badge released" not in rows[name]["html"] for name in ("Model A", "Model C"))
    page = Client().get(f"/s/{entries['B'].uid}/").content.decode()
    assert 'id="source"' in page and f'href="{URL}"' in page and "CC BY 4.0" in page
    assert "57 of 60 items answered: the 3 item(s) the released file lacks are scored as empty answers" in page
    assert "3 missing item(s) scored as empty predictions (--missing-as-empty)" in page
    assert 'id="source"' not in Client().get(f"/s/{entries['A'].uid}/").content.decode()


def test_the_api_the_csv_and_the_cli_say_each_rows_provenance(entries: dict[str, Submission]) -> None:
    board = Client().get(API).json()
    by_model = {row["entry"]["model_name"]: row["entry"] for row in board["rows"]}
    assert {name: entry["provenance"] for name, entry in by_model.items()} == {
        "Model A": "submitted", "Model B": "released", "Model C": "submitted"}
    source = by_model["Model B"]["source"]
    assert (source["url"], source["licence"], source["answered"]) == (URL, "CC BY 4.0", "57 of 60 items answered")
    assert by_model["Model A"]["source"] is None
    entry = Client().get(f"/api/v1/submissions/{entries['B'].uid}").json()
    assert entry["provenance"] == "released" and entry["source"]["commit"] == SOURCE["commit"]
    assert entry["source"]["warning_summary"] == ["3 missing item(s) scored as empty predictions (--missing-as-empty)"]
    assert Client().get(f"/api/v1/submissions/{entries['A'].uid}").json()["source"] is None
    assert {row["model_name"]: row["provenance"] for row in _csv()} == {
        "Model A": "submitted", "Model B": "released", "Model C": "submitted"}
    lines = board_table(board).splitlines()
    assert lines[1].split()[:3] == ["rank", "model", "provenance"]
    assert lines[3].split()[:6] == ["2", "Model", "B", "released", "(57", "of"]
    assert lines[2].split()[:4] == ["1", "Model", "A", "submitted"]


def test_provenance_filters_the_page_the_api_and_the_csv_keeping_each_rows_rank(
        entries: dict[str, Submission]) -> None:
    released = page_rows(Client().get(BOARD + "?provenance=released").content)
    assert [(row["model"], row["rank"]) for row in released] == [("Model B", 2)]
    submitted = page_rows(Client().get(BOARD + "?provenance=submitted").content)
    assert [(row["model"], row["rank"]) for row in submitted] == [("Model A", 1), ("Model C", 3)]
    page = Client().get(BOARD + "?provenance=released").content.decode()
    assert '<option value="released" selected>' in page
    api = Client().get(API, {"provenance": "released"}).json()
    assert [(r["entry"]["model_name"], r["rank"]) for r in api["rows"]] == [("Model B", 2)]
    assert api["filters"] == {"provenance": "released"} and api["rank_scope"] == "whole leaderboard"
    assert [row["model_name"] for row in _csv("?provenance=submitted")] == ["Model A", "Model C"]
    refused = Client().get(API, {"provenance": "reported"})
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "provenance"
    notice = Client().get(BOARD + "?provenance=reported").content.decode()
    assert "provenance is submitted or released, not &#x27;reported&#x27;: not applied" in notice
