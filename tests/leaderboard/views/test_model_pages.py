"""Models across benchmarks: the model page, the home page's overview, search and ``GET /api/v1/models``.

Every number is checked against the boards themselves (each board built by the leaderboard
service and rendered as its own page, for the same viewer), and the hidden-label split against
hand-computed released values: rounding to 0.1 on 60 items and the Ladder's withholding, for an
anonymous visitor, a second account, the owner and a maintainer.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.utils import timezone

from leaderboard.models import Split, Status, Submission
from leaderboard.services.boards import leaderboards
from leaderboard.services.boards.model_index import model_index_build, model_slug
from leaderboard.services.shared.cache import leaderboard_changed
from tests.helpers.boards import make_entry, page_rows, printed_columns
from tests.helpers.datagen import dialbgm_references, jamendo_references
from tests.helpers.fixtures import module_rows, rows_fresh, split_create, user_create

pytestmark = pytest.mark.django_db
VIEWERS = ("anonymous", "bob", "alice", "maintainer")
SECRET_NAMES = ("Secret Model", "Gone Model", "Broken Model")


def _dialbgm(hit: float, mrr: float, ndcg: float, tau: float, spread: float = 0.05) -> dict[str, Any]:
    """Values shaped like a real 3-run entry: mean, interval, std and per-run values."""
    def cell(v: float) -> tuple[Any, ...]:
        return (v, v - spread, v + spread, spread / 2, [v - spread / 3, v, v + spread / 3])
    return {"hit_at_1": cell(hit), "mrr": cell(mrr), "ndcg_at_4": cell(ndcg), "kendall_tau_b": cell(tau)}


def _field(folder: Path) -> dict[str, Any]:
    alice, bob, maintainer = user_create("alice"), user_create("bob"), user_create("maintainer", staff=True)
    carol = user_create("carol")
    public = split_create("dialbgm", "test", dialbgm_references(60, seed=3), folder)
    jamendo = split_create("jamendo-mt-qa", "full", jamendo_references(40, seed=3), folder)
    hidden = split_create("dialbgm", "hidden-test", dialbgm_references(60, seed=3, prefix="hidden"), folder,
                          hidden=True)
    summary = {"input": "summary", "modality": "audio"}
    make_entry(public, carol, "Qwen2-Audio-7B", _dialbgm(37 / 60, 0.745833, 0.812377, 0.123456), runs=3,
               organisation="Alibaba", settings=summary, age_days=5)
    make_entry(public, carol, "Qwen2-Audio-7B", _dialbgm(29 / 60, 0.6625, 0.77123, -0.0412),
               organisation="Alibaba", settings={"input": "full_dialogue", "modality": "audio"}, age_days=4)
    demo = make_entry(public, carol, "MU-LLaMA", _dialbgm(22 / 60, 0.58, 0.7011, -0.2), age_days=3)
    Submission.objects.filter(pk=demo.pk).update(demo=True)
    make_entry(public, bob, "SALMONN 13B", {"hit_at_1": 31 / 60, "mrr": 0.7013})  # incomplete: two columns
    make_entry(public, alice, "Secret Model", _dialbgm(0.9, 0.95, 0.97, 0.8), private=True)
    gone = make_entry(public, alice, "Gone Model", _dialbgm(0.95, 0.97, 0.98, 0.9))
    Submission.objects.filter(pk=gone.pk).update(withdrawn_at=timezone.now())
    broken = make_entry(public, alice, "Broken Model", _dialbgm(0.99, 0.99, 0.99, 0.99))
    Submission.objects.filter(pk=broken.pk).update(status=Status.INVALID)
    make_entry(jamendo, carol, "qwen2 audio 7B", {"yes_no_accuracy": (23 / 40, 0.43, 0.72, 0.01, [23 / 40]),
                                                  "short_answer_accuracy": 0.3, "bleu": 12.3456, "rouge1": 31.25},
               organisation="Alibaba", settings={"type": "Multi"})
    make_entry(jamendo, bob, "SALMONN 13B", {"yes_no_accuracy": 0.625, "short_answer_accuracy": 0.275,
                                             "bleu": 9.87, "rouge1": 28.4})
    # hidden split: step 0.1 (60 items); alice's Beta is not above her best (Alpha), Gamma is, but private
    make_entry(hidden, alice, "Alpha", {"hit_at_1": (43 / 60, 0.6, 0.83, 0.0167, [42 / 60, 43 / 60, 44 / 60]),
                                        "mrr": 0.80123}, runs=3, age_days=3)
    make_entry(hidden, alice, "Beta", {"hit_at_1": 38 / 60, "mrr": 0.70456}, age_days=2)
    make_entry(hidden, alice, "Gamma", {"hit_at_1": 53 / 60, "mrr": 0.93}, private=True, age_days=1)
    make_entry(hidden, bob, "Qwen2-Audio-7B", {"hit_at_1": (32 / 60, 0.41, 0.65, 0.0236, [31 / 60, 33 / 60]),
                                               "mrr": 0.6689}, organisation="Alibaba", runs=2)
    for split in (public, jamendo, hidden):
        leaderboard_changed(split.pk)
    return {"public": public, "jamendo": jamendo, "hidden": hidden, "alice": alice, "bob": bob,
            "maintainer": maintainer}


@pytest.fixture(scope="module")
def field_rows(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """The field is built once for the module: every test reads it (what a test adds is rolled back)."""
    with module_rows(django_db_blocker):
        yield _field(tmp_path_factory.mktemp("model-pages"))


@pytest.fixture
def field(field_rows, db) -> dict[str, Any]:
    return rows_fresh(field_rows)


@pytest.fixture
def alice(field) -> Any:
    return field["alice"]


@pytest.fixture
def bob(field) -> Any:
    return field["bob"]


@pytest.fixture
def maintainer(field) -> Any:
    return field["maintainer"]


def _viewer(field: dict[str, Any], who: str) -> tuple[Any, Client]:
    client = Client()
    if who == "anonymous":
        return AnonymousUser(), client
    client.force_login(field[who])
    return field[who], client


def _page_cells(content: bytes, columns: list[Any]) -> list[dict[str, str]]:
    """Per board-page row: column id -> cell HTML, leaving out columns the entry has no value for."""
    return [{c.id: cell for c, cell in zip(columns, row["cells"]) if "not computed" not in cell}
            for row in page_rows(content)]


MODEL_ROW = re.compile(r'<tr data-board="(?P<board>[^"]+)"[^>]*>(?P<body>.*?)</details></td>\s*</tr>', re.S)
CELL = re.compile(r'<tr data-column="(?P<cid>[^"]+)"><th scope="row">[^<]*</th><td class="num">(?P<cell>.*?)</td></tr>',
                  re.S)
MAIN = re.compile(r'<td class="num main" data-column="(?P<cid>[^"]+)">(?P<cell>.*?)<span class="unit">[^<]*</span>'
                  r'</td>', re.S)


def _model_page_rows(content: bytes) -> list[tuple[str, str, dict[str, str]]]:
    """(board key, main column id + cell, every column id -> cell) per result row of a model page."""
    out = []
    for row in MODEL_ROW.finditer(content.decode()):
        main = MAIN.search(row["body"])
        assert main is not None, row["body"]
        out.append((row["board"], main["cid"] + "=" + main["cell"],
                    {m["cid"]: m["cell"] for m in CELL.finditer(row["body"])}))
    return out


@pytest.mark.parametrize("who", VIEWERS)
def test_model_page_cells_equal_the_rendered_board_cells_for_each_viewer(field, who):
    user, client = _viewer(field, who)
    seen = 0
    for split in Split.objects.filter(pk__in=[field[k].pk for k in ("public", "jamendo", "hidden")]):
        board = leaderboards.build(split, user, {})
        page = client.get(f"/b/{split.benchmark.name}/{split.name}/")
        assert page.status_code == 200
        board_cells = _page_cells(page.content, board.columns)
        assert [r["model"] for r in page_rows(page.content)] == [r.entry.model_name for r in board.rows]
        for position, row in enumerate(board.rows):
            model = client.get(f"/models/{model_slug(row.entry.model_name)}/")
            assert model.status_code == 200, row.entry.model_name
            mine = [r for r in _model_page_rows(model.content) if r[0] == f"{split.benchmark.name}/{split.name}"]
            # the model's rows on this board, in board order: this row's place among them
            same_model = [r for r in board.rows if model_slug(r.entry.model_name) == model_slug(row.entry.model_name)]
            _, main, cells = mine[same_model.index(row)]
            assert cells == board_cells[position], (who, split.name, row.entry.model_name)
            assert main == f"{board.sort.id}={board_cells[position][board.sort.id]}"
            seen += 1
    assert seen >= 6


def _api_value(data: dict[str, Any], name: str, board: str) -> Any:
    model = next(m for m in data["models"] if m["slug"] == model_slug(name))
    result = next(r for r in model["results"] if f"{r['benchmark']}/{r['split']}" == board and r["model_name"] == name)
    return result["main"]


@pytest.mark.parametrize("who", VIEWERS)
def test_api_values_equal_the_board_api_for_each_viewer(field, who):
    _, client = _viewer(field, who)
    data = client.get("/api/v1/models").json()
    for split in (field["public"], field["jamendo"], field["hidden"]):
        key = f"{split.benchmark.name}/{split.name}"
        board = client.get(f"/api/v1/benchmarks/{key}/leaderboard").json()
        for row in board["rows"]:
            model = next(m for m in data["models"] if m["slug"] == model_slug(row["entry"]["model_name"]))
            result = next(r for r in model["results"] if r["entry"] == row["entry"]["id"])
            assert (result["rank"], result["statistically_tied"]) == (row["rank"], row["statistically_tied"])
            for cid, cell in row["entry"]["metrics"].items():
                assert result["metrics"][cid]["value"] == cell["value"], (who, key, cid)
                assert result["metrics"][cid].get("withheld") == cell.get("withheld")
                assert result["metrics"][cid]["std"] == cell["std"]
        shown = {(r["entry"]["id"]) for r in board["rows"]}
        listed = {r["entry"] for m in data["models"] for r in m["results"] if f"{r['benchmark']}/{r['split']}" == key}
        assert listed == shown


HIDDEN = "dialbgm/hidden-test"


@pytest.mark.parametrize("who", ("anonymous", "bob"))
def test_hidden_split_shows_others_released_values_only(field, who):
    _, client = _viewer(field, who)
    data = client.get("/api/v1/models").json()
    assert _api_value(data, "Alpha", HIDDEN)["value"] == 0.7  # 43/60 = 0.7167 on a 0.1 grid
    beta = _api_value(data, "Beta", HIDDEN)
    assert beta["value"] is None and "not above" in beta["withheld"]  # 0.6 does not beat alice's 0.7
    qwen = _api_value(data, "Qwen2-Audio-7B", HIDDEN)
    assert qwen["value"] == 0.5 and qwen["std"] is None and qwen["ci95"] is None  # 32/60 = 0.5333
    assert "Gamma" not in client.get("/api/v1/models").content.decode()
    page = client.get("/models/beta/").content.decode()
    assert "not above best" in page and "0.6333" not in page and "0.633" not in page
    assert "0.7000" in client.get("/models/alpha/").content.decode()
    assert "0.7167" not in client.get("/models/alpha/").content.decode()
    assert client.get("/models/gamma/").status_code == 404


@pytest.mark.parametrize("who", ("anonymous", "bob", "alice"))
def test_hidden_split_numbers_lie_on_the_released_grid_for_non_maintainers(field, who):
    _, client = _viewer(field, who)
    results = [r for m in client.get("/api/v1/models").json()["models"] for r in m["results"]
               if f"{r['benchmark']}/{r['split']}" == HIDDEN]
    assert len(results) == (4 if who == "alice" else 3)
    for result in results:
        for cell in [result["main"], *result["metrics"].values()]:
            assert cell["std"] is None and cell["ci95"] is None, (who, result["model_name"])
            assert cell["value"] is None or abs(cell["value"] * 10 - round(cell["value"] * 10)) < 1e-9, cell
    page = client.get("/models/alpha/").content.decode()
    for secret in ("0.7167", "0.0167", "0.6000,", "0.8300", "0.8012"):  # mean, std, interval, mrr unrounded
        assert secret not in page


def test_hidden_split_owner_sees_released_values_and_her_private_entry(field):
    _, client = _viewer(field, "alice")
    data = client.get("/api/v1/models").json()
    assert _api_value(data, "Alpha", HIDDEN)["value"] == 0.7
    assert _api_value(data, "Beta", HIDDEN)["value"] is None
    gamma = _api_value(data, "Gamma", HIDDEN)
    assert gamma["value"] == 0.9  # 53/60 = 0.8833 beats her best 0.7: released, rounded
    page = client.get("/models/gamma/").content.decode()
    assert "0.9000" in page and "0.8833" not in page and "private" in page


def test_hidden_split_maintainer_sees_exact_values(field):
    _, client = _viewer(field, "maintainer")
    data = client.get("/api/v1/models").json()
    alpha = _api_value(data, "Alpha", HIDDEN)
    assert (alpha["value"], alpha["std"], alpha["ci95"]) == (43 / 60, 0.0167, [0.6, 0.83])
    assert _api_value(data, "Beta", HIDDEN)["value"] == pytest.approx(38 / 60, abs=0)
    assert _api_value(data, "Gamma", HIDDEN)["value"] == pytest.approx(53 / 60, abs=0)
    assert "0.6333" in client.get("/models/beta/").content.decode()


@pytest.mark.parametrize("who", ("anonymous", "bob"))
def test_private_withdrawn_and_invalid_entries_never_reach_others(field, who):
    _, client = _viewer(field, who)
    pages = [client.get(url).content.decode() for url in (
        "/", "/models/", "/models/?q=model", "/api/v1/models", "/api/v1/models?q=model", "/models/?q=secret")]
    for name in SECRET_NAMES:
        assert all(name not in page for page in pages), name
        assert client.get(f"/models/{model_slug(name)}/").status_code == 404
    assert client.get("/api/v1/models?q=secret").json()["models"] == []


@pytest.mark.parametrize("who", ("alice", "maintainer"))
def test_owner_and_maintainer_see_the_private_entry_never_withdrawn_or_invalid(field, who):
    _, client = _viewer(field, who)
    page = client.get("/models/secret-model/")
    assert page.status_code == 200 and "badge\">private" in page.content.decode()
    listed = {m["name"] for m in client.get("/api/v1/models").json()["models"]}
    assert "Secret Model" in listed and not {"Gone Model", "Broken Model"} & listed
    assert client.get("/models/gone-model/").status_code == 404
    assert client.get("/models/broken-model/").status_code == 404


def test_one_model_across_spellings_with_each_configuration_as_its_own_row(field):
    data = Client().get("/api/v1/models?q=QWEN2").json()
    assert [m["slug"] for m in data["models"]] == ["qwen2-audio-7b"]
    model = data["models"][0]
    assert model["names"] == ["Qwen2-Audio-7B", "qwen2 audio 7B"] and model["name"] == "Qwen2-Audio-7B"
    rows = [(r["benchmark"], r["split"], r["settings"].get("input") or r["settings"].get("type"), r["rank"])
            for r in model["results"]]
    # boards by benchmark name, then split; on DialBGM test the summary row (37/60) outranks full dialogue
    # (29/60), which is second: SALMONN's 31/60 misses two columns, so it ranks after every complete row
    assert rows == [("dialbgm", "test", "summary", 1), ("dialbgm", "test", "full_dialogue", 2),
                    ("dialbgm", "hidden-test", None, 2), ("jamendo-mt-qa", "full", "Multi", 2)]
    assert Client().get("/api/v1/models?q=alibaba").json()["models"][0]["slug"] == "qwen2-audio-7b"
    page = Client().get("/models/qwen2-audio-7b/").content.decode()
    assert "Also listed as" in page and "One-line summary" in page and "Multi-audio (Multi)" in page
    assert page.count('data-board="dialbgm/test"') == 2


def test_model_search_page_and_api_refusals(field):
    page = Client().get("/models/?q=salmonn").content.decode()
    assert "1 of 5 models match" in page and "/models/salmonn-13b/" in page
    assert Client().get("/models/?q=nothing-like-it").content.decode().count('data-model="') == 0
    for bad, message in (("%00x", "NUL"), ("x" * 201, "at most 200")):
        response = Client().get(f"/api/v1/models?q={bad}")
        assert response.status_code == 400 and message in response.json()["error"]["message"]
        assert response.json()["error"]["field"] == "q"


def _overview(content: bytes) -> tuple[list[str], list[tuple[str, list[str]]]]:
    text = content.decode().split('<table id="models-table"', 1)[1].split("</table>", 1)[0]
    boards = re.findall(r'<th scope="col" class="num[^"]*" data-board="([^"]+)"', text)
    rows = []
    for row in re.finditer(r'<tr data-model="([^"]+)">(.*?)</tr>', text, re.S):
        cells = re.findall(r'<td class="num" data-board="[^"]+">(.*?)</td>', row[2], re.S)
        rows.append((row[1], [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in cells]))
    return boards, rows


def test_overview_shows_each_boards_main_column_sorted_with_empty_cells(field):
    boards, rows = _overview(Client().get("/").content)
    assert boards == ["dialbgm/test", "dialbgm/hidden-test", "jamendo-mt-qa/full"]
    assert rows == [  # by name; the highest row per board; hidden split released values; empty: no entry
        ("alpha", ["", "0.7000", ""]),
        ("beta", ["", "not above best", ""]),
        ("mu-llama", ["0.3667", "", ""]),
        ("qwen2-audio-7b", ["0.6167", "0.5000", "0.575"]),
        ("salmonn-13b", ["0.5167", "", "0.625"]),
    ]
    _, by_jamendo = _overview(Client().get("/?model_sort=jamendo-mt-qa/full").content)
    assert [slug for slug, _ in by_jamendo] == ["salmonn-13b", "qwen2-audio-7b", "alpha", "beta", "mu-llama"]
    _, by_hidden = _overview(Client().get("/?model_sort=dialbgm/hidden-test").content)
    assert [slug for slug, _ in by_hidden] == ["alpha", "qwen2-audio-7b", "beta", "mu-llama", "salmonn-13b"]
    home = Client().get("/").content.decode()
    assert 'id="models-more"' not in home  # every model shown: no note
    assert "average" not in home.split('id="models-table"', 1)[1].split("</table>", 1)[0].lower()


def test_overview_cells_equal_each_boards_main_column(field):
    boards, rows = _overview(Client().get("/").content)
    for position, key in enumerate(boards):
        split = Split.objects.named(*key.split("/")).get()
        board = leaderboards.build(split, AnonymousUser(), {})
        best: dict[str, Any] = {}
        for row in board.rows:
            best.setdefault(model_slug(row.entry.model_name), row.entry.values[board.sort.id])
        for slug, cells in rows:
            cell = best.get(slug)
            expected = "" if cell is None else "not above best" if cell.get("withheld") else \
                f"{cell['value']:.{board.sort.decimals}f}"
            assert cells[position] == expected, (key, slug)


def test_demo_entries_are_labelled_as_demo(field):
    page = Client().get("/models/mu-llama/").content.decode()
    assert page.count("made by the site&#x27;s demo loader") + page.count("made by the site's demo loader") >= 2
    home = Client().get("/").content.decode()
    row = home.split('<tr data-model="mu-llama">', 1)[1].split("</tr>", 1)[0]
    assert 'class="badge demo"' in row
    assert Client().get("/api/v1/models?q=mu-llama").json()["models"][0]["demo"] is True


def test_anonymous_home_and_model_pages_come_from_the_page_cache_and_follow_changes(field, alice):
    client = Client()
    for url in ("/", "/models/qwen2-audio-7b/", "/?model_sort=dialbgm/test"):
        assert client.get(url)["X-Page-Cache"] == "miss"
        assert client.get(url)["X-Page-Cache"] == "hit"
    assert "X-Page-Cache" not in client.get("/?model_sort=nope/none")  # a made-up board: rendered, not stored
    make_entry(field["jamendo"], alice, "Newcomer", {"yes_no_accuracy": 0.7, "short_answer_accuracy": 0.2})
    fresh = client.get("/")
    assert fresh["X-Page-Cache"] == "miss" and "Newcomer" in fresh.content.decode()
    logged_in = Client()
    logged_in.force_login(alice)
    assert "X-Page-Cache" not in logged_in.get("/")


def test_index_builds_no_board_while_no_split_changes(field, bob, alice, maintainer, django_assert_max_num_queries):
    # the split versions (when their 5 s cache entry has expired) and, for an account, whether it has private entries
    for user, queries in ((AnonymousUser(), 1), (bob, 2), (alice, 2), (maintainer, 1)):
        model_index_build(user)
        with django_assert_max_num_queries(queries):
            index = model_index_build(user)
        assert index.find("qwen2-audio-7b") is not None


def test_shared_index_marks_only_the_viewers_own_rows_as_theirs(field, bob, alice, maintainer, make_user):
    """bob has no private entry: he shares the anonymous index, and two maintainers share one; the
    *yours* marks still follow each viewer (the boards' ``mine``)."""
    other_staff = make_user("second-maintainer", staff=True)
    for user in (AnonymousUser(), bob, alice, maintainer, other_staff):
        index = model_index_build(user)
        for split in (field["public"], field["jamendo"], field["hidden"]):
            board = leaderboards.build(split, user, {})
            key = f"{split.benchmark.name}/{split.name}"
            mine = [r.mine for r in board.rows]
            results = {r.entry_uid: r.mine for m in index.models for r in m.results if r.board.key == key}
            assert [results[r.entry.uid] for r in board.rows] == mine, (user, key)
    mine = {r.model_name for m in model_index_build(bob).models for r in m.results if r.mine}
    assert mine == {"SALMONN 13B", "Qwen2-Audio-7B"}
    assert not any(r.mine for m in model_index_build(other_staff).models for r in m.results)
    assert 'class="badge mine">yours' not in Client().get("/models/salmonn-13b/").content.decode()


def test_model_slugs_fold_case_spacing_and_punctuation_and_keep_other_scripts():
    assert model_slug("  Qwen2-Audio-7B ") == model_slug("qwen2 audio   7b") == "qwen2-audio-7b"
    assert model_slug("GPT-4o (text only)") == "gpt-4o-text-only"
    assert model_slug("Llama-3.1+Whisper v2.0") == "llama-3.1+whisper-v2.0"
    assert model_slug("音乐模型 v1") == "音乐模型-v1"
    assert model_slug("???") == model_slug("???") != model_slug("!!!")  # nothing to keep: a stable hash
    assert model_slug("???").startswith("model-")


def test_models_with_any_name_get_a_working_page(field, alice):
    for name in ("音乐模型 v1", "???", "a/b <script>x</script>", "Ünïcödé 7B?#"):
        make_entry(field["jamendo"], alice, name, {"yes_no_accuracy": 0.5, "short_answer_accuracy": 0.1})
    data = Client().get("/api/v1/models").json()
    for name in ("音乐模型 v1", "???", "a/b <script>x</script>", "Ünïcödé 7B?#"):
        model = next(m for m in data["models"] if m["name"] == name)
        page = Client().get(model["url"])
        assert page.status_code == 200, (name, model["url"])
        assert html.escape(name) in page.content.decode() and "<script>x" not in page.content.decode()


def test_papers_rows_are_results_of_their_models_with_the_boards_rank(field):
    from leaderboard.models import PublishedResult

    columns = printed_columns({"key": "hit_at_1", "label": "Hit@1", "scale": "percent"}, {"key": "mrr", "label": "MRR"})
    for order, (name, hit) in enumerate((("Qwen2 Audio-7B", 41.5), ("Paper-only Model", 55.0))):
        PublishedResult.objects.create(split=field["public"], paper="DialBGM (arXiv, 2025)", table="Table 3",
                                       model_name=name, metrics={"hit_at_1": hit, "mrr": 0.6021}, columns=columns,
                                       scale="0-1", order=order, settings={"input": "summary"})
    leaderboard_changed(field["public"].pk)
    page = Client().get("/models/qwen2-audio-7b/").content.decode()
    published = page.split('<table id="model-published">', 1)[1].split("</table>", 1)[0]
    assert published.count("<tr data-board=") == 1 and 'data-board="dialbgm/test"' in published
    assert "Hit@1 <strong>41.5</strong> <span class=\"meta\">(%)</span>" in published
    assert "MRR <strong>0.6021</strong> <span class=\"meta\">(0–1)</span>" in published
    assert "Table 3" in published and "input=summary" in published

    board = Client().get("/api/v1/benchmarks/dialbgm/test/leaderboard").json()
    ranks = {r["model_name"]: r["rank"] for r in board["published_rows"]}
    ranks |= {r["entry"]["model_name"]: r["rank"] for r in board["rows"]}
    ranked = sum(1 for r in [*board["published_rows"], *board["rows"]] if r["rank"] is not None)
    assert ranks["Paper-only Model"] is not None and ranks["Qwen2 Audio-7B"] is not None
    only = Client().get("/models/paper-only-model/").content.decode()  # a model only in papers has a page
    row = only.split('<tr data-board="dialbgm/test"', 1)[1].split("</tr>", 1)[0]
    assert "reported in paper, not re-scored here" in row
    assert f'<td class="rank num" data-label="Rank">{ranks["Paper-only Model"]} <span class="meta">of {ranked}' in row
    found = Client().get("/api/v1/models?q=paper-only").json()["models"]
    assert [(m["name"], [(r["source"], r["rank"], r["paper"]) for r in m["results"]]) for m in found] == [
        ("Paper-only Model", [("paper", ranks["Paper-only Model"], "DialBGM (arXiv, 2025) · Table 3")])]
    qwen = Client().get("/api/v1/models?q=qwen2").json()["models"]
    on_board = {(r["entry"]["model_name"], "site", r["rank"]) for r in board["rows"]}
    on_board |= {(r["model_name"], "paper", r["rank"]) for r in board["published_rows"]}
    in_index = {(r["model_name"], r["source"], r["rank"]) for m in qwen for r in m["results"]
                if (r["benchmark"], r["split"]) == ("dialbgm", "test")}
    assert len(in_index) == 3 and in_index <= on_board  # two configurations of one model, and its paper row
    assert "Paper-only Model" in Client().get("/").content.decode().split('id="models-table"', 1)[1]


def test_withdrawn_or_made_private_entries_leave_cached_model_pages_on_the_next_request(
        field, bob, django_capture_on_commit_callbacks):
    from leaderboard.services.policy.entries import entry_set_visibility, entry_withdraw

    client = Client()
    assert client.get("/models/salmonn-13b/")["X-Page-Cache"] == "miss"
    assert client.get("/models/salmonn-13b/")["X-Page-Cache"] == "hit"
    on_jamendo, on_dialbgm = (Submission.objects.get(user=bob, model_name="SALMONN 13B", split=field[k])
                              for k in ("jamendo", "public"))
    with django_capture_on_commit_callbacks(execute=True):
        entry_withdraw(submission=on_jamendo, user=bob)
    page = client.get("/models/salmonn-13b/").content.decode()
    assert 'data-board="jamendo-mt-qa/full"' not in page and 'data-board="dialbgm/test"' in page
    with django_capture_on_commit_callbacks(execute=True):
        entry_set_visibility(submission=on_dialbgm, user=bob, private=True)
    assert client.get("/models/salmonn-13b/").status_code == 404
    assert "SALMONN" not in client.get("/").content.decode()
    owner = Client()
    owner.force_login(bob)
    assert 'data-board="dialbgm/test"' in owner.get("/models/salmonn-13b/").content.decode()


def test_overview_shows_the_first_rows_in_the_chosen_order_and_says_so(field, monkeypatch):
    from leaderboard.views import model_pages

    monkeypatch.setattr(model_pages, "OVERVIEW_ROWS", 2)
    page = Client().get("/?model_sort=jamendo-mt-qa/full").content
    assert [slug for slug, _ in _overview(page)[1]] == ["salmonn-13b", "qwen2-audio-7b"]
    assert "The first 2 of 5 models in this order" in page.decode()
