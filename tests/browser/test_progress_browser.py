"""A submission's progress line in headless Chromium at 1366 px and 390 px, JavaScript on and off.

No worker: the test moves one Jamendo-MT-QA submission through the pipeline itself, with the pipeline's
own services (validation, the CPU score step with BERTScore sent to a heavy queue, each heavy chunk scored
in-process, then aggregation); the two stages too short to see (validating, aggregating) are stored as the
steps store them. Tasks go to queues no worker reads. With JavaScript the open pages follow each stage
without a reload; without it a reload shows the same line as plain text. The owner's e-mail opt-in sits in
the status box. Screenshots of every stage in artifacts/screenshots/.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail

from tests.helpers.browser import CHROMIUM, OVERFLOW, PHONE, WIDE
from tests.helpers.datagen import jamendo_predictions, jamendo_references, write_jsonl

if not CHROMIUM.exists():
    pytest.skip(f"browser tests need Chromium at {CHROMIUM} (Debian package 'chromium'); not installed",
                allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")
expect = playwright.expect

from leaderboard.models import AccountSettings, HeavyChunk, Status, Submission  # noqa: E402
from leaderboard.services.pipeline.heavy import heavy_chunk_score  # noqa: E402
from leaderboard.services.pipeline.progress import (  # noqa: E402
    AGGREGATING,
    LIGHT_METRICS,
    VALIDATING,
    progress_stage,
)
from leaderboard.services.pipeline.steps import submission_score, submission_validate  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

REFERENCES = jamendo_references(6, seed=4)  # 18 items: chunks of 5 -> four BERTScore chunks
ETA = re.compile(r"about (\d+ min )?\d+ s left")
VIEWS = [("wide-js", WIDE, True), ("phone-js", PHONE, True), ("wide-nojs", WIDE, False),
         ("phone-nojs", PHONE, False)]


def _login(page: Any, next_path: str) -> None:
    page.goto(f"/accounts/login/?next={next_path}")
    page.get_by_label("Username").fill("erin")
    page.get_by_label("Password").fill("pw-erin")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(re.escape(next_path)))


def _store_stage(submission: Submission, status: str, status_detail: str, stage: str, detail: str) -> None:
    """The stage as the score and validate steps store it (the throughput points kept)."""
    current = Submission.objects.get(pk=submission.pk)
    Submission.objects.filter(pk=submission.pk).update(
        status=status, status_detail=status_detail, progress=progress_stage(current.progress or {}, stage, detail))


def test_progress_line_follows_every_stage(make_user, make_split, worker_env, api, settings, new_page, screenshot,
                                           tmp_path: Path):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 5,
                            "SCORING_HEAVY_QUEUE": f"{worker_env['CELERY_QUEUE']}-heavy"}
    split = make_split("jamendo-mt-qa", "full", REFERENCES)
    erin = make_user("erin")
    get_user_model().objects.filter(pk=erin.pk).update(email="erin@example.org")
    run = write_jsonl(jamendo_predictions(REFERENCES, seed=1), tmp_path / "run.jsonl")
    answer = api(erin).post(f"/api/v1/benchmarks/jamendo-mt-qa/{split.name}/submissions",
                            data={"model_name": "Staged model"},
                            files=[("predictions", (run.name, run.read_bytes(), "application/x-ndjson"))])
    assert answer.status_code == 201, answer.text
    submission = Submission.objects.get(uid=answer.json()["id"])
    path = f"/s/{submission.uid}/"

    pages = {}
    for label, viewport, js in VIEWS:
        page = new_page(viewport=viewport, java_script_enabled=js)
        _login(page, path)
        if js:
            page.evaluate("window.notReloaded = true")  # gone if the page reloads itself
        pages[label] = page

    def check(step: str, stage_text: str, *, eta: bool, done: int, total: int) -> None:
        for label, page in pages.items():
            if "nojs" in label:
                page.reload()
                expect(page.locator("#status noscript")).to_be_attached()
            else:
                assert page.evaluate("window.notReloaded === true"), (label, step)
            expect(page.locator("#status")).to_contain_text(stage_text, timeout=10_000)
            if stage_text:  # said once, by the status detail or the stage line
                assert page.locator("#status").inner_text().count(stage_text) == 1, (label, step)
            expect(page.locator("#progress-text")).to_have_text(f"{done} / {total} items scored")
            if eta:
                expect(page.locator("#eta")).to_have_text(ETA)
            else:
                expect(page.locator("#eta")).to_have_text("")
            line = page.locator("#stage-detail").inner_text()
            assert line.strip() == line.strip().strip("·").strip(), (label, step, line)  # no dangling separator
            if "phone" in label:
                layout = page.evaluate(OVERFLOW)
                assert layout["scrollWidth"] <= layout["width"], (label, step, layout)
            screenshot(page, f"{label}-{step}", full_page=False)

    check("uploaded", "", eta=False, done=0, total=0)
    _store_stage(submission, Status.VALIDATING, "Validating the files.", VALIDATING, "Validating the files.")
    check("validating", "Validating the files.", eta=False, done=0, total=0)
    submission_validate(submission.pk)
    check("queued", "Waiting for a scoring worker.", eta=False, done=0, total=18)

    # the owner turns the e-mail on from the entry's page, and lands back on it
    owner = pages["phone-nojs"]
    owner.locator("#end-mail").get_by_label(re.compile("E-mail me")).check()
    owner.locator("#end-mail").get_by_role("button", name="Save").click()
    owner.wait_for_url(re.compile(re.escape(path) + "#messages$"))
    expect(owner.locator("#messages")).to_contain_text("E-mail settings saved.")
    expect(owner.locator("#end-mail-on")).to_be_checked()
    assert AccountSettings.objects.get(user=erin).email_on_end
    screenshot(owner, "phone-nojs-mail-on", full_page=False)

    _store_stage(submission, Status.SCORING, "Scoring.", LIGHT_METRICS, "Light metrics chunk 2 of 4")
    check("light-metrics", "Light metrics chunk 2 of 4", eta=False, done=0, total=18)
    submission_score(submission.pk)  # light metrics on the CPU; BERTScore's chunks wait on the heavy queue
    assert Submission.objects.get(pk=submission.pk).status == Status.SCORING
    check("light-done", "BERTScore on the accelerator workers.", eta=True, done=18, total=36)
    chunks = list(HeavyChunk.objects.filter(submission=submission).order_by("run", "start"))
    assert [(c.start, c.stop) for c in chunks] == [(0, 5), (5, 10), (10, 15), (15, 18)]
    for k, chunk in enumerate(chunks, start=1):
        last = heavy_chunk_score(submission.pk, chunk.pk, "browser-test-gpu")
        assert last == (k == 4)
        if k in (1, 3):
            check(f"bertscore-{k}", f"BERTScore chunk {k} of 4 done", eta=True, done=18 + min(5 * k, 18), total=36)
    _store_stage(submission, Status.AGGREGATING, "Computing aggregates and intervals.", AGGREGATING,
                 "Computing aggregates and intervals.")
    check("aggregating", "Computing aggregates and intervals.", eta=False, done=36, total=36)

    submission_score(submission.pk)
    assert Submission.objects.get(pk=submission.pk).status == Status.SCORED
    for label, page in pages.items():
        if "nojs" in label:
            page.reload()
        expect(page.locator("#status-label")).to_have_text("Scored", timeout=15_000)
        expect(page.locator("#metrics")).to_be_visible()
        expect(page.locator("#end-mail")).to_have_count(0)  # nothing left to wait for
        expect(page.locator("#progress-text")).to_have_text("36 / 36 items scored")
        screenshot(page, f"{label}-scored", full_page=False)
    assert [m.to for m in mail.outbox] == [["erin@example.org"]]
