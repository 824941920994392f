"""Boards whose papers' rows follow other protocols, and the CMI-Bench suite board, in headless Chromium at
1366 px and 390 px: the lanes of unranked rows with their one-line reasons, the link to the protocols page, the
suite's task columns; no page-level horizontal scroll. Screenshots in artifacts/screenshots/."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.browser import CHROMIUM, OVERFLOW, PHONE, WIDE

if not CHROMIUM.exists():
    pytest.skip(f"browser tests need Chromium at {CHROMIUM} (Debian package 'chromium'); not installed",
                allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")
expect = playwright.expect

from leaderboard.models import Split  # noqa: E402
from leaderboard.services.references.baselines import baselines_load  # noqa: E402
from tests.helpers.boards import make_entry  # noqa: E402
from tests.leaderboard.test_mcq_site import mmau_like  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _cmi_refs(answer: str) -> list[dict[str, str]]:
    return [{"id": f"clip{i}", "question": "What is it?", "answer": answer, "audio": f"clip{i}.wav"} for i in range(5)]


@pytest.fixture
def boards(make_split: Any, make_user: Any) -> None:
    carol = make_user("carol")
    baselines_load()
    musicqa = Split.objects.get(benchmark__name="musicqa", name="test")
    make_entry(musicqa, carol, "Our MusicQA model", {"bleu": 0.21, "bleu1": 0.40, "bleu4": 0.05, "meteor": 0.30,
                                                     "rougeL_recall": 0.41, "bertscore_recall": 0.72})
    mmau = make_split("mmau", "test-mini", mmau_like(8))
    make_entry(mmau, carol, "Our MMAU model", {"music_accuracy": 61.0, "accuracy": 58.0})
    mmar = Split.objects.get(benchmark__name="mmar", name="test")
    make_entry(mmar, carol, "Our MMAR model", {"accuracy": 55.5, "music_accuracy": 50.0})
    for benchmark, answer, values in (("cmi-gtzan", "blues", ({"accuracy": 0.7}, {"accuracy": 0.5})),
                                      ("cmi-dsing", "la la", ({"wer": 40.0, "cer": 20.0}, {"wer": 30.0, "cer": 15.0})),
                                      ("cmi-emo-arousal", "5", ({"r2": 0.3}, {"r2": 0.2}))):
        split = make_split(benchmark, "test", _cmi_refs(answer))
        for name, value in zip(("Qwen2-Audio-Instruct", "SALMONN"), values, strict=True):
            make_entry(split, carol, name, value)


PAGES = (("musicqa", "/b/musicqa/test/?sort=bertscore_recall"), ("mmau", "/b/mmau/test-mini/"),
         ("mmar", "/b/mmar/test/"), ("cmi-suite", "/suites/cmi-bench/"))


@pytest.mark.parametrize(("name", "path"), PAGES, ids=[p[0] for p in PAGES])
def test_protocol_lanes_and_the_suite_board_fit_wide_and_phone(boards, new_page, screenshot, name, path):
    for label, viewport in (("wide", WIDE), ("phone", PHONE)):
        page = new_page(viewport=viewport)
        page.goto(path)
        layout = page.evaluate(OVERFLOW)
        assert layout["scrollWidth"] <= layout["width"], (name, label, layout)
        assert not layout["outside"], (name, label, layout)
        if name == "cmi-suite":
            expect(page.locator("#suite-table")).to_be_visible()
            heads = page.locator("#suite-table thead th[data-board]")
            boards = heads.evaluate_all("hs => hs.map(h => h.dataset.board)")
            assert {"cmi-gtzan/test", "cmi-dsing/test", "cmi-emo-arousal/test"} <= set(boards), boards  # + published
            expect(page.locator("#suite-rule")).to_contain_text("never averaged")
        else:
            expect(page.locator("#protocols-link")).to_be_visible()
            lane = page.locator('tr.lane[data-lane="other_protocol"]')
            if name == "mmar":  # the README's numbers are the released evaluation.py on this gold: ranked
                expect(lane).to_have_count(0)
                assert page.locator('tr.paper[data-lane="ranked"]').count() > 10
            else:
                expect(lane).to_have_count(1)
                expect(page.locator("tr.paper .protocol").first).to_contain_text("not ranked:")
        screenshot(page, f"{name}-{label}")
        page.close()
