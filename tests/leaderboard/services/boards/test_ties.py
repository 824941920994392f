"""One verdict on a pair: the board ties two entries exactly when compare's paired bootstrap does not separate them.

Real scored DialBGM entries of 200 items whose hit@1 is right on chosen items: B right on every item A is right on
and a few more (marginal intervals overlap, the paired test separates them), D right on nearly the same items as A
(the paired test cannot separate them). The board (page, API, CSV) and compare give the same verdict and the same
p-value; entries without per-item arrays keep the interval rule; on a hidden-label split non-maintainers' ties are
the released values' equality and no paired verdict reaches them.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.test import Client

from leaderboard.models import MetricValue, Split, Submission
from leaderboard.services.boards import leaderboards
from leaderboard.services.boards.ties import COMPARE_TIED, COMPARE_TIED_RELEASED
from scoring.stats import holm_adjusted
from tests.helpers.boards import make_entry, page_rows
from tests.helpers.datagen import dialbgm_references
from tests.helpers.site import upload_scored

pytestmark = pytest.mark.django_db

ITEMS = 200


def _answers(refs: list[dict[str, Any]], right: range) -> list[dict[str, Any]]:
    """Hit@1 right on the items of ``right`` (the gold ranking), wrong elsewhere (the gold reversed)."""
    return [{"id": r["id"], "ranking": r["gold_ranking"] if i in right else r["gold_ranking"][::-1]}
            for i, r in enumerate(refs)]


def _entries(split: Split, refs: list[dict[str, Any]], capture: Any, make_user: Any,
             **right: range) -> dict[str, Submission]:
    return {name: upload_scored(make_user(f"user-{name.lower()}"), split, [_answers(refs, items)], capture,
                                model_name=name) for name, items in right.items()}


def _board(split: Split, client: Client) -> dict[str, dict[str, Any]]:
    """Each model's (rank, tied) on the page, in the API and in the CSV, and the API's row."""
    base = f"/b/{split.benchmark.name}/{split.name}/"
    api = client.get(f"/api/v1/benchmarks/{split.benchmark.name}/{split.name}/leaderboard").json()
    page = page_rows(client.get(base).content)
    rows = list(csv.DictReader(io.StringIO(client.get(base + "leaderboard.csv").content.decode())))
    board: dict[str, dict[str, Any]] = {}
    for row in api["rows"]:
        board[row["entry"]["model_name"]] = {"api": (row["rank"], row["statistically_tied"]), "row": row}
    for row in page:
        board[row["model"]].update(page=(row["rank"], row["tied"]), title=row["tie_title"])
    for row in rows:
        board[row["model_name"]]["csv"] = (int(row["rank"]), row["statistically_tied"] == "True")
    board["_api"] = api
    return board


def _compared(client: Client, a: Submission, b: Submission, key: str = "hit_at_1") -> dict[str, Any]:
    data = client.get(f"/api/v1/compare?a={a.uid}&b={b.uid}").json()
    return next(m for m in data["metrics"] if m["key"] == key)


def _interval(entry: Submission) -> tuple[float, float]:
    value = MetricValue.objects.get(submission=entry, key="hit_at_1", current=True)
    return value.ci_low, value.ci_high


def test_a_pair_the_paired_test_separates_is_not_tied_though_its_intervals_overlap(
        make_split, make_user, django_capture_on_commit_callbacks):
    refs = dialbgm_references(ITEMS, seed=11)
    split = make_split("dialbgm", "test", refs)
    # B is right on every item A is right on and on 8 more; C is far below
    entries = _entries(split, refs, django_capture_on_commit_callbacks, make_user,
                       A=range(100), B=range(108), C=range(60))
    low_b, _ = _interval(entries["B"])
    _, high_a = _interval(entries["A"])
    assert low_b < high_a  # the marginal intervals overlap: the interval rule would tie them
    client = Client()
    b_vs_a = _compared(client, entries["B"], entries["A"])
    a_vs_b = _compared(client, entries["A"], entries["B"])
    assert b_vs_a["better"] == "a" and a_vs_b["better"] == "b"  # compare: B is better ...
    assert b_vs_a["p_value"] < 0.05 and b_vs_a["separated"] and a_vs_b["separated"]  # ... at the 5% level
    assert a_vs_b["p_value"] == b_vs_a["p_value"]

    board = _board(split, client)
    for name, expected in {"B": (1, False), "A": (2, False), "C": (3, False)}.items():
        assert board[name]["api"] == board[name]["page"] == board[name]["csv"] == expected, (name, board[name])
    row_a = board["A"]["row"]
    assert row_a["tie_rule"] == "paired"
    assert row_a["tie_p_value"] == b_vs_a["p_value"]  # the same test, bit for bit, with three entries resampled
    assert board["C"]["row"]["tie_p_value"] == _compared(client, entries["C"], entries["A"])["p_value"]
    assert board["B"]["row"]["tie_rule"] is None  # the board's first row is compared with nothing


def test_a_pair_the_paired_test_cannot_separate_is_tied(make_split, make_user, django_capture_on_commit_callbacks):
    refs = dialbgm_references(ITEMS, seed=12)
    split = make_split("dialbgm", "test", refs)
    # D is right on 5 items A is wrong on, A on 3 that D is wrong on: 2 items apart
    entries = _entries(split, refs, django_capture_on_commit_callbacks, make_user, A=range(100), D=range(3, 105))
    client = Client()
    compared = _compared(client, entries["D"], entries["A"])
    assert compared["better"] == "a" and compared["p_value"] >= 0.05 and not compared["separated"]
    board = _board(split, client)
    assert board["D"]["api"] == board["D"]["page"] == board["D"]["csv"] == (1, False)
    assert board["A"]["api"] == board["A"]["page"] == board["A"]["csv"] == (1, True)
    assert board["A"]["row"]["tie_rule"] == "paired" and board["A"]["row"]["tie_p_value"] == compared["p_value"]
    assert "paired bootstrap" in board["A"]["title"]
    page = client.get(f"/compare/?a={entries['D'].uid}&b={entries['A'].uid}").content.decode()
    row = page.split('<tr data-key="hit_at_1">', 1)[1].split("</tr>", 1)[0]
    assert "(not significant)" in row


def test_the_board_and_compare_say_what_tied_means(make_split, make_user, django_capture_on_commit_callbacks):
    refs = dialbgm_references(ITEMS, seed=13)
    split = make_split("dialbgm", "test", refs)
    entries = _entries(split, refs, django_capture_on_commit_callbacks, make_user, A=range(100), D=range(3, 105))
    client = Client()
    ranking = client.get("/api/v1/benchmarks/dialbgm/test/leaderboard").json()["ranking"]
    sentence = ranking.split(";")[0]
    assert sentence.startswith("Tied (≈): ") and "paired bootstrap over the same items" in sentence
    assert "5% level (two-sided)" in sentence and "intervals" not in ranking  # no entry fell back to them
    note = client.get("/b/dialbgm/test/").content.decode().split('id="sort-note">', 1)[1].split("</p>", 1)[0]
    assert f'<span id="tie-rule">{sentence}' in note.replace("&#x27;", "'")

    data = client.get(f"/api/v1/compare?a={entries['A'].uid}&b={entries['D'].uid}").json()
    assert data["tied"] == COMPARE_TIED
    metrics = data["metrics"]
    assert len(metrics) == 4 and data["multiple_comparisons"]["tests"] == 4
    assert data["multiple_comparisons"]["note"].startswith("4 tests on this page: at the 5% level about 0.2 ")
    assert [m["p_holm"] for m in metrics] == holm_adjusted([m["p_value"] for m in metrics])
    page = client.get(f"/compare/?a={entries['A'].uid}&b={entries['D'].uid}").content.decode()
    assert 'id="compare-tied"' in page and 'id="compare-multiple"' in page and "p, Holm" in page


def test_entries_without_per_item_arrays_keep_the_interval_rule(dialbgm_split, alice):
    values = {"mrr": 0.5, "ndcg_at_4": 0.5, "kendall_tau_b": 0.1}
    make_entry(dialbgm_split, alice, "P", {**values, "hit_at_1": (0.80, 0.76, 0.84)})
    make_entry(dialbgm_split, alice, "Q", {**values, "hit_at_1": (0.77, 0.73, 0.81)})
    client = Client()
    board = _board(dialbgm_split, client)
    assert board["Q"]["api"] == board["Q"]["page"] == board["Q"]["csv"] == (1, True)
    assert board["Q"]["row"]["tie_rule"] == "intervals" and board["Q"]["row"]["tie_p_value"] is None
    assert "95% intervals overlap" in board["Q"]["title"]
    assert "without stored per-item arrays share it when their 95% intervals overlap" in board["_api"]["ranking"]


def test_hidden_labels_tie_non_maintainers_on_released_values_only(make_split, make_user, maintainer, monkeypatch,
                                                                   django_capture_on_commit_callbacks):
    refs = dialbgm_references(ITEMS, seed=14, prefix="tie")
    split = make_split("dialbgm", "hidden-ties", refs, hidden=True)
    # 0.50 and 0.54: both 0.5 at this split's step (0.1 for 200 items), while the paired test separates them
    entries = _entries(split, refs, django_capture_on_commit_callbacks, make_user, A=range(100), B=range(108))
    staff = Client()
    staff.force_login(maintainer)
    full = _compared(staff, entries["A"], entries["B"])
    assert full["separated"] and full["better"] == "b"
    seen = _board(split, staff)
    assert seen["A"]["api"] == seen["A"]["page"] == seen["A"]["csv"] == (2, False)
    assert seen["A"]["row"]["tie_p_value"] == full["p_value"]

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a paired test computed for a viewer of released values")

    monkeypatch.setattr(leaderboards, "ties_resampled", refused)
    other = Client()
    other.force_login(make_user("carol"))
    for client in (Client(), other):
        board = _board(split, client)
        ranks = {name: board[name]["api"] for name in "AB"}
        assert sorted(ranks.values()) == [(1, False), (1, True)]  # equal released values: tied
        for name in "AB":
            assert board[name]["api"] == board[name]["page"] == board[name]["csv"]
        tied = next(board[name] for name in "AB" if board[name]["api"][1])
        assert tied["row"]["tie_rule"] == "released" and tied["row"]["tie_p_value"] is None
        assert "equal released values" in tied["title"]
        assert "paired" not in board["_api"]["ranking"] and "released value" in board["_api"]["ranking"]
        released = client.get(f"/api/v1/compare?a={entries['A'].uid}&b={entries['B'].uid}").json()
        assert released["tied"] == COMPARE_TIED_RELEASED and released["multiple_comparisons"] is None
        row = next(m for m in released["metrics"] if m["key"] == "hit_at_1")
        assert (row["a"], row["b"], row["better"], row["separated"], row["p_value"]) == (0.5, 0.5, None, False, None)
