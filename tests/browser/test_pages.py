"""The site in headless Chromium: leaderboards, entries, upload with live progress, downloads, heatmaps.

Real HTTP (pytest-django's ``live_server``), a real Celery worker, PostgreSQL and Redis.
Screenshots of every step go to artifacts/screenshots/.
"""

from __future__ import annotations

import csv
import json
import re
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.helpers.browser import CHROMIUM, OVERFLOW, PHONE, REPO

if not CHROMIUM.exists():
    pytest.skip(f"browser tests need Chromium at {CHROMIUM} (Debian package 'chromium'); not installed",
                allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")
expect = playwright.expect
PlaywrightError = playwright.Error

from leaderboard.models import Submission  # noqa: E402
from tests.helpers.datagen import jamendo_predictions, jamendo_references, write_jsonl  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


# --- reading the leaderboard ------------------------------------------------------------------


def row_models(page: Any) -> list[str]:
    return page.locator("#leaderboard tbody tr[data-model]").evaluate_all(
        "rows => rows.map(r => r.dataset.model)")


def column_values(page: Any, key: str) -> list[float]:
    """The numbers shown in the (main) column of metric ``key``, top to bottom."""
    cells = page.evaluate("""(key) => {
        const ths = [...document.querySelectorAll('#leaderboard thead th')];
        const i = ths.findIndex(th => th.querySelector(`a[data-column="${key}"]`));
        return [...document.querySelectorAll('#leaderboard tbody tr[data-model]')]
            .map(tr => tr.children[i].textContent.trim());
    }""", key)
    return [float(NUMBER.search(text).group()) for text in cells]


def header(page: Any, key: str) -> Any:
    return page.locator("#leaderboard thead th").filter(has=page.locator(f"a[data-column='{key}']"))


def expected_order(board: Any, key: str, among: set[str] | None = None) -> list[str]:
    names = [n for n in board.metrics if among is None or n in among]
    return sorted(names, key=lambda n: -board.metrics[n][key]["value"])


# --- sort, filter, open an entry --------------------------------------------------------


def test_sort_by_clicking_a_column_header(dialbgm_board, new_page, screenshot):
    page = new_page()
    page.goto(dialbgm_board.path)
    screenshot(page, "default-sort")
    expect(header(page, "hit_at_1")).to_have_attribute("aria-sort", "descending")
    default = row_models(page)
    assert default == expected_order(dialbgm_board, "hit_at_1") == ["Ranker A", "Ranker C", "Ranker D", "Ranker B"]

    page.locator("#leaderboard thead a[data-column='kendall_tau_b']").click()
    page.wait_for_url(re.compile(r"[?&]sort=kendall_tau_b"))
    screenshot(page, "sorted-by-kendall")
    sort = parse_qs(urlsplit(page.url).query)["sort"]
    assert len(sort) == 1 and sort[0].startswith("kendall_tau_b@"), page.url
    expect(header(page, "kendall_tau_b")).to_have_attribute("aria-sort", "descending")
    expect(header(page, "hit_at_1")).not_to_have_attribute("aria-sort", re.compile(".*"))
    expect(page.locator("#sort-note")).to_contain_text("Sorted by Kendall τb")
    resorted = row_models(page)
    assert resorted == expected_order(dialbgm_board, "kendall_tau_b")
    assert resorted == ["Ranker D", "Ranker B", "Ranker C", "Ranker A"]
    values = column_values(page, "kendall_tau_b")
    assert values == sorted(values, reverse=True)
    assert page.locator("#leaderboard tbody td.rank").first.inner_text().startswith("1")

    page.locator("#leaderboard thead a[data-column='mrr']").click()
    page.wait_for_url(re.compile(r"[?&]sort=mrr"))
    screenshot(page, "sorted-by-mrr")
    expect(header(page, "mrr")).to_have_attribute("aria-sort", "descending")
    assert page.locator("#leaderboard thead th[aria-sort]").count() == 1
    assert row_models(page) == expected_order(dialbgm_board, "mrr")


def test_filter_form_shows_only_matching_rows(dialbgm_board, new_page, screenshot):
    page = new_page()
    page.goto(dialbgm_board.path)
    assert len(row_models(page)) == 4
    page.locator("#leaderboard thead a[data-column='kendall_tau_b']").click()
    page.wait_for_url(re.compile(r"sort=kendall_tau_b"))

    dialogue_input = page.get_by_role("combobox", name="Dialogue input")
    dialogue_input.select_option("summary")
    screenshot(page, "filter-chosen")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url(re.compile(r"[?&]input=summary"))
    screenshot(page, "filtered-summary")
    query = parse_qs(urlsplit(page.url).query)
    assert query["input"] == ["summary"] and query["sort"][0].startswith("kendall_tau_b@"), page.url
    # only the summary entries, still in Kendall order (the sort survives the filter form)
    assert row_models(page) == expected_order(dialbgm_board, "kendall_tau_b", {"Ranker A", "Ranker C"}) \
        == ["Ranker C", "Ranker A"]
    expect(page.get_by_role("combobox", name="Dialogue input")).to_have_value("summary")
    expect(header(page, "kendall_tau_b")).to_have_attribute("aria-sort", "descending")

    page.get_by_role("combobox", name="Music input").select_option("caption")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url(re.compile(r"modality=caption"))
    screenshot(page, "filtered-summary-caption")
    assert row_models(page) == ["Ranker C"]

    page.get_by_role("combobox", name="Dialogue input").select_option("full_dialogue")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url(re.compile(r"input=full_dialogue"))
    assert row_models(page) == ["Ranker D"]

    page.get_by_role("combobox", name="Model category").select_option("text_llm")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url(re.compile(r"category=text_llm"))
    screenshot(page, "filtered-nothing")
    assert row_models(page) == []
    expect(page.locator("#leaderboard tbody")).to_contain_text("No scored entries match these filters yet")


def test_open_an_entry_from_the_leaderboard(dialbgm_board, new_page, screenshot):
    page = new_page()
    page.goto(dialbgm_board.path)
    row = page.locator("#leaderboard tbody tr[data-model='Ranker C']")
    shown_hit = column_values(page, "hit_at_1")[row_models(page).index("Ranker C")]
    row.get_by_role("link", name="Ranker C", exact=True).click()
    uid = dialbgm_board.uids["Ranker C"]
    page.wait_for_url(re.compile(rf"/s/{uid}/$"))
    screenshot(page, "entry")
    expect(page.locator("h1")).to_have_text("Ranker C")
    expect(page.locator("#status-label")).to_have_text("Scored")
    expect(page.locator("#progress")).to_have_attribute("value", "100")

    metrics = dialbgm_board.metrics["Ranker C"]
    assert set(metrics) == {"hit_at_1", "mrr", "ndcg_at_4", "kendall_tau_b"}
    table = page.locator("#metrics")
    expect(table.locator("tbody tr")).to_have_count(len(metrics))
    for key, metric in metrics.items():
        cells = table.locator(f"tbody tr[data-key='{key}'] td")
        assert metric["signature"]
        expect(cells.nth(5).locator("code.signature")).to_have_text(metric["signature"])
        expect(cells.nth(1)).to_have_text(f"{metric['value']:.4f}")
        expect(cells.nth(4)).to_have_text(str(metric["n_scored"]))
    assert shown_hit == pytest.approx(metrics["hit_at_1"]["value"], abs=5e-5)
    # the breadcrumb leads back to the leaderboard
    page.get_by_role("link", name=re.compile("DialBGM")).first.click()
    page.wait_for_url(re.compile(re.escape(dialbgm_board.path) + "$"))
    assert len(row_models(page)) == 4


# --- log in, upload through the form, watch progress, download the breakdown -------------


def _progress_state(page: Any) -> dict[str, Any] | None:
    try:
        return page.evaluate("""() => {
            const bar = document.getElementById('progress');
            const label = document.getElementById('status-label');
            const text = document.getElementById('progress-text');
            return bar && label ? {value: bar.value, status: label.textContent.trim(),
                                   text: text ? text.textContent.trim() : ''} : null;
        }""")
    except PlaywrightError:  # progress.js reloads the page when scoring ends
        return None


def test_login_upload_watch_progress_and_download_items(make_user, make_split, start_worker, new_page, screenshot,
                                                          tmp_path):
    references = jamendo_references(300, seed=13)  # 900 items; 2 runs -> 1,800 rows
    split = make_split("jamendo-mt-qa", "full", references)
    runs = [write_jsonl(jamendo_predictions(references, seed=s), tmp_path / f"run{s}.jsonl") for s in (1, 2)]
    make_user("dana")
    # Tiny chunks: 900 progress updates, a few seconds of work. BERTScore off: its unpadded batches cost
    # seconds per chunk of sentence pairs on 2 shared cores (minutes here); tests/e2e and tests/scoring cover it.
    worker = start_worker(SCORING_CHUNK_SIZE=2, BERTSCORE=0)
    page = new_page()

    # 4. the submit page asks for a login first, then comes back with the split chosen
    page.goto(f"/submit/?split=jamendo-mt-qa/{split.name}")
    page.wait_for_url(re.compile(r"/accounts/login/\?next="))
    page.get_by_label("Username").fill("dana")
    page.get_by_label("Password").fill("pw-dana")
    screenshot(page, "login")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/submit/\?split=jamendo-mt-qa"))
    expect(page.get_by_role("button", name="Log out dana")).to_be_visible()
    expect(page.get_by_role("combobox", name="Leaderboard")).to_have_value(f"jamendo-mt-qa/{split.name}")
    # the form is CSRF-protected (a logged-in POST without the form's token is refused)
    forged = page.request.post("/submit/", multipart={"split": f"jamendo-mt-qa/{split.name}", "model_name": "x"})
    assert forged.status == 403
    page.get_by_label("Prediction files (JSONL)").set_input_files([str(p) for p in runs])
    page.get_by_label("Model name").fill("Browser QA model")
    page.get_by_label("Organisation").fill("Headless Lab")
    page.get_by_role("combobox", name="Model type").select_option("Cap")
    screenshot(page, "submit-form")
    page.get_by_role("button", name="Submit", exact=True).click()
    page.wait_for_url(re.compile(r"/s/[0-9a-f-]{36}/$"))
    uid = urlsplit(page.url).path.split("/")[2]
    expect(page.locator(".messages")).to_contain_text("Uploaded")
    screenshot(page, "submitted")

    observed: list[tuple[float, str, str]] = []
    seen_at: list[float] = []  # seconds since the submission page opened
    intermediate_shot = False
    started = time.monotonic()
    while time.monotonic() < started + 120:
        state = _progress_state(page)
        if state is not None:
            sample = (state["value"], state["status"], state["text"])
            if not observed or observed[-1] != sample:
                observed.append(sample)
                seen_at.append(round(time.monotonic() - started, 2))
            if 0 < state["value"] < 100 and not intermediate_shot:
                screenshot(page, f"progress-{int(state['value']):02d}")
                intermediate_shot = True
            if state["status"] == "Scored":
                break
        page.wait_for_timeout(100)
    record = REPO / "artifacts" / "browser-progress.json"
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"submission": uid, "observed": [
        {"seconds": t, "value": v, "status": s, "text": x} for t, (v, s, x) in zip(seen_at, observed)]}, indent=1))
    print("progress observed:", list(zip(seen_at, observed)))
    assert observed and observed[-1][1] == "Scored", (observed, worker.log.read_text(errors="replace")[-3000:])

    # the page reloads itself when scoring ends: the server-rendered result
    expect(page.locator("#metrics")).to_be_visible(timeout=30_000)
    expect(page.locator("#status-label")).to_have_text("Scored")
    expect(page.locator("#progress")).to_have_attribute("value", "100")
    expect(page.locator("#progress-text")).to_have_text("1800 / 1800 items scored")
    expect(page.locator("#metrics").locator("xpath=../..")).to_contain_text("bertscore_f1 (BERTScore disabled)")
    screenshot(page, "scored")
    values = [v for v, _, _ in observed]
    assert any(0 < v < 100 for v, status, _ in observed if status == "Scoring"), observed
    assert values == sorted(values), f"progress went backwards: {observed}"
    assert {"Scoring", "Scored"} <= {status for _, status, _ in observed}, observed

    # 5. the per-item breakdown, downloaded through the browser
    submission = Submission.objects.get(uid=uid)
    report = submission.report
    with page.expect_download() as info:
        page.locator("#items").get_by_role("link", name="CSV", exact=True).click()
    download = info.value
    assert download.suggested_filename == f"jamendo-mt-qa-{split.name}-{uid}-items.csv"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    screenshot(page, "downloaded")
    with open(saved, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        head = next(reader)
        rows = [dict(zip(head, r)) for r in reader]
    metric_keys = [m.key for m in split.spec.profile().metrics if m.key in report["metrics"]]  # the spec's order
    assert metric_keys == ["yes_no_accuracy", "short_answer_accuracy", "bleu", "rouge1", "rouge2", "rougeL"]
    # per item, corpus BLEU's column is each answer's sentence BLEU, named so (its mean is not the entry's value)
    item_keys = ["yes_no_accuracy", "short_answer_accuracy", "bleu_sentence", "rouge1", "rouge2", "rougeL"]
    assert head == ["run", "index", "id", "qa_type", "prediction", "reference", *item_keys]
    assert len(rows) == len(references) * len(runs) == 1800
    predictions = {n: jamendo_predictions(references, seed=n) for n in (1, 2)}
    for number in (1, 2):
        mine = [r for r in rows if r["run"] == str(number)]
        assert [r["id"] for r in mine] == [ref["id"] for ref in references]
        assert [int(r["index"]) for r in mine] == list(range(len(references)))
        assert [r["qa_type"] for r in mine] == [ref["qa_type"] for ref in references]
        assert [r["prediction"] for r in mine] == [p["prediction"] for p in predictions[number]]
        yes_no = [float(r["yes_no_accuracy"]) for r in mine if r["qa_type"] == "yes_no"]
        assert all(r["yes_no_accuracy"] == "" for r in mine if r["qa_type"] != "yes_no")
        assert sum(yes_no) / len(yes_no) == pytest.approx(report["per_run"]["yes_no_accuracy"][number - 1])


def test_submit_form_refuses_an_oversized_file(make_user, make_split, new_page, screenshot, tmp_path, settings):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "MAX_UPLOAD_BYTES": 1024 * 1024}
    references = jamendo_references(5, seed=1)
    split = make_split("jamendo-mt-qa", "full", references)
    big = tmp_path / "big.jsonl"
    line = json.dumps({"id": references[0]["id"], "prediction": "x" * 1000}) + "\n"
    big.write_text(line * 1500)  # 1.5 MB
    make_user("erin")
    page = new_page()
    page.goto(f"/accounts/login/?next=/submit/%3Fsplit%3Djamendo-mt-qa/{split.name}")
    page.get_by_label("Username").fill("erin")
    page.get_by_label("Password").fill("pw-erin")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/submit/\?split="))
    page.get_by_label("Prediction files (JSONL)").set_input_files(str(big))
    page.get_by_label("Model name").fill("Too big")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text("big.jsonl is larger than the 1 MB limit")
    screenshot(page, "refused")
    assert Submission.objects.count() == 0


