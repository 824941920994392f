"""Models across benchmarks in headless Chromium, at 1366 px and 390 px, with JavaScript on and off:
the home page's overview (sorting by a board's column), a model page, the nav search.
Screenshots of every step in artifacts/screenshots/."""

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

from leaderboard.models import MetricValue, PublishedResult, RunFile, Status, Submission  # noqa: E402
from leaderboard.services.shared.cache import leaderboard_changed  # noqa: E402
from tests.helpers.boards import printed_columns  # noqa: E402
from tests.helpers.datagen import dialbgm_references  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _entry(split: Any, user: Any, name: str, values: dict[str, float], **fields: Any) -> None:
    """A scored entry with these values (signatures shaped like the engine's)."""
    submission = Submission.objects.create(split=split, user=user, model_name=name, status=Status.SCORED,
                                           profile=split.spec.official_profile, **fields)
    RunFile.objects.create(submission=submission, number=1, sha256="0" * 64, original_name="run1.jsonl", size=1)
    for key, value in values.items():
        MetricValue.objects.create(submission=submission, key=key, value=value, per_run=[value], n_scored=40,
                                   current=True, signature=f"metric:{key}|profile:{split.spec.name}|scoring:0.1.0")
    leaderboard_changed(split.pk)


@pytest.fixture
def models_field(make_user: Any, make_split: Any, dialbgm_refs: Any, jamendo_refs: Any) -> None:
    carol, dave = make_user("carol"), make_user("dave")
    dialbgm = make_split("dialbgm", "test", dialbgm_refs)
    jamendo = make_split("jamendo-mt-qa", "full", jamendo_refs)
    hidden = make_split("dialbgm", "hidden-test", dialbgm_references(60, seed=3, prefix="hidden"), hidden=True)
    _entry(dialbgm, carol, "Qwen2-Audio-7B-Instruct", {"hit_at_1": 37 / 60, "mrr": 0.745833},
           organisation="Alibaba Group", settings={"input": "summary", "modality": "audio"})
    _entry(dialbgm, carol, "Qwen2-Audio-7B-Instruct", {"hit_at_1": 29 / 60, "mrr": 0.6625},
           organisation="Alibaba Group", settings={"input": "full_dialogue", "modality": "audio"})
    _entry(dialbgm, dave, "SALMONN 13B", {"hit_at_1": 31 / 60, "mrr": 0.7013}, organisation="Tsinghua & ByteDance")
    _entry(dialbgm, dave, "MU-LLaMA", {"hit_at_1": 22 / 60, "mrr": 0.58}, demo=True)
    _entry(jamendo, carol, "qwen2 audio 7B instruct", {"yes_no_accuracy": 23 / 40, "bleu": 12.3456},
           organisation="Alibaba Group", settings={"type": "Multi"})
    _entry(jamendo, dave, "SALMONN 13B", {"yes_no_accuracy": 25 / 40, "bleu": 9.87})
    _entry(hidden, dave, "SALMONN 13B", {"hit_at_1": 43 / 60})
    _entry(hidden, dave, "A very long model name that keeps going: SALMONN-13B-v2 fine-tuned", {"hit_at_1": 38 / 60})
    PublishedResult.objects.create(split=dialbgm, paper="DialBGM (arXiv, 2025)", table="Table 3",
                                   model_name="Qwen2-Audio-7B-Instruct", metrics={"hit_at_1": 41.5},
                                   columns=printed_columns({"key": "hit_at_1", "label": "Hit@1", "scale": "percent"}),
                                   settings={"input": "summary"}, notes="zero-shot, audio")


def _fits(page: Any, label: str) -> None:
    layout = page.evaluate(OVERFLOW)
    assert layout["scrollWidth"] <= layout["width"], (label, layout)
    assert not layout["outside"], (label, layout)


def _overview_models(page: Any) -> list[str]:
    return page.locator("#models-table tbody tr[data-model]").evaluate_all("rows => rows.map(r => r.dataset.model)")


