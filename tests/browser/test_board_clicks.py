"""Every view right after a click, in headless Chromium at 1366 px and 390 px, with JavaScript on and
off: header sorts after Apply keep the chosen columns, heatmaps draw on a sorted board (and say when
they cannot load), compare takes two boxes (three ticked without JavaScript: a page to choose two),
the papers' notes are footnotes, the papers' rows rank in the table and hide with a box that every link
keeps, plots stay on the unit's range, and an owner's action lands on its message.

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
            expect(page.locator("#rank-scope")).to_be_visible()  # filtered: says the ranks are the whole board's
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
                page.locator("#heatmaps").scroll_into_view_if_needed()  # plotly loads when scrolled to
                for chart in ("#heatmap-models", "#heatmap-metrics"):
                    expect(page.locator(chart)).to_have_attribute("data-rendered", "true", timeout=30_000)
                expect(page.locator("#heatmaps")).not_to_contain_text("Not enough scored entries")
                page.locator("#heatmaps").scroll_into_view_if_needed()
                screenshot(page, f"{label}-heatmaps")
            else:  # the same sorted board's heatmaps as tables, a page of their own
                page.goto(dialbgm_board.path)
                page.locator("#leaderboard thead a[data-column=mrr]").click()
                page.wait_for_url(re.compile(r"sort=mrr"))
                page.get_by_role("link", name="The same numbers as tables").click()
                page.wait_for_url(re.compile(r"heatmaps.*sort=mrr"))
                expect(page.locator("#heatmap-tables-empty")).to_have_count(0)
                expect(page.locator("#heatmap-table-models tbody tr")).to_have_count(4)
                screenshot(page, f"{label}-heatmap-tables")
                page.go_back()
                page.wait_for_url(re.compile(r"sort=mrr"))

            # the papers' notes are footnotes: no paper row of the board is a paragraph tall
            heights = page.locator("#leaderboard tbody tr.paper").evaluate_all(
                "rows => rows.filter(r => r.offsetParent).map(r => r.getBoundingClientRect().height)")
            assert heights and max(heights) < 260, (label, max(heights))  # a note in the cell is taller
            expect(page.locator("#published .footnotes li").first).to_be_attached()
            page.locator("#published").scroll_into_view_if_needed()
            screenshot(page, f"{label}-published")

            # compare boxes: with JavaScript a third is disabled; without, three ticked get a page to choose two
            page.goto(dialbgm_board.path)
            boxes = page.locator("input[name=pick]")
            boxes.nth(0).check()
            boxes.nth(1).check()
            if js:
                expect(boxes.nth(2)).to_be_disabled()
                continue
            boxes.nth(2).check()
            ticked = boxes.evaluate_all("bs => bs.filter(b => b.checked).map(b => b.value)")
            assert len(ticked) == 3
            page.get_by_role("button", name="Compare the two ticked entries").click()
            page.wait_for_url(re.compile(r"/compare/\?pick="))
            expect(page.locator("#compare-choose-note")).to_contain_text("3 entries were ticked")
            shown = page.locator("#compare-choices tbody tr").evaluate_all("rows => rows.map(r => r.dataset.id)")
            assert shown == ticked, (label, shown, ticked)
            expect(page.locator("#compare-pairs li")).to_have_count(3)
            _fits(page, label)
            screenshot(page, f"{label}-three-ticked")
            page.locator("#compare-choices input[name=b]").nth(2).check()  # A stays the first; B: the third
            page.get_by_role("button", name="Compare A with B").click()
            page.wait_for_url(re.compile(rf"a={ticked[0]}&b={ticked[2]}"))
            expect(page.locator("#compare-metrics")).to_be_visible()
            page.go_back()
            page.locator("#compare-pairs a").nth(2).click()
            page.wait_for_url(re.compile(rf"a={ticked[1]}&b={ticked[2]}"))
            expect(page.locator("#compare-metrics")).to_be_visible()
            screenshot(page, f"{label}-pair-compared")

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
            page.locator("#field-plots").scroll_into_view_if_needed()  # plotly loads when scrolled to
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
        page.locator("#heatmaps").scroll_into_view_if_needed()  # fetched when scrolled to
        expect(page.locator("#heatmaps-failed")).to_contain_text(
            "Heatmaps could not be loaded (HTTP 503: the cache is down)")
        expect(page.locator("#heatmaps")).not_to_contain_text("Not enough scored entries")
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


def test_paper_rows_rank_in_the_table_and_hide(dialbgm_split, alice, new_page, screenshot):
    from leaderboard.services.references.baselines import baselines_load
    from tests.helpers.boards import make_entry

    baselines_load()  # DialBGM's 30 published rows, Hit@1 from 0.0033 to 0.3233
    full = {"mrr": 0.5, "ndcg_at_4": 0.5, "kendall_tau_b": 0.1}
    make_entry(dialbgm_split, alice, "Site high", {**full, "hit_at_1": (0.40, 0.36, 0.44)})
    make_entry(dialbgm_split, alice, "Site low", {**full, "hit_at_1": (0.10, 0.07, 0.13)})
    for js in (True, False):
        for name, viewport in VIEWS:
            label = f"{name}-{'js' if js else 'nojs'}"
            page = new_page(viewport=viewport, java_script_enabled=js)
            page.goto("/b/dialbgm/test/")
            expect(page.locator("#board-count")).to_have_text("2 entries · 30 published results")
            expect(page.locator("#leaderboard tbody tr.paper")).to_have_count(30)
            first = page.locator("#leaderboard tbody tr").first
            expect(first).to_have_attribute("data-model", "Site high")
            expect(first.locator("td.rank")).to_have_text("1")
            low = page.locator("#leaderboard tbody tr[data-model='Site low'] td.rank")
            ranked_above = page.locator("#leaderboard tbody tr.paper").evaluate_all(
                "rows => rows.filter(r => parseFloat(r.children[2].textContent) > 0.1).length")
            expect(low).to_have_text(str(ranked_above + 2))
            badge = page.locator("#leaderboard tr.paper .badge.paper").first
            expect(badge).to_be_visible()
            expect(badge).to_have_text("reported in paper, not re-scored here")
            screenshot(page, f"{label}-ranked-together")
            if name == "phone":
                _fits(page, label)

            page.get_by_label("Hide published results").check()
            page.get_by_role("button", name="Apply").click()
            page.wait_for_url(re.compile(r"papers=hide"))
            expect(page.locator("#leaderboard tbody tr.paper")).to_have_count(0)
            expect(page.locator("#board-count")).to_have_text("2 entries · published results hidden")
            expect(page.locator("#leaderboard tbody tr[data-model='Site low'] td.rank")).to_have_text("2")
            page.locator("#leaderboard thead a[data-column=mrr]").click()
            page.wait_for_url(re.compile(r"sort=mrr"))
            assert "papers=hide" in page.url, page.url
            expect(page.get_by_label("Hide published results")).to_be_checked()
            expect(page.locator("#leaderboard tbody tr.paper")).to_have_count(0)
            screenshot(page, f"{label}-papers-hidden")
