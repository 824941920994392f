"""Compare, explore and see the field in headless Chromium, at 1366 px and 390 px; owners' controls.

One scored DialBGM board (real worker) per test; screenshots of every step in artifacts/screenshots/.
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


def _fits(page: Any, label: str) -> None:
    layout = page.evaluate(OVERFLOW)
    assert layout["scrollWidth"] <= layout["width"], (label, layout)


def test_field_plots_search_columns_and_compare(dialbgm_board, new_page, screenshot):
    for name, viewport in (("wide", WIDE), ("phone", PHONE)):
        page = new_page(viewport=viewport)
        page.goto(dialbgm_board.path)
        page.locator("#field-plots").scroll_into_view_if_needed()  # plotly loads when scrolled to
        expect(page.locator("#field-plots")).to_have_attribute("data-rendered", "true", timeout=30_000)
        expect(page.locator("#plot-intervals .main-svg").first).to_be_visible()
        expect(page.locator("#plot-time .main-svg").first).to_be_visible()
        expect(page.locator("#intervals-table")).to_be_hidden()  # drawn: the table folds away
        page.locator("#field-plots").scroll_into_view_if_needed()
        screenshot(page, f"{name}-field-plots")

        # model search round-trips through the URL
        page.locator("#model-search").fill("Ranker C")
        page.get_by_role("button", name="Apply").click()
        page.wait_for_url(re.compile(r"q=Ranker\+C"))
        assert row_models(page) == ["Ranker C"]
        expect(page.locator("#model-search")).to_have_value("Ranker C")
        screenshot(page, f"{name}-search")

        # the column chooser: only MRR
        page.goto(dialbgm_board.path)
        page.locator("#column-chooser summary").click()
        for box in page.locator("#column-chooser input[name=col]").all():
            if not box.get_attribute("value").startswith("mrr@"):
                box.uncheck()
        page.get_by_role("button", name="Apply").click()
        page.wait_for_url(re.compile(r"col=mrr"))
        headers = page.locator("#leaderboard thead th a[data-column]").evaluate_all(
            "links => links.map(a => a.dataset.column)")
        assert headers == ["hit_at_1", "mrr"]  # MRR, and the (default) sort column the caption names
        screenshot(page, f"{name}-one-column")

        # compare: tick two rows, submit the plain form
        page.goto(dialbgm_board.path)
        page.locator(f"input[name=pick][value='{dialbgm_board.uids['Ranker A']}']").check()
        page.locator(f"input[name=pick][value='{dialbgm_board.uids['Ranker B']}']").check()
        page.get_by_role("button", name="Compare the two ticked entries").click()
        page.wait_for_url(re.compile(r"/compare/\?pick="))
        expect(page.locator("h1")).to_contain_text("Ranker A")
        hit = page.locator("#compare-metrics tr[data-key=hit_at_1] td.diff")
        a, b = (dialbgm_board.metrics[m]["hit_at_1"]["value"] for m in ("Ranker A", "Ranker B"))
        decimals = dialbgm_board.split.spec.profile().metric("hit_at_1").decimals
        expect(hit).to_have_text(f"{a - b:+.{decimals}f}")
        expect(page.locator("#compare-tau")).to_contain_text("Kendall τb")
        expect(page.locator("#compare-item-table tbody tr").first).to_be_visible()
        screenshot(page, f"{name}-compare")
        if name == "phone":
            _fits(page, "compare")


def test_explorer_filters_and_owner_controls(dialbgm_board, new_page, screenshot):
    uid = dialbgm_board.uids["Ranker C"]
    for name, viewport in (("wide", WIDE), ("phone", PHONE)):
        page = new_page(viewport=viewport)
        page.goto(f"/s/{uid}/")
        page.locator("#item-filters select[name=sort]").select_option("-kendall_tau_b")
        page.locator("#item-filters select[name=metric]").select_option("kendall_tau_b")
        page.locator("#item-filters input[name=max]").fill("0")
        page.get_by_role("button", name="Show").click()
        page.wait_for_url(re.compile(r"sort=-kendall_tau_b"))
        # Ranker C: 75% perfect (tau 1), 25% reversed (tau -1): the filter keeps the reversed ones
        expect(page.locator("#items-count")).to_contain_text("15 items match these filters")
        expect(page.locator("#item-table tbody tr[data-index]")).to_have_count(15)
        screenshot(page, f"{name}-explorer-filtered")
        page.goto(f"/s/{uid}/?page=999")
        expect(page.locator("#items-error")).to_contain_text("page 999 is past the last page (2)")
        screenshot(page, f"{name}-explorer-past-the-end")

    # the owner (carol uploaded the board) edits, hides and withdraws an entry
    page = new_page(viewport=WIDE)
    page.goto(f"/accounts/login/?next=/s/{uid}/")
    page.get_by_label("Username").fill("carol")
    page.get_by_label("Password").fill("pw-carol")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(rf"/s/{uid}/"))
    page.locator("#metadata-edit summary").click()
    page.get_by_label("Model name").fill("Ranker C v2")
    page.get_by_label("Paper link").fill("https://example.org/paper")
    page.get_by_label("Parameters").fill("7B")
    page.get_by_role("button", name="Save details").click()
    expect(page.locator(".messages")).to_contain_text("Saved: model_name, paper_url, parameters.")
    expect(page.locator("#entry-changes")).to_contain_text("model_name: “Ranker C” → “Ranker C v2”")
    screenshot(page, "owner-metadata-edited")
    page.get_by_role("button", name="Make private").click()
    expect(page.locator(".messages")).to_contain_text("Now private")
    page.goto(dialbgm_board.path + "?params_min=1B", wait_until="domcontentloaded")
    assert row_models(page) == ["Ranker C v2"]  # the owner still sees it, with a private badge
    page.goto(f"/s/{uid}/")
    page.locator("#withdraw-form input[name=confirm]").check()
    page.get_by_role("button", name="Withdraw").click()
    expect(page.locator("#tombstone")).to_be_visible()
    screenshot(page, "owner-withdrawn-tombstone")
    page.goto(dialbgm_board.path, wait_until="domcontentloaded")
    assert "Ranker C v2" not in row_models(page)
    phone = new_page(viewport=PHONE)
    phone.goto("/accounts/login/?next=/submissions/")
    phone.get_by_label("Username").fill("carol")
    phone.get_by_label("Password").fill("pw-carol")
    phone.get_by_role("button", name="Log in").click()
    phone.wait_for_url(re.compile(r"/submissions/"))
    expect(phone.locator("#my-submissions")).to_contain_text("withdrawn")
    screenshot(phone, "phone-my-submissions")
