"""The field on a leaderboard: search, metadata filters, column chooser, plot data, home page tops."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.test import Client

from leaderboard.models import Submission
from leaderboard.services.boards.field_plots import parameter_count
from leaderboard.services.shared.cache import leaderboard_changed
from tests.helpers.boards import make_entry, page_rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def field(alice, bob, dialbgm_split) -> dict[str, Submission]:
    specs = {  # name: (hit@1 with interval, organisation, parameters, open weights, age in days)
        "Small Open": ((0.70, 0.66, 0.74), "Lab A", "350M", True, 30),
        "Big Closed": ((0.68, 0.64, 0.72), "Corp", "70B", False, 20),
        "Mid Open": ((0.50, 0.47, 0.53), "Lab B", "7b", True, 10),
        "Unsized": ((0.40, 0.38, 0.42), "Lab C", "", None, 5),
    }
    made = {}
    for name, (ndcg, org, params, open_weights, age) in specs.items():
        entry = make_entry(dialbgm_split, alice, name, {"hit_at_1": ndcg, "mrr": 0.5}, organisation=org,
                           age_days=age)
        Submission.objects.filter(pk=entry.pk).update(parameters=params, open_weights=open_weights)
        made[name] = entry
    leaderboard_changed(dialbgm_split.pk)
    return made


def _models(query: str = "") -> list[str]:
    return [r["model"] for r in page_rows(Client().get(f"/b/dialbgm/test/?{query}").content)]


def test_parameter_sizes_are_read_like_papers_write_them():
    assert parameter_count("7B") == 7e9 and parameter_count("350m") == 3.5e8
    assert parameter_count("1.5T") == 1.5e12 and parameter_count("12") == 12.0
    assert parameter_count("") is None and parameter_count("seven") is None


def test_search_and_metadata_filters_round_trip_through_the_url(field):
    assert _models() == ["Small Open", "Big Closed", "Mid Open", "Unsized"]
    assert _models("q=open") == ["Small Open", "Mid Open"]
    assert _models("q=corp") == ["Big Closed"]  # organisation too
    assert _models("open=yes") == ["Small Open", "Mid Open"]
    assert _models("open=no") == ["Big Closed"]
    assert _models("params_min=1B") == ["Big Closed", "Mid Open"]
    assert _models("params_max=10B&open=yes") == ["Small Open", "Mid Open"]
    page = Client().get("/b/dialbgm/test/?params_max=10B&open=yes&q=o").content.decode()
    assert 'name="params_max" size="5" value="10B"' in page and '<option value="yes" selected>open</option>' in page
    assert 'value="o" placeholder' in page
    api = Client().get("/api/v1/benchmarks/dialbgm/test/leaderboard?open=no").json()
    assert [r["entry"]["model_name"] for r in api["rows"]] == ["Big Closed"]
    assert api["filters"] == {"open": "no"}
    bad = Client().get("/b/dialbgm/test/?open=perhaps&params_min=huge").content.decode()
    assert "open is yes or no, not &#x27;perhaps&#x27;: not applied" in bad
    assert "params_min is a size such as 7B or 350M" in bad


def test_column_chooser_shows_the_chosen_columns(field):
    page = Client().get("/b/dialbgm/test/").content.decode()
    ids = re.findall(r'<input type="checkbox" name="col" value="([^"]+)" checked>', page)
    assert len(ids) >= 2
    mrr = next(i for i in ids if i.startswith("mrr@"))
    chosen = Client().get(f"/b/dialbgm/test/?col={mrr}&sort={mrr}")
    rows = page_rows(chosen.content)
    assert all(len(r["cells"]) == 1 for r in rows)
    text = chosen.content.decode()
    header = text.split('<table class="board"', 1)[1].split("</thead>", 1)[0]
    assert "MRR" in header and "Hit@1" not in header
    assert "Columns (1 of" in text
    default_sort = Client().get(f"/b/dialbgm/test/?col={mrr}").content.decode()  # sorted by Hit@1: shown
    header = default_sort.split('<table class="board"', 1)[1].split("</thead>", 1)[0]
    assert "MRR" in header and "Hit@1" in header and "Columns (2 of" in default_sort
    assert len(page_rows(Client().get("/b/dialbgm/test/?cols=mrr,ndcg_at_4&sort=mrr").content)[0]["cells"]) == 2
    assert "no column &#x27;nope&#x27;: not shown" in Client().get("/b/dialbgm/test/?cols=nope").content.decode()


def test_interval_and_time_plot_data_with_table_fallbacks(field):
    text = Client().get("/b/dialbgm/test/").content.decode()
    data = json.loads(html.unescape(re.search(r'id="field-plots-data" type="application/json">(.*?)</script>',
                                              text, re.S)[1]))
    assert [(e["model"], e["rank"], e["tied"]) for e in data["entries"]] == [
        ("Small Open", 1, False), ("Big Closed", 1, True), ("Mid Open", 3, False), ("Unsized", 4, False)]
    assert (data["entries"][0]["low"], data["entries"][0]["high"]) == (0.66, 0.74)
    # by date: Small Open (30 days ago) is best from the start; nobody later beats 0.70
    assert [s["model"] for s in data["best_over_time"]] == ["Small Open"]
    table = text.split('id="intervals-table"', 1)[1].split("</table>", 1)[0]
    decimals = data["column"]["decimals"]
    assert "<td>1 ≈</td>" in table and f"[{0.66:.{decimals}f}, {0.74:.{decimals}f}]" in table
    assert 'id="best-over-time-table"' in text and 'id="plot-time"' in text


def test_best_over_time_follows_submission_dates(alice, dialbgm_split):
    make_entry(dialbgm_split, alice, "First", {"hit_at_1": 0.5}, age_days=30)
    make_entry(dialbgm_split, alice, "Worse Later", {"hit_at_1": 0.4}, age_days=20)
    make_entry(dialbgm_split, alice, "Better Later", {"hit_at_1": 0.6}, age_days=10)
    text = Client().get("/b/dialbgm/test/").content.decode()
    data = json.loads(html.unescape(re.search(r'id="field-plots-data" type="application/json">(.*?)</script>',
                                              text, re.S)[1]))
    assert [(s["model"], s["value"]) for s in data["best_over_time"]] == [("First", 0.5), ("Better Later", 0.6)]


def test_compare_control_and_home_page_top_entry(field):
    page = Client().get("/b/dialbgm/test/").content.decode()
    assert '<form method="get" action="/compare/" id="compare-form">' in page
    for entry in field.values():
        assert f'name="pick" value="{entry.uid}"' in page
    home = Client().get("/").content.decode()
    top = f'top: <a href="/s/{field["Small Open"].uid}/">Small Open</a>'
    assert top in home and "(statistically tied with 1 other)" in home
