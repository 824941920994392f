"""Every link a leaderboard renders answers, in every state a user reaches by clicking: headers keep the
chosen columns and filters, the heatmap request names what the board names, downloads follow the view."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from django.test import Client

from leaderboard.models import Split, Submission
from leaderboard.services.pipeline.entry_vectors import entry_vectors_store
from leaderboard.services.shared.cache import leaderboard_changed
from leaderboard.services.shared.entry_runs import CANDIDATE_SCORES
from tests.helpers.boards import make_entry, page_rows
from tests.helpers.datagen import dialbgm_references
from tests.helpers.fixtures import module_rows, rows_fresh, split_create, user_create

pytestmark = pytest.mark.django_db

DIAL = "/b/dialbgm/test/"
# links the board draws to itself, its downloads, its APIs and its entries (not the site's menu)
BOARD_LINK = re.compile(r'(?:href|data-heatmap-url)="((?:\?|/b/dialbgm/|/api/v1/|/s/|/compare/)[^"#]*)')


@pytest.fixture(scope="module")
def board_rows(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """The board is built once for the module: every test reads it."""
    with module_rows(django_db_blocker):
        alice, bob = user_create("alice"), user_create("bob")
        split = split_create("dialbgm", "test", dialbgm_references(60, seed=3), tmp_path_factory.mktemp("links"))
        yield {"split": split, **{f"entry{n}": entry for n, entry in enumerate(_board(alice, bob, split))}}


@pytest.fixture
def board(board_rows, db) -> list[Submission]:
    fresh = rows_fresh(board_rows)
    return [fresh[f"entry{n}"] for n in range(len(board_rows) - 1)]


def _board(alice: Any, bob: Any, dialbgm_split: Split) -> list[Submission]:
    rng = np.random.default_rng(3)
    base = rng.random((40, 4))
    made = []
    specs = [("Alpha Open", 0.62, "summary", "Lab A", True), ("Beta", 0.55, "full_dialogue", "Corp", False),
             ("Gamma Open", 0.41, "summary", "", True), ("Delta", 0.30, "full_dialogue", "Lab D", None)]
    for n, (name, hit, source, org, open_weights) in enumerate(specs):
        values = {"hit_at_1": (hit, hit - 0.03, hit + 0.03), "mrr": (0.9 - hit, 0.85 - hit, 0.95 - hit),
                  "ndcg_at_4": 0.5 + n / 20, "kendall_tau_b": 0.1 * n}
        entry = make_entry(dialbgm_split, alice if n % 2 else bob, name, values, organisation=org,
                           settings={"input": source}, age_days=10 - n)
        Submission.objects.filter(pk=entry.pk).update(parameters=f"{n + 1}B", open_weights=open_weights)
        entry_vectors_store(entry, {CANDIDATE_SCORES: base + 0.3 * n * rng.random((40, 4))})
        made.append(entry)
    leaderboard_changed(dialbgm_split.pk)
    return made


def _links(page: str) -> list[str]:
    return sorted({html.unescape(link) for link in BOARD_LINK.findall(page)})


def _absolute(link: str) -> str:
    return DIAL + link if link.startswith("?") else link


def _header_links(page: str) -> list[str]:
    head = page.split('<table class="board" id="leaderboard">', 1)[1].split("</thead>", 1)[0]
    return [html.unescape(h) for h in re.findall(r'<a href="([^"]*)"', head)]


def _header_labels(page: str) -> list[str]:
    head = page.split('<table class="board" id="leaderboard">', 1)[1].split("</thead>", 1)[0]
    return re.findall(r'data-column="([^"]+)"', head)


def _column_ids(page: str, key: str) -> str:
    return re.search(rf'name="col" value="({key}@[0-9a-f]+|{key}@none)"', page)[1]  # type: ignore[index]


def test_header_links_keep_every_chosen_column_and_filter(board):
    client = Client()
    first = client.get(DIAL).content.decode()
    mrr, ndcg = _column_ids(first, "mrr"), _column_ids(first, "ndcg_at_4")
    # the state after "Apply" with two columns ticked and a setting filter, as the form submits it
    applied = f"{DIAL}?input=&open=&q=&params_min=&params_max=&col={mrr}&col={ndcg}&entry=best"
    page = client.get(applied).content.decode()
    assert _header_labels(page) == ["hit_at_1", "mrr", "ndcg_at_4"]  # the (default) sort column stays shown
    for link in _header_links(page):
        query = parse_qs(urlsplit(link).query)
        assert query["col"] == [mrr, ndcg], link
        clicked = client.get(_absolute(link))
        assert clicked.status_code == 200
        text = clicked.content.decode()
        hit_sorted = query["sort"][0].startswith("hit_at_1@")
        assert _header_labels(text) == ["hit_at_1"] * hit_sorted + ["mrr", "ndcg_at_4"], link
        sorted_by = re.search(r'Sorted by <strong>([^<]+)</strong>', text)[1]  # type: ignore[index]
        shown = re.findall(r'data-column="[^"]+">([^<]+?) <span', text)
        assert sorted_by in shown, (link, sorted_by, shown)
    filtered = client.get(f"{DIAL}?input=summary&col={mrr}&col={ndcg}").content.decode()
    for link in _header_links(filtered):
        rows = page_rows(client.get(_absolute(link)).content)
        assert sorted(r["model"] for r in rows) == ["Alpha Open", "Gamma Open"], link


def test_heatmap_api_takes_the_sort_the_board_links_to(board):
    client = Client()
    page = client.get(DIAL).content.decode()
    mrr = _column_ids(page, "mrr")
    sorted_page = client.get(f"{DIAL}?sort={mrr}").content.decode()
    url = html.unescape(re.search(r'data-heatmap-url="([^"]+)"', sorted_page)[1])  # type: ignore[index]
    assert parse_qs(urlsplit(url).query)["sort"] == [mrr]
    answer = client.get(url)
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert data["models"] == ["Delta (full_dialogue)", "Gamma Open (summary)", "Beta (full_dialogue)",
                              "Alpha Open (summary)"]  # the board's order under MRR
    assert len(data["model_agreement"]["matrix"]) == 4 and data["metric_agreement"]["n_models"] == 4
    refused = client.get("/api/v1/benchmarks/dialbgm/test/heatmap?sort=mrr@00000000")
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "sort"


STATES = ["", "sort=mrr", "input=summary", "q=open", "open=yes&params_max=3B", "entry=latest", "col=COL",
          "q=a&col=COL&input=full_dialogue", "dir=reverse"]


@pytest.mark.parametrize("state", STATES)
def test_every_board_link_answers_in_every_reachable_state(board, state):
    client = Client()
    mrr = _column_ids(client.get(DIAL).content.decode(), "mrr")
    start = f"{DIAL}?{state.replace('COL', mrr)}"
    page = client.get(start).content.decode()
    links = _links(page)
    assert any("/heatmap?" in link for link in links) and any("leaderboard.csv" in link for link in links)
    seen: set[str] = set()
    for link in links:  # the page's links, then every link of every header's page (one click further)
        answer = client.get(_absolute(link))
        assert 200 <= answer.status_code < 300, (start, link, answer.status_code, answer.content[:300])
        seen.add(link)
    for header in _header_links(page):
        clicked = client.get(_absolute(header)).content.decode()
        for link in _links(clicked):
            if link in seen:
                continue
            answer = client.get(_absolute(link))
            assert 200 <= answer.status_code < 300, (header, link, answer.status_code, answer.content[:300])
            seen.add(link)


def test_openapi_documents_every_parameter_the_board_links_use(board):
    client = Client()
    mrr = _column_ids(client.get(DIAL).content.decode(), "mrr")
    spec = client.get("/api/v1/openapi.json").json()["paths"]

    def documented(path: str) -> set[str]:
        return {p["name"] for p in spec[path]["get"]["parameters"] if p["in"] == "query"}

    board_params = documented("/api/v1/benchmarks/{benchmark}/{split}/leaderboard")
    heatmap_params = documented("/api/v1/benchmarks/{benchmark}/{split}/heatmap")
    assert documented("/b/{benchmark}/{split}/leaderboard.csv") == board_params
    used_board: set[str] = set()
    used_heatmap: set[str] = set()
    for state in STATES:
        page = client.get(f"{DIAL}?{state.replace('COL', mrr)}&dir=reverse&sort={mrr}").content.decode()
        for link in _links(page):
            names = set(parse_qs(urlsplit(link).query, keep_blank_values=True))
            if "/heatmap?" in link:
                used_heatmap |= names
            elif link.startswith("?") or "leaderboard." in link:
                used_board |= names
    assert {"q", "open", "params_max", "dir", "col", "sort", "input", "entry"} <= used_board
    assert used_board <= board_params, used_board - board_params
    assert used_heatmap <= heatmap_params and "sort" in used_heatmap


@pytest.mark.parametrize("query, field", [("open=perhaps", "open"), ("dir=up", "dir"),
                                          ("params_min=huge", "params_min"), ("params_max=7 apples", "params_max")])
def test_the_api_names_a_filter_the_page_would_only_mention(board, query, field):
    for path in ("leaderboard", "heatmap"):
        answer = Client().get(f"/api/v1/benchmarks/dialbgm/test/{path}?{query}")
        assert answer.status_code == 400 and answer.json()["error"]["field"] == field, (path, answer.content)
    empty = Client().get("/api/v1/benchmarks/dialbgm/test/leaderboard?open=&dir=&params_min=&params_max=")
    assert empty.status_code == 200 and len(empty.json()["rows"]) == 4
