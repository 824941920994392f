"""The pages work under the strict Content-Security-Policy: no violation reported, heatmaps drawn."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.helpers.boards import make_entry
from tests.helpers.datagen import dialbgm_references

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_pages_run_under_the_csp_without_violations(make_split, make_user, new_page):
    split = make_split("dialbgm", "test", dialbgm_references(12, seed=2))
    user = make_user("csp")
    entries = [make_entry(split, user, f"Model {n}", {"hit_at_1": 0.2 * n, "mrr": 0.3 + 0.1 * n,
                                                      "ndcg_at_4": 0.9 - 0.1 * n, "kendall_tau_b": 0.05 * n})
               for n in range(1, 4)]
    page = new_page()
    violations: list[str] = []
    page.on("console", lambda m: violations.append(f"{page.url}: {m.text} {m.location}")
            if "Content Security Policy" in m.text else None)
    response = page.goto(f"/b/dialbgm/{split.name}/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.locator("#heatmaps").scroll_into_view_if_needed()  # plotly loads when scrolled to
    expect(page.locator("#heatmap-metrics")).to_have_attribute("data-rendered", "true", timeout=30_000)
    for path in ("/", f"/s/{entries[0].uid}/", "/accounts/login/", "/accounts/signup/", "/accounts/password_reset/"):
        page.goto(path)
        page.wait_for_load_state("load")
    assert violations == [], violations
