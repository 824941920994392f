"""An entry's page right after each click, in headless Chromium at 1366 px and 390 px, JavaScript on and
off: the explorer's empty predictions, correct/wrong and category filters on a multiple-choice entry and
on a Jamendo-MT-QA entry (by item type); an invalid entry offering resubmission and claiming nothing was
scored or published; a refused edit keeping what the owner typed; the API token page shown again without
a second token; the phone header and "My submissions" without overlapping text.

MMAU-shaped and Jamendo-MT-QA entries scored by a real worker; screenshots of every step in
artifacts/screenshots/.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.browser import CHROMIUM, OVERFLOW, OVERLAPS, PHONE, WIDE
from tests.helpers.datagen import jamendo_predictions, jamendo_references, write_jsonl

if not CHROMIUM.exists():
    pytest.skip(f"browser tests need Chromium at {CHROMIUM} (Debian package 'chromium'); not installed",
                allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")
expect = playwright.expect

from leaderboard.models import ApiToken, Status, Submission  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TASKS = ("music", "sound", "speech")


def _items(n: int) -> list[dict[str, Any]]:
    rng = random.Random(n)
    refs = []
    for i in range(n):
        options = [f"{w} {i}" for w in rng.sample(["piano", "violin", "drum kit", "a man", "the guitar"], 4)]
        refs.append({"id": f"q{i}", "question": f"Question {i}?", "options": options, "answer": options[i % 4],
                     "metadata": {"task": TASKS[i % 3], "difficulty": ("easy", "medium", "hard")[i % 3]}})
    return refs


def _login(page: Any, next_path: str, username: str = "carol") -> None:
    page.goto(f"/accounts/login/?next={next_path}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(f"pw-{username}")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(re.escape(next_path)))


def test_entry_pages_after_every_click(make_user, make_split, start_worker, api, tmp_path: Path, new_page,
                                       screenshot):
    from tests.helpers.e2e import wait_for

    refs = _items(30)
    make_split("mmau", "test-mini", refs)
    start_worker()
    client = api(make_user("carol"))
    rng = random.Random(5)
    run = [{"id": r["id"], "prediction": r["answer"] if rng.random() < 0.6 else r["options"][(i + 1) % 4]}
           for i, r in enumerate(refs)]
    empties = {run[i]["id"] for i in (2, 7, 11)}
    for record in run:
        if record["id"] in empties:
            record["prediction"] = ""
    wrong = {r["id"] for r, p in zip(refs, run) if p["prediction"] != r["answer"]}
    music_wrong = {r["id"] for r in refs if r["metadata"]["task"] == "music"} & wrong
    broken = [dict(p) for p in run]
    broken[4] = {"id": run[4]["id"], "prediction": 4}
    uids = {}
    for name, records in (("Valid", run), ("Broken", broken)):
        path = write_jsonl(records, tmp_path / f"{name}.jsonl")
        answer = client.post("/api/v1/benchmarks/mmau/test-mini/submissions", data={"model_name": name},
                             files=[("predictions", (path.name, path.read_bytes(), "application/x-ndjson"))])
        assert answer.status_code == 201, answer.text
        uids[name] = answer.json()["id"]
    wait_for(lambda: Submission.objects.filter(uid=uids["Valid"], status=Status.SCORED).exists(), 120,
             "the valid upload to be scored")
    wait_for(lambda: Submission.objects.filter(uid=uids["Broken"], status=Status.INVALID).exists(), 60,
             "the broken upload to be invalid")

    for js in (True, False):
        for name, viewport in (("wide", WIDE), ("phone", PHONE)):
            label = f"{name}-{'js' if js else 'nojs'}"
            page = new_page(viewport=viewport, java_script_enabled=js)
            page.goto(f"/s/{uids['Valid']}/")
            page.locator("#item-filters input[name=q]").fill("(empty)")
            page.get_by_role("button", name="Show").click()
            page.wait_for_url(re.compile(r"q=%28empty%29"))
            expect(page.locator("#items-count")).to_contain_text(f"{len(empties)} items match these filters")
            expect(page.locator("#item-table td.meta", has_text="(empty)")).to_have_count(len(empties))
            screenshot(page, f"{label}-empty-predictions")
            page.goto(f"/s/{uids['Valid']}/")
            page.locator("#item-filters select[name=group]").select_option("task=music")
            page.locator("#item-filters select[name=correct]").select_option("no")
            page.get_by_role("button", name="Show").click()
            page.wait_for_url(re.compile(r"group=task%3Dmusic"))
            expect(page.locator("#items-count")).to_contain_text(f"{len(music_wrong)} item")
            shown = set(page.locator("#item-table tbody tr[data-index] td:nth-child(2) code").all_inner_texts())
            assert shown == music_wrong, (label, shown, music_wrong)
            screenshot(page, f"{label}-wrong-music-items")

        owner = new_page(viewport=PHONE if js else WIDE, java_script_enabled=js)
        _login(owner, f"/s/{uids['Broken']}/")
        expect(owner.locator("#resubmit")).to_contain_text("was not scored")
        expect(owner.locator("#resubmit a")).to_have_attribute("href", "/submit/?split=mmau/test-mini")
        expect(owner.locator("#visibility-form")).to_have_count(0)
        expect(owner.locator("#withdraw-form")).to_have_count(0)
        for claim in (r"(?<!nothing )was scored", "now public", "listed on the leaderboard"):
            expect(owner.locator("main")).not_to_contain_text(re.compile(claim, re.IGNORECASE))
        screenshot(owner, f"{'phone-js' if js else 'wide-nojs'}-invalid-entry")
        owner.goto(f"/s/{uids['Valid']}/")
        owner.locator("#metadata-edit summary").click()
        owner.get_by_label("Model name").fill("   ")  # only spaces: the site refuses an empty name
        owner.get_by_label("Organisation").fill("Kept Lab")
        owner.get_by_label("Parameters").fill("7B")
        owner.get_by_role("button", name="Save details").click()
        owner.wait_for_url(re.compile(r"#edit-model_name$"))
        expect(owner.locator("#messages li.banner.error")).to_contain_text("Not saved: the model needs a name")
        expect(owner.locator("#edit-error")).to_contain_text("Not saved: the model needs a name")
        expect(owner.get_by_label("Organisation")).to_have_value("Kept Lab")
        expect(owner.get_by_label("Parameters")).to_have_value("7B")
        assert owner.evaluate("document.activeElement.name") == "model_name"  # the refused field, JS or not
        screenshot(owner, f"{'phone-js' if js else 'wide-nojs'}-refused-edit")


def test_jamendo_wrong_answers_tokens_and_my_submissions(make_user, make_split, start_worker, api, tmp_path: Path,
                                                        new_page, screenshot):
    from tests.helpers.e2e import wait_for

    refs = jamendo_references(8, seed=3)  # 24 items: 8 yes/no, 8 short answers, 8 sentences
    make_split("jamendo-mt-qa", "full", refs)
    start_worker(BERTSCORE=0)  # BERTScore plays no part in correctness
    name = "maximilian_vandersloot"  # a long name in the phone header
    client = api(make_user(name))
    run = jamendo_predictions(refs, seed=2, noise=0.4)
    predicted = {r["id"]: r["prediction"] for r in run}
    wrong_yes_no = {r["id"] for r in refs if r["qa_type"] == "yes_no" and predicted[r["id"]].strip() != r["answer"]}
    assert 0 < len(wrong_yes_no) < 8
    path = write_jsonl(run, tmp_path / "run.jsonl")
    answer = client.post("/api/v1/benchmarks/jamendo-mt-qa/full/submissions",
                         data={"model_name": "Jamendo answerer with a rather long model name", "organisation": "Lab"},
                         files=[("predictions", (path.name, path.read_bytes(), "application/x-ndjson"))])
    assert answer.status_code == 201, answer.text
    uid = answer.json()["id"]
    wait_for(lambda: Submission.objects.filter(uid=uid, status=Status.SCORED).exists(), 120, "the upload to be scored")
    tokens_before = ApiToken.objects.filter(user__username=name).count()

    for js in (True, False):
        for label, viewport in (("wide", WIDE), ("phone", PHONE)):
            label = f"{label}-{'js' if js else 'nojs'}"
            page = new_page(viewport=viewport, java_script_enabled=js)
            page.goto(f"/s/{uid}/")
            page.locator("#item-filters select[name=qa_type]").select_option("yes_no")
            page.locator("#item-filters select[name=correct]").select_option("no")
            page.get_by_role("button", name="Show").click()
            page.wait_for_url(re.compile(r"correct=no"))
            expect(page.locator("#items-count")).to_contain_text(f"{len(wrong_yes_no)} item")
            shown = set(page.locator("#item-table tbody tr[data-index] td:nth-child(2) code").all_inner_texts())
            assert shown == wrong_yes_no, (label, shown, wrong_yes_no)
            screenshot(page, f"{label}-jamendo-wrong-yes-no")

            # the token page: a reload shows no key again and creates no token
            _login(page, "/accounts/tokens/", name)
            page.get_by_role("button", name="Create a token").click()
            expect(page.locator("#new-token")).to_be_visible()
            assert ApiToken.objects.filter(user__username=name).count() == tokens_before + 1, label
            page.reload()
            expect(page.locator("#new-token")).to_have_count(0)
            assert ApiToken.objects.filter(user__username=name).count() == tokens_before + 1, label
            assert page.title() == "API tokens", page.title()
            ApiToken.objects.filter(user__username=name).order_by("-pk").first().delete()

            # the header and "My submissions": nothing wider than the screen, no text over text
            page.goto("/submissions/")
            expect(page.locator("#my-submissions tbody tr")).to_have_count(1)
            layout = page.evaluate(OVERFLOW)
            assert layout["scrollWidth"] <= layout["width"] and not layout["outside"], (label, layout)
            for selector in ("header.top nav > *", "#my-submissions td, #my-submissions th, main h1"):
                found = page.evaluate(OVERLAPS, selector)
                assert found == {"overlapping": [], "spilling": []}, (label, selector, found)
            screenshot(page, f"{label}-my-submissions")