# --- heatmaps -------------------------------------------------------------------------------


def test_heatmaps_render_with_three_or_more_entries(dialbgm_board, new_page, screenshot):
    page = new_page()
    page.goto(dialbgm_board.path)
    models = page.locator("#heatmap-models")
    metrics = page.locator("#heatmap-metrics")
    page.locator("#heatmaps").scroll_into_view_if_needed()  # plotly loads when scrolled to
    expect(models).to_have_attribute("data-rendered", "true", timeout=30_000)
    expect(metrics).to_have_attribute("data-rendered", "true")
    assert models.locator(".main-svg").count() > 0 and metrics.locator(".main-svg").count() > 0
    page.locator("#heatmaps").scroll_into_view_if_needed()
    screenshot(page, "heatmaps", full_page=False)
    screenshot(page, "heatmaps-full-page")
    z_models = page.evaluate("document.getElementById('heatmap-models').data[0].z")
    z_metrics = page.evaluate("document.getElementById('heatmap-metrics').data[0].z")
    assert len(z_models) == 4 and all(len(r) == 4 for r in z_models)
    assert [z_models[i][i] for i in range(4)] == [1, 1, 1, 1]
    assert len(z_metrics) == 4  # Hit@1, MRR, nDCG@4, Kendall τb

    # with a filter leaving two entries there is no metric agreement to draw (it needs three)
    page.goto(dialbgm_board.path + "?input=summary")
    page.locator("#heatmaps").scroll_into_view_if_needed()  # plotly loads when scrolled to
    expect(models).to_have_attribute("data-rendered", "true", timeout=30_000)
    expect(metrics).to_have_text("Not enough scored entries for this heatmap yet.")
    expect(metrics).not_to_have_attribute("data-rendered", "true")
    assert len(page.evaluate("document.getElementById('heatmap-models').data[0].z")) == 2
    page.locator("#heatmaps").scroll_into_view_if_needed()
    screenshot(page, "heatmaps-two-entries", full_page=False)


