"""The pages a newcomer reads first, at 1366 px and at 390 px: a wide board (MMAR, real references and its
published table), the home page, an entry's explorer and compare. Nothing scrolls the page sideways, the
columns that carry the meaning stay on screen, and the first board view is light (plotly waits until its
section is scrolled to). Screenshots go to artifacts/screenshots/.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command

from tests.helpers.browser import CHROMIUM, OVERFLOW, PHONE, WIDE
from tests.helpers.shared import shared_file

if not CHROMIUM.exists():
    pytest.skip(f"browser tests need Chromium at {CHROMIUM} (Debian package 'chromium'); not installed",
                allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")
expect = playwright.expect

from leaderboard.models import PublishedResult  # noqa: E402
from leaderboard.services.references.benchmarks import benchmark_create_from_spec  # noqa: E402
from scoring import BENCHMARKS  # noqa: E402
from scoring.specs import SUITES, suite_members  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

FIRST_VIEW_BUDGET = 500_000  # bytes transferred by a board's first view, every asset included


def check_fits(page: Any, label: str) -> None:
    layout = page.evaluate(OVERFLOW)
    assert layout["scrollWidth"] <= layout["width"], (label, layout)
    assert not layout["outside"], (label, layout)
    assert all(w["right"] <= layout["width"] + 1 for w in layout["wraps"]), (label, layout)


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not shown"
    return found


def within(page: Any, selector: str, width: int) -> None:
    b = box(page, selector)
    assert b["x"] >= -1 and b["x"] + b["width"] <= width + 1, (selector, b)


def test_mmar_board_keeps_rank_model_and_sorted_column_readable(new_page: Any, screenshot: Any) -> None:
    folder = shared_file("data", "mmar", "MMAR-meta.jsonl").parent
    call_command("create_benchmark", "mmar")
    call_command("import_references", "--from", str(folder))
    call_command("load_baselines")
    published = PublishedResult.objects.filter(split__benchmark__name="mmar", kind="leaderboard").count()
    assert published >= 17
    for viewport in (WIDE, PHONE):
        phone = viewport is PHONE
        page = new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
        page.goto("/b/mmar/test/")
        rows = page.locator("#leaderboard tbody tr.paper")
        assert rows.count() == published
        screenshot(page, f"{viewport['width']}-mmar-board")
        page.locator("#leaderboard").scroll_into_view_if_needed()
        screenshot(page, f"{viewport['width']}-mmar-board-table", full_page=False)
        check_fits(page, f"mmar {viewport['width']}")
        model = box(page, "#leaderboard tbody tr.paper td.model")
        assert model["width"] >= (140 if phone else 190), model  # was 114 px at 1366
        # the table scrolls in its own box; rank and model stay at its left edge while it does
        wrap = page.locator("#leaderboard").locator("..")
        assert wrap.evaluate("w => getComputedStyle(w).overflowX") == "auto"
        scrolls = wrap.evaluate("w => w.scrollWidth > w.clientWidth")
        if phone:
            assert scrolls
            within(page, "#leaderboard thead th.sorted", viewport["width"])  # scrolled in beside the model
            within(page, "#leaderboard tbody tr.paper td.rank", viewport["width"])
        if scrolls:
            wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
            moved = box(page, "#leaderboard tbody tr.paper td.model")
            assert abs(moved["x"] - model["x"]) <= 1, (model, moved)
            screenshot(page, f"{viewport['width']}-mmar-board-scrolled", full_page=False)
        height = page.evaluate("() => document.getElementById('leaderboard').getBoundingClientRect().height")
        assert height < published * (220 if phone else 110), height  # was 11,420 px for 37 rows at 1366


def test_home_groups_benchmarks_compactly_with_published_counts(new_page: Any, screenshot: Any) -> None:
    for name in BENCHMARKS:
        benchmark_create_from_spec(name=name)
    call_command("load_baselines")
    mmar_published = PublishedResult.objects.filter(split__benchmark__name="mmar", split__name="test",
                                                    kind="leaderboard").count()
    assert mmar_published
    heights = {}
    for viewport in (WIDE, PHONE):
        phone = viewport is PHONE
        page = new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
        page.goto("/")
        screenshot(page, f"{viewport['width']}-home")
        screenshot(page, f"{viewport['width']}-home-first-screen", full_page=False)
        check_fits(page, f"home {viewport['width']}")
        heights[viewport["width"]] = page.evaluate("""() => [document.documentElement.scrollHeight,
            document.getElementById('benchmarks').getBoundingClientRect().height]""")
        mmar = page.locator('tr[data-benchmark="mmar"]')
        expect(mmar).to_contain_text(f"0 entries · {mmar_published} published")
        # each suite is one entry: its tasks inside, not a card each
        for suite in SUITES.values():
            tasks = page.locator(f'details[data-suite="{suite.name}"] ul.tasks li')
            assert tasks.count() == len(suite_members(suite.name))
            assert page.locator(f'tr[data-benchmark="{suite_members(suite.name)[0].name}"]').count() == 0
        listed = page.locator("tr[data-benchmark]").count()
        assert listed == sum(1 for s in BENCHMARKS.values() if not s.suite)
    # One card per benchmark measured 16,479 px at 1366 and 31,325 px at 390 with every benchmark created
    # and the published tables loaded (the models overview below it: 3,519 and 4,396 px of that).
    (wide, wide_list), (phone, phone_list) = heights[WIDE["width"]], heights[PHONE["width"]]
    assert wide < 6_000 and phone < 8_000 and wide_list < 1_800 and phone_list < 3_000, heights


def test_explorer_and_compare_keep_key_columns_on_a_phone(dialbgm_board: Any, new_page: Any, screenshot: Any) -> None:
    a, b = dialbgm_board.uids["Ranker A"], dialbgm_board.uids["Ranker B"]
    for viewport in (WIDE, PHONE):
        phone = viewport is PHONE
        page = new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
        page.goto(f"/s/{a}/")
        screenshot(page, f"{viewport['width']}-explorer")
        page.locator("#item-table").evaluate("t => t.scrollIntoView()")
        screenshot(page, f"{viewport['width']}-explorer-items", full_page=False)
        check_fits(page, f"explorer {viewport['width']}")
        first = "#item-table tbody tr:first-child"
        for cell in ("td:nth-child(2) code", "td.text:has(+ td.scores)", "td.scores [data-key]"):
            within(page, f"{first} {cell}", viewport["width"])
        if phone:  # one card per item, the prediction labelled
            label = page.evaluate(f"""() => getComputedStyle(document.querySelector('{first} td.text:has(+ td.scores)'),
                                   '::before').content""")
            assert label == '"Prediction: "', label
        page.goto(f"/compare/?a={a}&b={b}")
        screenshot(page, f"{viewport['width']}-compare")
        page.locator("#compare-metrics").evaluate("t => t.scrollIntoView()")
        screenshot(page, f"{viewport['width']}-compare-metrics", full_page=False)
        check_fits(page, f"compare {viewport['width']}")
        within(page, "#compare-metrics tbody tr:first-child td:nth-child(6)", viewport["width"])  # p
        within(page, "#compare-metrics tbody tr:first-child td.diff", viewport["width"])
        if phone:
            within(page, "#compare-item-table tbody tr:first-child td:nth-child(5)", viewport["width"])


def test_first_board_view_is_light_and_plots_load_when_scrolled_to(dialbgm_board: Any, new_page: Any,
                                                                   screenshot: Any) -> None:
    page = new_page(viewport={"width": 1366, "height": 768})  # a common laptop screen
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    sizes: dict[str, int] = {}
    urls: dict[str, str] = {}
    cdp.on("Network.responseReceived", lambda e: urls.__setitem__(e["requestId"], e["response"]["url"]))
    cdp.on("Network.loadingFinished", lambda e: sizes.__setitem__(e["requestId"], e["encodedDataLength"]))
    page.goto(dialbgm_board.path, wait_until="load")
    page.wait_for_load_state("networkidle")
    first = sum(sizes.values())
    assert first < FIRST_VIEW_BUDGET, {urls.get(k, k): v for k, v in sizes.items()}
    assert not any("/vendor/plotly-" in u for u in urls.values()), urls
    expect(page.locator("#leaderboard tbody tr[data-model]").first).to_be_visible()
    assert page.locator("#plot-intervals").get_attribute("data-rendered") is None
    page.locator("#field-plots").scroll_into_view_if_needed()
    expect(page.locator("#field-plots")).to_have_attribute("data-rendered", "true", timeout=30_000)
    page.locator("#heatmaps").scroll_into_view_if_needed()
    expect(page.locator("#heatmap-models")).to_have_attribute("data-rendered", "true", timeout=30_000)
    assert sum(1 for u in urls.values() if "/vendor/plotly-" in u) == 1  # fetched once, for both sections
    screenshot(page, "1366-board-plots-drawn", full_page=False)
