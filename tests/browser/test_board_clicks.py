"""Every view right after a click, in headless Chromium at 1366 px and 390 px, with JavaScript on and
off: header sorts after Apply keep the chosen columns, heatmaps draw on a sorted board (and say when
they cannot load), compare takes two boxes, the papers' notes are footnotes, plots stay on the unit's
range, and an owner's action lands on its message.

One scored DialBGM board (real worker); screenshots of every step in artifacts/screenshots/.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.helpers.browser import CHROMIUM, OVERFLOW, PHONE, WIDE

if not CHROMIUM.exists():
    pytest.skip(f"browser tests need Chromium at {CHROMIUM} (Debian package 'chromium'); not installed",
                allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")
expect = playwright.expect

from tests.browser.test_pages import row_models  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

VIEWS = [("wide", WIDE), ("phone", PHONE)]


def _headers(page: Any) -> list[str]:
    links = page.locator("#leaderboard thead th a[data-column]")
    return links.evaluate_all("links => links.map(a => a.dataset.column)")


def _sorted_by(page: Any) -> str:
    return page.locator("#sort-note strong").first.inner_text()


def _fits(page: Any, label: str) -> None:
    layout = page.evaluate(OVERFLOW)
    assert layout["scrollWidth"] <= layout["width"], (label, layout)


def _apply_two_columns_and_a_filter(page: Any) -> None:
    page.locator("#column-chooser summary").click()
    for box in page.locator("#column-chooser input[name=col]").all():
        value = box.get_attribute("value")
        if value.startswith(("mrr@", "ndcg_at_4@")):
            box.check()
        else:
            box.uncheck()
    page.locator("select[name=input]").select_option("summary")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url(re.compile(r"col=mrr.*col=ndcg_at_4"))


def test_board_after_every_click(dialbgm_board, new_page, screenshot):
    from leaderboard.services.references.baselines import baselines_load

    baselines_load()  # DialBGM's published tables, with their notes
    summary_models = sorted(m for m in dialbgm_board.uids if m in ("Ranker A", "Ranker C"))
    for js in (True, False):
        for name, viewport in VIEWS:
            label = f"{name}-{'js' if js else 'nojs'}"
            page = new_page(viewport=viewport, java_script_enabled=js)
            page.goto(dialbgm_board.path)
            _apply_two_columns_and_a_filter(page)
            assert _headers(page) == ["hit_at_1", "mrr", "ndcg_at_4"]  # and the sort column the caption names
            screenshot(page, f"{label}-applied")
            for column, shown in (("mrr", ["mrr", "ndcg_at_4"]), ("ndcg_at_4", ["mrr", "ndcg_at_4"]),
                                  ("mrr", ["mrr", "ndcg_at_4"])):
                page.locator(f"#leaderboard thead a[data-column={column}]").click()
                page.wait_for_load_state("domcontentloaded")
                assert _headers(page) == shown, (label, column, page.url)
                assert sorted(row_models(page)) == summary_models, (label, page.url)
                caption = _sorted_by(page)
                labels = page.locator("#leaderboard thead a[data-column]").all_inner_texts()
                assert any(text.startswith(caption) for text in labels), (caption, labels)
                assert page.url.count("col=") == 2
            expect(page.locator("#rank-scope")).to_be_visible()  # filtered: ranks are the view's
            screenshot(page, f"{label}-header-clicked")
            if name == "phone":
                _fits(page, label)

            # the heatmap link and (with JS) the drawn heatmaps of this sorted view
            json_link = page.locator("#heatmaps a", has_text="heatmap JSON").get_attribute("href")
            assert "sort=" in json_link
            if js:  # all four entries, sorted by a header click: both heatmaps drawn
                page.goto(dialbgm_board.path)
                page.locator("#leaderboard thead a[data-column=mrr]").click()
                page.wait_for_url(re.compile(r"sort=mrr"))
                for chart in ("#heatmap-models", "#heatmap-metrics"):
                    expect(page.locator(chart)).to_have_attribute("data-rendered", "true", timeout=30_000)
                expect(page.locator("#heatmaps")).not_to_contain_text("Not enough scored entries")
                page.locator("#heatmaps").scroll_into_view_if_needed()
                screenshot(page, f"{label}-heatmaps")

            # the papers' notes are footnotes: no row is a paragraph tall
            heights = page.locator("#published table tbody tr").evaluate_all(
                "rows => rows.filter(r => r.offsetParent).map(r => r.getBoundingClientRect().height)")
            assert heights and max(heights) < 90, (label, max(heights))
            expect(page.locator("#published .footnotes li").first).to_be_attached()
            page.locator("#published").scroll_into_view_if_needed()
            screenshot(page, f"{label}-published")

        # compare boxes: two at most (JS); the plots stay on the column's range
        if js:
            page = new_page(viewport=WIDE)
            page.goto(dialbgm_board.path)
            boxes = page.locator("input[name=pick]")
            boxes.nth(0).check()
            boxes.nth(1).check()
            expect(boxes.nth(2)).to_be_disabled()
            expect(boxes.nth(3)).to_be_disabled()
            screenshot(page, "wide-js-two-ticked")
            boxes.nth(1).uncheck()
            expect(boxes.nth(2)).to_be_enabled()
            expect(page.locator("#field-plots")).to_have_attribute("data-rendered", "true", timeout=30_000)
            for plot in ("plot-intervals", "plot-time"):
                low, high = page.evaluate(f"document.getElementById('{plot}')._fullLayout.yaxis.range")
                assert 0 <= low < high <= 1, (plot, low, high)
            start, end = page.evaluate("document.getElementById('plot-time')._fullLayout.xaxis.range")
            assert start[:10] < end[:10]  # days, not milliseconds of one day
            page.locator("#field-plots").scroll_into_view_if_needed()
            screenshot(page, "wide-js-field-plots")


def test_a_failed_heatmap_fetch_says_it_failed(dialbgm_board, new_page, screenshot):
    for name, viewport in VIEWS:
        page = new_page(viewport=viewport)
        page.route("**/heatmap?**", lambda route: route.fulfill(
            status=503, content_type="application/json",
            body='{"error": {"code": "unavailable", "message": "the cache is down"}}'))
        page.goto(dialbgm_board.path + "?sort=mrr")
        expect(page.locator("#heatmaps-failed")).to_contain_text(
            "Heatmaps could not be loaded (HTTP 503: the cache is down)")
        expect(page.locator("#heatmaps")).not_to_contain_text("Not enough scored entries")
        page.locator("#heatmaps").scroll_into_view_if_needed()
        screenshot(page, f"{name}-heatmaps-failed")

    # an owner's action lands on its message, focused and styled
    uid = dialbgm_board.uids["Ranker B"]
    for js in (True, False):
        page = new_page(viewport=PHONE, java_script_enabled=js)
        page.goto(f"/accounts/login/?next=/s/{uid}/")
        page.get_by_label("Username").fill("carol")
        page.get_by_label("Password").fill("pw-carol")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(re.compile(rf"/s/{uid}/"))
        button = "Make private" if js else "Make public"
        page.get_by_role("button", name=button).click()
        page.wait_for_url(re.compile(r"#messages$"))
        expect(page.locator("#messages li.banner.success")).to_be_visible()
        assert page.evaluate("document.activeElement.id") == "messages"  # the fragment, JS or not
        screenshot(page, f"phone-{'js' if js else 'nojs'}-owner-message")