@pytest.mark.parametrize("javascript", (True, False), ids=("js", "no-js"))
def test_models_overview_model_page_and_search(models_field, new_page, screenshot, javascript):
    for name, viewport in (("wide", WIDE), ("phone", PHONE)):
        page = new_page(viewport=viewport, java_script_enabled=javascript)
        page.goto("/")
        table = page.locator("#models-table")
        expect(table).to_be_visible()
        assert _overview_models(page) == ["a-very-long-model-name-that-keeps-going-salmonn-13b-v2-fine-tuned",
                                          "mu-llama", "qwen2-audio-7b-instruct", "salmonn-13b"]
        row = page.locator('#models-table tr[data-model="salmonn-13b"]')
        expect(row.locator('td[data-board="dialbgm/test"]')).to_have_text("0.5167")
        expect(row.locator('td[data-board="dialbgm/hidden-test"]')).to_have_text("0.7000")  # released: 0.1 steps
        expect(row.locator('td[data-board="jamendo-mt-qa/full"]')).to_have_text("0.625")
        expect(page.locator('#models-table tr[data-model="mu-llama"] td[data-board="jamendo-mt-qa/full"]')
               ).to_have_text("")
        expect(page.locator('#models-table tr[data-model="mu-llama"] .badge.demo')).to_be_visible()
        page.locator("#models-overview").scroll_into_view_if_needed()
        screenshot(page, f"{name}-overview")
        _fits(page, f"{name} home")

        # sort by the Jamendo-MT-QA board's main column: best first, models without an entry last
        page.locator('#models-table th[data-board="jamendo-mt-qa/full"] a').click()
        page.wait_for_url(re.compile(r"model_sort=jamendo-mt-qa%2Ffull"))
        assert _overview_models(page)[:2] == ["salmonn-13b", "qwen2-audio-7b-instruct"]
        expect(page.locator('#models-table th[data-board="jamendo-mt-qa/full"]')).to_have_attribute(
            "aria-sort", "descending")
        screenshot(page, f"{name}-overview-sorted")

        # the model page: both spellings, both DialBGM configurations, every column on demand
        page.locator('#models-table tr[data-model="qwen2-audio-7b-instruct"] th a').click()
        page.wait_for_url(re.compile(r"/models/qwen2-audio-7b-instruct/"))
        expect(page.locator("#model-name")).to_have_text("Qwen2-Audio-7B-Instruct")
        expect(page.locator("#model-results > tbody > tr")).to_have_count(4)  # its paper row is a result too
        expect(page.locator("#model-results > tbody > tr .badge.paper")).to_have_count(1)
        first = page.locator("#model-results > tbody > tr").first
        expect(first.locator("td.main")).to_contain_text("0.6167")
        first.locator("summary").click()
        expect(first.locator('tr[data-column^="mrr@"] td')).to_have_text("0.7458")
        expect(page.locator("#model-published tbody tr")).to_have_count(1)
        expect(page.locator("#model-published")).to_contain_text("Hit@1 41.5 (%)")
        screenshot(page, f"{name}-model-page")
        _fits(page, f"{name} model page")

        # search from the navigation bar
        page.locator("#nav-model-search").fill("salm")
        page.locator("#nav-model-search").press("Enter")
        page.wait_for_url(re.compile(r"/models/\?q=salm"))
        expect(page.locator("#models-list tbody tr")).to_have_count(2)
        expect(page.locator("#models-count")).to_contain_text("2 of 4 models match")
        screenshot(page, f"{name}-search")
        _fits(page, f"{name} search")
        page.get_by_role("link", name="SALMONN 13B", exact=True).click()
        page.wait_for_url(re.compile(r"/models/salmonn-13b/"))
        expect(page.locator("#model-results > tbody > tr")).to_have_count(3)
        screenshot(page, f"{name}-model-page-hidden-split")
        _fits(page, f"{name} model page with a hidden split")
