"""Every page at 1366 px and at 390 px: nothing wider than the viewport but tables in their own scroll box.

Screenshots of every page at both widths go to artifacts/screenshots/ (a CI artifact). The same run
checks that plotly is fetched only by a page that draws a chart, gzip-compressed, and that a dry run in
the browser keeps the chosen files and fields and shows its result in view.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.helpers.browser import CHROMIUM, OVERFLOW, PHONE, WIDE, planned_predictions

if not CHROMIUM.exists():
    pytest.skip(f"browser tests need Chromium at {CHROMIUM} (Debian package 'chromium'); not installed",
                allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")
expect = playwright.expect

from leaderboard.services.references.benchmarks import benchmark_create_from_spec  # noqa: E402
from scoring import BENCHMARKS  # noqa: E402
from tests.helpers.datagen import write_jsonl  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def pages(board: Any) -> list[tuple[str, str]]:
    uid = board.uids["Ranker A"]
    return [("home", "/"), ("benchmark", "/b/dialbgm/"), ("leaderboard", board.path),
            ("leaderboard-not-open", "/b/jamendo-mt-qa/full/"), ("entry", f"/s/{uid}/"),
            ("login", "/accounts/login/"), ("signup", "/accounts/signup/")]


def signed_in_pages(board: Any) -> list[tuple[str, str]]:
    return [("tokens", "/accounts/tokens/"), ("submit", f"/submit/?split=dialbgm/{board.split.name}"),
            ("my-submissions", "/submissions/")]


def check_fits(page: Any, label: str, viewport: dict[str, int]) -> None:
    layout = page.evaluate(OVERFLOW)
    assert layout["width"] == viewport["width"], layout
    assert layout["scrollWidth"] <= layout["width"], (label, layout)
    assert not layout["outside"], (label, layout)
    assert all(w["right"] <= layout["width"] + 1 for w in layout["wraps"]), (label, layout)


def visit(page: Any, path: str, label: str, viewport: dict[str, int], screenshot: Any) -> None:
    page.goto(path)
    if label == "leaderboard":
        page.locator("#heatmaps").scroll_into_view_if_needed()  # plotly loads when scrolled to
        expect(page.locator("#heatmap-models")).to_have_attribute("data-rendered", "true", timeout=30_000)
    screenshot(page, f"{viewport['width']}-{label}")
    check_fits(page, label, viewport)


def test_every_page_fits_the_screen_at_1366_and_390_px(dialbgm_board, new_page, screenshot, tmp_path):
    benchmark_create_from_spec(name="jamendo-mt-qa")  # splits without references: "not open yet"
    for viewport in (WIDE, PHONE):
        check_every_page(dialbgm_board, new_page, screenshot, viewport, tmp_path)


def test_every_benchmarks_page_fits_a_phone(new_page):
    """Every catalogued benchmark's page at 390 px: its facts (source repositories, released file names,
    licences) wrap inside the screen."""
    for name in BENCHMARKS:
        benchmark_create_from_spec(name=name)
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    for name in BENCHMARKS:
        page.goto(f"/b/{name}/")
        check_fits(page, name, PHONE)


def check_every_page(dialbgm_board: Any, new_page: Any, screenshot: Any, viewport: dict[str, int],
                     tmp_path: Any) -> None:
    phone = viewport is PHONE
    page = new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
    plotly: list[tuple[str, str | None]] = []
    page.on("response", lambda r: plotly.append((urlsplit(page.url).path, r.headers.get("content-encoding")))
            if "/vendor/plotly-" in r.url else None)
    for label, path in pages(dialbgm_board):
        visit(page, path, label, viewport, screenshot)
    # plotly: fetched once, by the one page that draws, compressed
    assert plotly == [(dialbgm_board.path, "gzip")], plotly

    page.goto(dialbgm_board.path)
    page.locator("#heatmaps").scroll_into_view_if_needed()  # plotly loads when scrolled to
    expect(page.locator("#heatmap-models")).to_have_attribute("data-rendered", "true", timeout=30_000)
    drawn = page.evaluate("""() => { const d = document.getElementById('heatmap-models').data[0];
        return {y: d.y, text: d.text}; }""")
    expected = ["Ranker A", "Ranker C", "Ranker D", "Ranker B"]  # leaderboard order (Hit@1), numbered
    assert [y[:11] for y in drawn["y"]] == [f"{n}. {name}" for n, name in enumerate(expected, start=1)], drawn
    assert drawn["text"][0][0] == "1.00"  # values are written in the cells
    chart = page.locator("#heatmap-models").bounding_box()
    assert chart["x"] >= 0 and chart["x"] + chart["width"] <= viewport["width"] + 1
    if phone:  # the board scrolls inside its box, intervals included, and the page does not
        wrap = page.locator("#leaderboard").locator("..")
        assert wrap.evaluate("w => w.scrollWidth > w.clientWidth")
        expect(page.locator("#leaderboard .ci").first).to_be_visible()

    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("carol")
    page.get_by_label("Password").fill("pw-carol")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/$"))
    page.goto("/accounts/tokens/")
    page.get_by_role("button", name="Create a token").click()
    expect(page.locator("#new-token")).to_be_visible()
    token = page.locator("#new-token").bounding_box()
    assert token["x"] + token["width"] <= viewport["width"] + 1
    for label, path in signed_in_pages(dialbgm_board):
        if label != "tokens":
            page.goto(path)
        screenshot(page, f"{viewport['width']}-{label}")
        check_fits(page, label, viewport)
        if label == "tokens":
            revoke = page.get_by_role("button", name="Revoke").first
            revoke.scroll_into_view_if_needed()
            expect(revoke).to_be_in_viewport()

    # the dry run keeps files and fields and shows its result where the user is looking
    predictions = write_jsonl(planned_predictions(dialbgm_board.references, {"perfect": 1.0}), tmp_path / "p.jsonl")
    page.goto(f"/submit/?split=dialbgm/{dialbgm_board.split.name}")
    page.get_by_label("Prediction files (JSONL)").set_input_files(str(predictions))
    page.get_by_label("Model name").fill("Kept name")
    page.get_by_role("combobox", name="Prompting").select_option("cot")
    page.get_by_role("button", name="Validate only (dry run)").click()
    result = page.locator("#result")
    expect(result).to_contain_text("Valid: ready to submit")
    expect(result).to_be_in_viewport()
    screenshot(page, f"{viewport['width']}-submit-dry-run", full_page=False)
    assert page.get_by_label("Prediction files (JSONL)").evaluate("i => i.files.length") == 1
    expect(page.get_by_label("Model name")).to_have_value("Kept name")
    expect(page.get_by_role("combobox", name="Prompting")).to_have_value("cot")
    check_fits(page, "submit-dry-run", viewport)
