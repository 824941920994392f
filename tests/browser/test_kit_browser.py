"""A board's "Submit to this leaderboard" and the starter kit in Chromium at 1366 and 390 px, as an
anonymous visitor: the sample file downloads and matches the example line; closed splits say why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.browser import CHROMIUM, OVERFLOW, PHONE, WIDE

if not CHROMIUM.exists():
    pytest.skip(f"browser tests need Chromium at {CHROMIUM} (Debian package 'chromium'); not installed",
                allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")
expect = playwright.expect

from leaderboard.services.references.benchmarks import benchmark_create_from_spec  # noqa: E402
from tests.helpers.datagen import dialbgm_references  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def check_fits(page: Any, label: str, viewport: dict[str, int]) -> None:
    layout = page.evaluate(OVERFLOW)
    assert layout["width"] == viewport["width"], layout
    assert layout["scrollWidth"] <= layout["width"], (label, layout)
    assert not layout["outside"], (label, layout)


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1366", "390"])
def test_submit_link_leads_to_a_kit_whose_sample_file_downloads(
        make_split: Any, new_page: Any, screenshot: Any, tmp_path: Path, viewport: dict[str, int]) -> None:
    split = make_split("dialbgm", "test", dialbgm_references(40, seed=9))
    benchmark_create_from_spec(name="mmau")
    page = new_page(viewport=viewport)
    page.goto(f"/b/dialbgm/{split.name}/")
    link = page.get_by_role("link", name="Submit to this leaderboard")
    expect(link).to_be_visible()
    screenshot(page, f"{viewport['width']}-board")
    link.click()
    page.wait_for_url(f"**/b/dialbgm/{split.name}/kit/")
    expect(page.get_by_role("heading", name="1. Run your model on the inputs")).to_be_visible()
    expect(page.locator("#kit-submit pre")).to_contain_text(
        f"python -m scoring submit --site {page.url.split('/b/')[0]} --benchmark dialbgm --split {split.name}")
    screenshot(page, f"{viewport['width']}-kit")
    check_fits(page, "kit", viewport)

    example = json.loads(page.locator("#kit-format pre").inner_text())
    with page.expect_download() as info:
        page.locator("#sample-link").click()
    download = info.value
    assert download.suggested_filename == f"dialbgm-{split.name}-sample-predictions.jsonl"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    lines = [json.loads(line) for line in saved.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 40 and lines[0] == example and set(lines[0]) == {"id", "ranking"}

    page.goto("/b/mmau/test/kit/")
    expect(page.get_by_role("heading", name="Not open for submissions")).to_be_visible()
    expect(page.locator("#kit-closed")).to_contain_text("manage.py import_references --from DIR")
    screenshot(page, f"{viewport['width']}-closed-kit")
    check_fits(page, "closed kit", viewport)

    page.goto("/b/dialbgm/")
    expect(page.locator("#cite pre.bibtex")).to_contain_text("eprint = {2604.07895}")
    expect(page.locator("#reference-versions")).to_contain_text(split.references_sha256)
    screenshot(page, f"{viewport['width']}-cite")
    check_fits(page, "benchmark page", viewport)