# --- without JavaScript, and on a phone ----------------------------------------------------


def test_pages_work_without_javascript(dialbgm_board, new_page, screenshot):
    page = new_page(java_script_enabled=False)
    page.goto(dialbgm_board.path)
    screenshot(page, "leaderboard-no-js")
    assert row_models(page) == expected_order(dialbgm_board, "hit_at_1")
    assert page.locator("#heatmap-models > *").count() == 0  # nothing drawn, the JSON link is there instead
    expect(page.locator("#heatmaps").get_by_role("link", name="heatmap JSON")).to_be_visible()
    # the heatmaps' numbers: a page of plain tables, one link away, models in leaderboard order
    order = row_models(page)
    page.locator("#heatmaps").get_by_role("link", name="The same numbers as tables").click()
    page.wait_for_url(re.compile(r"/heatmaps/"))
    labels = page.locator("#heatmap-table-models tbody th").all_inner_texts()
    assert len(labels) == len(order) and all(label.startswith(f"{n}. {model}")
                                             for n, (label, model) in enumerate(zip(labels, order), start=1))
    expect(page.locator("#heatmap-table-metrics")).to_be_visible()
    screenshot(page, "heatmap-tables-no-js")
    page.go_back()

    page.locator("#leaderboard thead a[data-column='kendall_tau_b']").click()
    page.wait_for_url(re.compile(r"sort=kendall_tau_b"))
    expect(header(page, "kendall_tau_b")).to_have_attribute("aria-sort", "descending")
    assert row_models(page) == expected_order(dialbgm_board, "kendall_tau_b")
    page.get_by_role("combobox", name="Dialogue input").select_option("full_dialogue")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url(re.compile(r"input=full_dialogue"))
    screenshot(page, "sorted-filtered-no-js")
    assert row_models(page) == ["Ranker D", "Ranker B"]

    # the per-item explorer: pages and the id search are plain links and GET forms
    page.get_by_role("link", name="Ranker B", exact=True).click()
    page.wait_for_url(re.compile(rf"/s/{dialbgm_board.uids['Ranker B']}/"))
    expect(page.locator("#status-label")).to_have_text("Scored")
    items = page.locator("#item-table tbody tr")
    expect(items).to_have_count(50)
    expect(page.locator(".pager")).to_contain_text("page 1 of 2 (60 items)")
    screenshot(page, "explorer-page-1-no-js")
    page.locator(".pager").get_by_role("link", name="next →").click()
    page.wait_for_url(re.compile(r"page=2"))
    expect(items).to_have_count(10)
    expect(page.locator(".pager")).to_contain_text("page 2 of 2")
    ids = items.locator("td:nth-child(2) code").all_inner_texts()
    assert ids == [ref["id"] for ref in dialbgm_board.references[50:]]
    screenshot(page, "explorer-page-2-no-js")
    page.get_by_role("textbox", name="Text").fill("dlg-1")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url(re.compile(r"q=dlg-1"))
    screenshot(page, "explorer-search-no-js")
    ids = items.locator("td:nth-child(2) code").all_inner_texts()
    assert ids == [ref["id"] for ref in dialbgm_board.references if "dlg-1" in ref["id"]]
    assert len(ids) == 11
    # the Scores column shows every metric of the item
    first = items.first.locator("td.scores")
    for label in ("Hit@1", "MRR", "nDCG@4", "Kendall τb"):
        expect(first).to_contain_text(label)


