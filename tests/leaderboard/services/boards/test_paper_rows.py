"""The papers' rows on a board: one rank order with the entries by the sort value, each value on the
column's scale or left out with its reason, a filter to hide them kept by every link, whole-board ranks
under a search, and nothing of theirs in ties, heatmaps, compare boxes or the plots' entry series."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client

from leaderboard.models import PublishedResult, Split
from leaderboard.services.boards.model_names import model_slug
from leaderboard.services.references.baselines import baselines_load
from leaderboard.services.shared.cache import leaderboard_changed
from tests.helpers.boards import make_entry, page_rows, printed_columns

pytestmark = pytest.mark.django_db

DIAL = "/b/dialbgm/test/"
DIAL_API = "/api/v1/benchmarks/dialbgm/test/leaderboard"
PAPER = "Paper P (2025)"
PAPER_ROW = re.compile(r'<tr class="paper" data-paper="(?P<model>[^"]*)"[^>]*>(?P<body>.*?)</tr>', re.S)


def paper_rows(page: str) -> list[tuple[str, str, list[str]]]:
    """(model, rank, metric cells) of each paper row as rendered."""
    body = page.split('<table class="board" id="leaderboard">', 1)[1].split("</table>", 1)[0]
    out = []
    for match in PAPER_ROW.finditer(body):
        rank = re.search(r'<td class="rank">([^<]*)</td>', match["body"])[1]  # type: ignore[index]
        out.append((html.unescape(match["model"]), rank, re.findall(r'<td class="num">(.*?)</td>', match["body"])))
    return out


def order(page: str) -> list[str]:
    body = page.split('<table class="board" id="leaderboard">', 1)[1].split("</table>", 1)[0]
    return [html.unescape(m[1]) for m in re.finditer(r'<tr class="[^"]*" data-(?:model|paper)="([^"]*)"', body)]


@pytest.fixture
def board(dialbgm_split: Split, alice: object) -> Split:
    """Three entries (A and C tied by their intervals) and three rows of one paper table, printed in
    percent (Hit@1), 0–1 (MRR) and 0–100 (Kendall τb, which lives on −1 to 1 here)."""
    full = {"mrr": 0.7, "ndcg_at_4": 0.5, "kendall_tau_b": 0.1}
    make_entry(dialbgm_split, alice, "Site A", {**full, "hit_at_1": (0.5, 0.45, 0.55)})
    make_entry(dialbgm_split, alice, "Site C", {**full, "hit_at_1": (0.48, 0.40, 0.52), "mrr": 0.65})
    make_entry(dialbgm_split, alice, "Site B", {**full, "hit_at_1": (0.30, 0.25, 0.35), "mrr": 0.55})
    columns = printed_columns({"key": "hit_at_1", "label": "Hit@1", "scale": "percent"},
                              {"key": "mrr", "label": "MRR", "scale": "0-1"},
                              {"key": "kendall_tau_b", "label": "τb", "scale": "0-100"})
    for order_, (model, metrics, notes) in enumerate([
            ("Paper X", {"hit_at_1": 41.5, "mrr": 0.6021, "kendall_tau_b": 12.0}, "prompted twice"),
            ("Paper Y", {"hit_at_1": 60.0}, ""),
            ("Paper Z", {"mrr": 0.5}, "prompted twice")]):
        PublishedResult.objects.create(split=dialbgm_split, paper=PAPER, table="T1", caption="", kind="leaderboard",
                                       model_name=model, settings={"input": "summary"}, metrics=metrics,
                                       columns=columns, scale="percent", notes=notes, order=order_)
    leaderboard_changed(dialbgm_split.pk)
    return dialbgm_split


def test_entries_and_paper_rows_share_one_rank_order(board):
    client = Client()
    page = client.get(DIAL).content.decode()
    assert order(page) == ["Paper Y", "Site A", "Site C", "Paper X", "Site B", "Paper Z"]
    assert [(r["model"], r["rank"], r["tied"]) for r in page_rows(page.encode())] == [
        ("Site A", 2, False), ("Site C", 2, True), ("Site B", 5, False)]  # the interval tie stays an entries' tie
    rows = paper_rows(page)
    assert [(m, rank) for m, rank, _ in rows] == [("Paper Y", "1"), ("Paper X", "4"), ("Paper Z", "–")]
    x = dict(zip(("hit", "mrr", "ndcg", "tau"), rows[1][2], strict=True))
    measured = "measured as this column is (same implementation, parser, gold and model)"
    assert x["hit"] == ('<span class="paper-value" title="reported in paper, not re-scored here: printed 41.5 on %, '
                        f'shown on 0–1 (Paper P (2025), T1); {measured}">0.4150</span>')
    assert x["mrr"].endswith(f'as printed (Paper P (2025), T1); {measured}">0.6021</span>')
    assert x["ndcg"] == '<span title="not reported in this paper table">–</span>'
    assert x["tau"] == ('<span class="left-out" title="printed 12 on 0–100; this column is on −1 to 1: not comparable, '
                        'left out (Paper P (2025), T1)">not comparable</span>')
    assert '<p class="board-count" id="board-count">3 entries · 3 published results</p>' in page
    badge = '<span class="badge paper" title="Paper P (2025)">reported in paper, not re-scored here</span>'
    assert page.count(badge) == 3
    assert page.count('name="pick"') == 3  # compare boxes for entries only

    by_mrr = client.get(DIAL, {"sort": "mrr"}).content.decode()
    assert order(by_mrr) == ["Site A", "Site C", "Paper X", "Site B", "Paper Z", "Paper Y"]
    assert [(m, rank) for m, rank, _ in paper_rows(by_mrr)] == [("Paper X", "3"), ("Paper Z", "5"), ("Paper Y", "–")]
    assert [(r["model"], r["rank"]) for r in page_rows(by_mrr.encode())] == [("Site A", 1), ("Site C", 2),
                                                                             ("Site B", 4)]


def test_the_api_json_names_each_rows_source(board):
    data = Client().get(DIAL_API).json()
    assert data["counts"] == {"entries": 3, "published": 3} and data["papers"] == "shown"
    assert [(r["source"], r["entry"]["model_name"], r["rank"], r["statistically_tied"]) for r in data["rows"]] == [
        ("site", "Site A", 2, False), ("site", "Site C", 2, True), ("site", "Site B", 5, False)]
    hit, mrr, tau = (next(c["id"] for c in data["columns"] if c["key"] == k) for k in ("hit_at_1", "mrr",
                                                                                     "kendall_tau_b"))
    x = next(r for r in data["published_rows"] if r["model_name"] == "Paper X")
    assert {k: x[k] for k in ("source", "rank", "statistically_tied", "paper", "table", "settings", "notes", "note")} \
        == {"source": "paper", "rank": 4, "statistically_tied": False, "paper": PAPER, "table": "T1",
            "settings": {"input": "summary"}, "notes": "prompted twice",
            "note": "reported in paper, not re-scored here"}
    assert {c: {k: v for k, v in cell.items() if k != "note"} for c, cell in x["metrics"].items()} == {
        hit: {"key": "hit_at_1", "value": 0.415, "printed": 41.5, "printed_unit": "%"},
        mrr: {"key": "mrr", "value": 0.6021, "printed": 0.6021, "printed_unit": "0–1"}}
    assert x["left_out"] == {tau: "printed 12 on 0–100; this column is on −1 to 1: not comparable, left out "
                                  "(Paper P (2025), T1)"}
    ids = {r["entry"]["model_name"]: r["entry"]["id"] for r in data["rows"]}
    assert data["order"] == [["paper", PAPER, "T1", 1], ["site", ids["Site A"]], ["site", ids["Site C"]],
                             ["paper", PAPER, "T1", 0], ["site", ids["Site B"]], ["paper", PAPER, "T1", 2]]
    assert Client().get("/b/dialbgm/test/leaderboard.json").json()["published_rows"] == data["published_rows"]


def test_hiding_the_papers_is_a_filter_every_link_keeps(board):
    client = Client()
    page = client.get(DIAL, {"papers": "hide", "sort": "mrr"}).content.decode()
    assert paper_rows(page) == [] and order(page) == ["Site A", "Site C", "Site B"]
    assert [(r["model"], r["rank"], r["tied"]) for r in page_rows(page.encode())] == [
        ("Site A", 1, False), ("Site C", 2, False), ("Site B", 3, False)]
    assert '<input type="checkbox" name="papers" value="hide" checked>' in page
    assert '<p class="board-count" id="board-count">3 entries · published results hidden</p>' in page
    head = page.split('<table class="board" id="leaderboard">', 1)[1].split("</thead>", 1)[0]
    links = [html.unescape(h) for h in re.findall(r'<a href="([^"]*)"', head)]
    downloads = [html.unescape(h) for h in re.findall(r'href="(/b/dialbgm/test/leaderboard\.[a-z]+\?[^"]*)"', page)]
    assert len(links) == 4 and len(downloads) == 2
    for link in links + downloads:
        assert parse_qs(urlsplit(link).query)["papers"] == ["hide"], link
    shown = client.get(DIAL).content.decode()
    assert '<input type="checkbox" name="papers" value="hide">' in shown  # unticked: the form sends nothing
    api = client.get(DIAL_API, {"papers": "hide"}).json()
    assert api["published_rows"] == [] and api["papers"] == "hidden" and api["counts"] == {"entries": 3,
                                                                                           "published": 0}
    assert [r["rank"] for r in api["rows"]] == [1, 1, 3]
    refused = client.get(DIAL_API, {"papers": "no"})
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "papers"


def test_a_search_keeps_the_whole_boards_ranks(board):
    client = Client()
    page = client.get(DIAL, {"q": "site b"}).content.decode()
    assert [(r["model"], r["rank"]) for r in page_rows(page.encode())] == [("Site B", 5)]
    assert paper_rows(page) == [] and "Rank in this view" not in page
    assert [(m, rank) for m, rank, _ in paper_rows(client.get(DIAL, {"q": "paper x"}).content.decode())] == [
        ("Paper X", "4")]
    tied = client.get(DIAL_API, {"q": "site c"}).json()["rows"]
    assert [(r["rank"], r["statistically_tied"]) for r in tied] == [(2, True)]
    hidden = client.get(DIAL_API, {"q": "site b", "papers": "hide"}).json()
    assert [r["rank"] for r in hidden["rows"]] == [3] and hidden["rank_scope"] == "whole leaderboard"
    summary = client.get(DIAL_API, {"input": "summary"}).json()  # the entries have no input setting
    assert summary["rows"] == [] and [(r["model_name"], r["rank"]) for r in summary["published_rows"]] == [
        ("Paper X", 4), ("Paper Y", 1), ("Paper Z", None)]
    assert client.get(DIAL_API, {"open": "yes"}).json()["published_rows"] == []  # a paper row says no licence


def test_paper_rows_stay_out_of_heatmaps_plots_and_downloads(board):
    client = Client()
    heat = client.get("/api/v1/benchmarks/dialbgm/test/heatmap").json()
    assert heat["models"] == ["Site A", "Site C", "Site B"]
    page = client.get(DIAL).content.decode()
    plots = page.split('<script id="field-plots-data" type="application/json">', 1)[1].split("</script>", 1)[0]
    data = json.loads(plots)
    assert [(e["model"], e["rank"]) for e in data["entries"]] == [("Site A", 2), ("Site C", 2), ("Site B", 5)]
    assert [(p["model"], p["value"]) for p in data["published"]] == [("Paper X", 0.415), ("Paper Y", 0.6)]
    items = client.get("/api/v1/benchmarks/dialbgm/test/leaderboard").json()
    assert all(r["source"] == "site" for r in items["rows"])  # per-item data and compare boxes: entries only


def test_csv_and_cli_give_the_papers_rows_with_the_pages_ranks_and_lanes(board):
    import csv
    import io

    from scoring.site.site_cli import board_table

    client = Client()
    data = client.get(DIAL_API).json()
    lines = list(csv.DictReader(io.StringIO(client.get("/b/dialbgm/test/leaderboard.csv").content.decode())))
    assert [(r["model_name"], r["rank"], r["source"], r["lane"]) for r in lines] == [
        ("Paper Y", "1", "paper", "ranked"), ("Site A", "2", "site", ""), ("Site C", "2", "site", ""),
        ("Paper X", "4", "paper", "ranked"), ("Site B", "5", "site", ""), ("Paper Z", "", "paper", "no_value")]
    assert lines[-1]["not_ranked"] == "Published without the sorted column's metric"
    assert lines[3]["provenance"] == f"paper: {PAPER}, T1" and lines[3]["Hit@1 (hit_at_1)"] == "0.415"
    table = board_table(data).splitlines()
    assert table[0] == "dialbgm/test: 3 row(s) and 3 paper row(s)"
    cells = [line.split()[:2] for line in table[2:]]
    assert cells == [["1", "Paper"], ["2", "Site"], ["=2", "Site"], ["4", "Paper"], ["5", "Site"], ["-", "Paper"]]
    assert "paper (not ranked: no value)" in table[-1]


def _printed_above(benchmark: str, key: str, threshold: float) -> set[str]:
    """The models (one per identity) that a published table of ``benchmark`` prints above ``threshold`` in ``key``,
    read straight from the transcribed files."""
    from leaderboard.services.boards.model_names import model_slug
    from leaderboard.services.references.baselines import BASELINES_DIR

    found = set()
    for path in BASELINES_DIR.glob("*.json"):
        for table in json.loads(path.read_text(encoding="utf-8"))["tables"]:
            if table["benchmark"] == benchmark:
                found |= {model_slug(r["model"]) for r in table["rows"] if (r["metrics"].get(key) or 0) > threshold}
    return found


def test_real_tables_rank_only_under_the_columns_protocol(make_split, alice):
    from tests.leaderboard.test_mcq_site import mmau_like

    baselines_load()
    musicqa = Split.objects.get(benchmark__name="musicqa", name="test")
    make_entry(musicqa, alice, "Site model", {"bleu1": 0.3, "bertscore_recall": 0.8})
    page = Client().get("/b/musicqa/test/", {"sort": "bleu1"}).content.decode()
    above = _printed_above("musicqa", "bleu1", 30.0)  # the M2UGen evaluator's BLEU-1: the column's own protocol
    assert [(r["model"], r["rank"]) for r in page_rows(page.encode())] == [("Site model", len(above) + 1)]
    beta = next(cells for model, _, cells in paper_rows(page) if model == "DeepResonance-β")
    assert ">0.3560</span>" in beta[1] and "printed 35.6 on 0–100, shown on 0–1" in beta[1]  # BLEU-1 column
    data = Client().get("/api/v1/benchmarks/musicqa/test/leaderboard", {"sort": "bleu1"}).json()
    ranked = [r for r in data["published_rows"] if r["rank"] is not None]
    assert len({model_slug(r["model_name"]) for r in ranked}) == len(ranked) == len(_printed_above(
        "musicqa", "bleu1", -1))  # a model holds one rank: Table 2 repeats Table 11's values
    assert {r["lane"] for r in data["published_rows"] if r["rank"] is None} == {"same_model"}

    recall = Client().get("/api/v1/benchmarks/musicqa/test/leaderboard", {"sort": "bertscore_recall"}).json()
    assert recall["rows"][0]["rank"] == 1  # the papers' recall is roberta-large's; this column is MiniLM's
    assert {(r["rank"], r["lane"]) for r in recall["published_rows"]} == {(None, "other_protocol"),
                                                                          (None, "no_value")}
    column = next(c["id"] for c in recall["columns"] if c["key"] == "bertscore_recall")
    differs = {r["other_protocol"][column]["differs"] for r in recall["published_rows"]
               if column in r["other_protocol"]}
    assert differs == {"roberta-large L17 BERTScore; this column is all-MiniLM-L6-v2 L6"}
    default = Client().get("/api/v1/benchmarks/musicqa/test/leaderboard").json()
    assert default["sort"]["key"] == "bleu" and default["sort"]["default"]

    mmau = make_split("mmau", "test-mini", mmau_like(6))
    make_entry(mmau, alice, "Site model", {"music_accuracy": 60.0})
    data = Client().get("/api/v1/benchmarks/mmau/test-mini/leaderboard").json()
    assert data["rows"][0]["rank"] == 1  # no published row is raw string_match on this gold
    assert all(r["rank"] is None and r["lane"] == "other_protocol" for r in data["published_rows"])
    column = data["sort"]["column"]
    reasons = {r["table"]: r["other_protocol"][column]["differs"] for r in data["published_rows"]}
    assert reasons == {
        "MMAU leaderboard v05.15.25, parsed": "answers first mapped onto an option by GPT-4o (prompt unreleased); "
                                              "this column scores the raw answers",
        "MMAU paper v1, raw string_match": "gold MMAU v1 (Oct 2024); this column uses this split's gold"}
    page = Client().get("/b/mmau/test-mini/").content.decode()
    assert page.count('<tr class="lane" data-lane="other_protocol">') == 1
    assert [r["rank"] for r in page_rows(page.encode())] == [1]
    assert all(rank == "–" for _, rank, _ in paper_rows(page))


def test_a_table_without_a_protocol_is_refused_and_two_protocols_never_share_a_ranking(dialbgm_split, alice, tmp_path):
    document = json.loads((Path(baselines_load.__globals__["BASELINES_DIR"]) / "dialbgm.json").read_text())
    del document["tables"][0]["protocol"]
    (tmp_path / "dialbgm.json").write_text(json.dumps(document))
    with pytest.raises(ValueError, match=r"dialbgm.json: Table 3 \(dialbgm\): no protocol"):
        baselines_load(tmp_path)
    assert not PublishedResult.objects.exists()
    make_entry(dialbgm_split, alice, "Site A", {"hit_at_1": (0.5, 0.45, 0.55)})
    for order_, (model, protocol) in enumerate((("Same", {}), ("Parsed", {"parser": "an LLM mapping"}),
                                                 ("Other gold", {"reference": "v0"}),
                                                 ("Other code", {"implementation": "their own script"}))):
        PublishedResult.objects.create(split=dialbgm_split, paper=PAPER, table="T1", kind="leaderboard",
                                       model_name=model, metrics={"hit_at_1": 90.0 - order_}, scale="percent",
                                       columns=printed_columns({"key": "hit_at_1", "label": "Hit@1"}, **protocol),
                                       order=order_)
    leaderboard_changed(dialbgm_split.pk)
    data = Client().get(DIAL_API).json()
    assert [(r["model_name"], r["rank"], r["lane"]) for r in data["published_rows"]] == [
        ("Same", 1, "ranked"), ("Parsed", None, "other_protocol"), ("Other gold", None, "other_protocol"),
        ("Other code", None, "other_protocol")]
    assert data["rows"][0]["rank"] == 2


def test_the_field_plots_place_each_paper_value_in_its_lane(dialbgm_split, alice):
    make_entry(dialbgm_split, alice, "Site A", {"hit_at_1": (0.5, 0.45, 0.55)})
    for order_, (model, protocol) in enumerate((("Same", {}), ("Parsed", {"parser": "an LLM mapping"}),
                                                 ("Other gold", {"reference": "v0"}))):
        PublishedResult.objects.create(split=dialbgm_split, paper="Paper P (2024)", table="T1", kind="leaderboard",
                                       model_name=model, metrics={"hit_at_1": 90.0 - order_}, scale="percent",
                                       columns=printed_columns({"key": "hit_at_1", "label": "Hit@1"}, **protocol),
                                       order=order_)
    leaderboard_changed(dialbgm_split.pk)
    page = Client().get(DIAL).content.decode()
    data = json.loads(page.split('<script id="field-plots-data" type="application/json">', 1)[1].split("</script>")[0])
    assert [(p["model"], p["value"], p["lane"], p["rank"]) for p in data["published"]] == [
        ("Same", 0.9, "ranked", 1), ("Parsed", 0.89, "other_protocol", None),
        ("Other gold", 0.88, "other_protocol", None)]
    assert [p["differs"] for p in data["published"]] == [
        "", "answers first converted into the scorer's input by an LLM mapping; this column scores the raw answers",
        "gold v0; this column uses this split's gold"]
    intervals = page.split('<table class="plain" id="intervals-table">', 1)[1].split("</table>", 1)[0]
    assert re.findall(r'<tr class="(published[^"]*)"><td>([^<]*)</td>', intervals) == [
        ("published", "1 (paper)"), ("published other-protocol", "reference"),
        ("published other-protocol", "reference")]
    best = page.split('<table class="plain" id="best-over-time-table">', 1)[1].split("</table>", 1)[0]
    assert best.count('class="published"') == 1 and "Same" in best and "Parsed" not in best
    hidden = Client().get(DIAL, {"papers": "hide"}).content.decode()
    assert '"published": []' in hidden  # hidden from the table, hidden from the plots


def test_hidden_label_boards_round_entries_not_paper_rows(make_split, dialbgm_refs, alice):
    hidden = make_split("dialbgm", "hidden-test", dialbgm_refs, hidden=True)
    make_entry(hidden, alice, "Site model", {"hit_at_1": 0.512345})
    PublishedResult.objects.create(split=hidden, paper=PAPER, table="T1", kind="leaderboard", model_name="Paper X",
                                   metrics={"hit_at_1": 41.37},
                                   columns=printed_columns({"key": "hit_at_1", "label": "Hit@1", "scale": "percent"}),
                                   scale="percent", order=0)
    leaderboard_changed(hidden.pk)
    data = Client().get("/api/v1/benchmarks/dialbgm/hidden-test/leaderboard").json()
    entry_value = data["rows"][0]["entry"]["metrics"][data["columns"][0]["id"]]["value"]
    assert entry_value != 0.512345  # rounded by the disclosure rules
    assert data["published_rows"][0]["metrics"][data["columns"][0]["id"]]["value"] == 0.4137
    assert [data["rows"][0]["rank"], data["published_rows"][0]["rank"]] == [1, 2]


def test_every_board_links_the_protocols_page_which_reads_as_the_doc(dialbgm_split):
    page = Client().get(DIAL).content.decode()
    assert '<a href="/docs/protocols/" id="protocols-link">how rows are compared</a>' in page
    doc = Client().get("/docs/protocols/")
    assert doc.status_code == 200
    body = doc.content.decode()
    assert "<h1>Protocols: which numbers are ranked together</h1>" in body and "<table>" in body
    assert "roberta-large L17" in body and "model_aliases.toml" in body