def test_pages_fit_a_phone_screen(dialbgm_board, new_page, screenshot):
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    uid = dialbgm_board.uids["Ranker A"]
    for label, path in [("home", "/"), ("benchmark", "/b/dialbgm/"), ("leaderboard", dialbgm_board.path),
                        ("entry", f"/s/{uid}/"), ("login", "/accounts/login/")]:
        page.goto(path)
        if label == "leaderboard":
            page.locator("#heatmaps").scroll_into_view_if_needed()  # plotly loads when scrolled to
            expect(page.locator("#heatmap-models")).to_have_attribute("data-rendered", "true", timeout=30_000)
        screenshot(page, f"phone-{label}")
        layout = page.evaluate(OVERFLOW)
        assert layout["width"] == PHONE["width"], layout
        assert layout["scrollWidth"] <= layout["width"], (label, layout)
        assert not layout["outside"], (label, layout)
        assert all(w["right"] <= layout["width"] + 1 for w in layout["wraps"]), (label, layout)
        if label == "leaderboard":  # the wide table scrolls inside its wrapper, not the page
            board_wrap = layout["wraps"][0]
            assert board_wrap["scroll"] > board_wrap["client"], layout
            page.locator("#leaderboard").locator("..").evaluate("w => w.scrollLeft = w.scrollWidth")
            screenshot(page, "phone-leaderboard-scrolled", full_page=False)
            assert page.evaluate("document.documentElement.scrollLeft") == 0
