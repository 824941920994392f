"""Parse rates on the site (``services.boards.parsing``): the board's column, the API's ``parsing``, the entry
page's protocol line, the explorer's ``parsed`` filter, the per-item and leaderboard downloads, and what each viewer
gets on a hidden-label split. Entries are scored by the pipeline; the expected counts come from the publishers'
parsers written here (MMAU ``string_match`` over each option, CMI-Bench's label rule), not from ``scoring``."""

from __future__ import annotations

import csv
import io
import json
import random
import re
from typing import Any

import pytest
from django.test import Client

from leaderboard.models import PublishedResult, Split, Submission
from leaderboard.services.shared.cache import leaderboard_changed
from tests.helpers.boards import page_rows, printed_columns
from tests.helpers.site import client_for, upload_scored

pytestmark = pytest.mark.django_db

TASKS = ("music", "sound", "speech")
GENRES = ("blues", "classical", "country", "disco", "hiphop", "jazz", "metal", "pop", "reggae", "rock")


def _words(text: str) -> set[str]:
    return set(re.findall(r"\b\w+\b", text.lower()))


def _string_match(gold: str, said: str, choices: list[str]) -> bool:
    wrong = set().union(*(_words(c) - _words(gold) for c in choices if _words(c) != _words(gold)))
    return bool(_words(said)) and _words(gold) <= _words(said) and not (_words(said) & wrong)


def mmau_unparsed(said: str, choices: list[str]) -> bool:
    return sum(_string_match(c, said, choices) for c in choices) != 1


def mmau_refs(n: int) -> list[dict[str, Any]]:
    rng = random.Random(n)
    refs = []
    for i in range(n):
        options = [f"{w} {i}" for w in rng.sample(["piano", "violin", "drum kit", "a man", "the guitar"], 4)]
        refs.append({"id": f"q{i}", "question": f"Question {i}?", "options": options, "answer": options[i % 4],
                     "metadata": {"task": TASKS[i % 3], "difficulty": ("easy", "medium", "hard")[i % 3],
                                  "sub-category": "Instrumentation"}})
    return refs


def mmau_answers(refs: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [{"id": r["id"], "prediction": rng.choice([r["answer"], rng.choice(r["options"]), "B", "",
                                                      f"{r['options'][0]} or {r['options'][1]}", "No idea."])}
            for r in refs]


def _scored(user: Any, split: Split, run: list[dict[str, Any]], name: str, capture: Any) -> Submission:
    return upload_scored(user, split, [run], capture, model_name=name)


def _expected(refs: list[dict[str, Any]], run: list[dict[str, Any]]) -> list[bool]:
    return [mmau_unparsed(p["prediction"], r["options"]) for r, p in zip(refs, run)]


def _parsed_cell(content: bytes, model: str) -> str:
    row = next(r for r in page_rows(content) if r["model"] == model)
    found = re.search(r'<td class="num parsed">(.*?)</td>', row["html"], re.S)
    assert found is not None, row["html"]
    return found.group(1)


def _download(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.content
    return b"".join(response.streaming_content).decode() if response.streaming else response.content.decode()


# --- a public split: every view of the count ----------------------------------------------------------------------


def test_a_multiple_choice_entry_shows_its_parse_rate_everywhere(
        make_split, alice, django_capture_on_commit_callbacks) -> None:
    refs = mmau_refs(30)
    split = make_split("mmau", "test-mini", refs)
    run = mmau_answers(refs, 3)
    expected = _expected(refs, run)
    unparsed = sum(expected)
    assert 0 < unparsed < 30
    entry = _scored(alice, split, run, "Parsey", django_capture_on_commit_callbacks)
    assert entry.report["diagnostics"]["unparsed"] == [unparsed]

    page = Client().get("/b/mmau/test-mini/")
    text = page.content.decode()
    header = text.split('id="parsed-column"', 1)[1].split("</th>", 1)[0]
    assert "Parsed" in header and "<a " not in header and "not ranked" in header  # no sort link: never ranked
    cell = _parsed_cell(page.content, "Parsey")
    assert f"{unparsed} of 30 not parsed" in cell and f"{100 * (30 - unparsed) / 30:.1f}%" in cell

    board = Client().get("/api/v1/benchmarks/mmau/test-mini/leaderboard").json()
    shown = board["rows"][0]["entry"]["parsing"]
    assert shown == {"unparsed": unparsed, "answers": 30, "parsed": pytest.approx(1 - unparsed / 30),
                     "per_run": [unparsed]}
    assert "string_match" in board["parse_rule"]
    resorted = Client().get("/api/v1/benchmarks/mmau/test-mini/leaderboard", {"sort": "parsed"})
    assert resorted.status_code == 400  # not a column: nothing sorts or ranks by it

    assert Client().get(f"/api/v1/submissions/{entry.uid}").json()["parsing"] == shown

    owner = client_for(alice)
    items = owner.get(f"/api/v1/submissions/{entry.uid}/items", {"parsed": "no"}).json()
    assert items["filters"]["parsed"] == "no" and items["parse_filter"] is True
    assert [i["id"] for i in items["items"]] == [r["id"] for r, e in zip(refs, expected) if e]
    assert all(i["unparsed"] is True for i in items["items"])
    assert owner.get(f"/api/v1/submissions/{entry.uid}/items", {"parsed": "yes"}).json()["total"] == 30 - unparsed
    assert owner.get(f"/api/v1/submissions/{entry.uid}/items", {"parsed": "maybe"}).status_code == 400

    rows = list(csv.DictReader(io.StringIO(_download(owner, f"/s/{entry.uid}/items.csv"))))
    assert list(rows[0])[-1] == "unparsed"
    assert [r["unparsed"] for r in rows] == [str(int(e)) for e in expected]
    lines = [json.loads(line) for line in _download(owner, f"/s/{entry.uid}/items.jsonl").splitlines()]
    assert [r["unparsed"] for r in lines] == [int(e) for e in expected]
    whole = Client().get("/b/mmau/test-mini/leaderboard.json").json()
    assert whole["rows"][0]["entry"]["parsing"] == shown
    board_csv = list(csv.DictReader(io.StringIO(_download(Client(), "/b/mmau/test-mini/leaderboard.csv"))))
    site = [r for r in board_csv if r["source"] == "site"]
    assert [(r["model_name"], r["unparsed_answers"], r["answers"]) for r in site] == [("Parsey", str(unparsed), "30")]
    assert all(r["unparsed_answers"] == "" for r in board_csv if r["source"] == "paper")


def test_the_entry_page_names_its_protocol_and_what_the_count_means_next_to_parsed_numbers(
        make_split, alice, django_capture_on_commit_callbacks) -> None:
    refs = mmau_refs(12)
    split = make_split("mmau", "test-mini", refs)
    run = mmau_answers(refs, 5)
    unparsed = sum(_expected(refs, run))
    entry = _scored(alice, split, run, "Mapped", django_capture_on_commit_callbacks)
    text = Client().get(f"/s/{entry.uid}/").content.decode()
    line = text.split('id="parsing"', 1)[1].split("</p>", 1)[0]
    assert "mmau-string-match profile" in line and "no answer mapping" in line
    assert f"{unparsed} of 12 answers not parsed" in line
    assert "GPT-4o" not in line  # no table published with an answer parser yet: nothing said about one

    PublishedResult.objects.create(
        split=split, paper="MMAU authors, 2025, leaderboard", table="parsed", model_name="Another model",
        columns=printed_columns({"key": "music_accuracy", "label": "Music"},
                                parser="GPT-4o answer mapping (unreleased)"),
        metrics={"music_accuracy": 61.0})
    leaderboard_changed(split.pk)
    line = Client().get(f"/s/{entry.uid}/").content.decode().split('id="parsing"', 1)[1].split("</p>", 1)[0]
    assert "GPT-4o answer mapping (unreleased) (MMAU authors)" in line and "not comparable" in line
    assert not re.search(r"\b(?:6[01]|70)(?:\.\d)?%", line)  # no number of the paper's, none invented


def test_a_benchmark_without_a_parser_has_no_parse_column(jamendo_split, alice, jamendo_refs,
                                                           django_capture_on_commit_callbacks, no_bertscore) -> None:
    run = [{"id": r["id"], "prediction": r["answer"]} for r in jamendo_refs]
    entry = _scored(alice, jamendo_split, run, "Words", django_capture_on_commit_callbacks)
    assert 'id="parsed-column"' not in Client().get("/b/jamendo-mt-qa/full/").content.decode()
    board = Client().get("/api/v1/benchmarks/jamendo-mt-qa/full/leaderboard").json()
    assert board["parse_rule"] is None and board["rows"][0]["entry"]["parsing"] is None
    refused = client_for(alice).get(f"/api/v1/submissions/{entry.uid}/items", {"parsed": "no"})
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "parsed"


def test_an_entry_scored_before_counts_were_kept_says_so(make_split, alice, django_capture_on_commit_callbacks) -> None:
    refs = mmau_refs(9)
    split = make_split("mmau", "test-mini", refs)
    entry = _scored(alice, split, mmau_answers(refs, 1), "Old", django_capture_on_commit_callbacks)
    report = dict(entry.report)
    report["diagnostics"] = {k: v for k, v in report["diagnostics"].items() if k != "unparsed"}
    Submission.objects.filter(pk=entry.pk).update(report=report)
    entry.item_scores.update(values={})  # rows of that time had no diag:unparsed
    leaderboard_changed(split.pk)
    cell = _parsed_cell(Client().get("/b/mmau/test-mini/").content, "Old")
    assert "–" in cell and "re-scoring counts them" in cell
    assert Client().get(f"/api/v1/submissions/{entry.uid}").json()["parsing"] is None
    refused = client_for(alice).get(f"/api/v1/submissions/{entry.uid}/items", {"parsed": "no"})
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "not_counted"


# --- hidden-label splits ------------------------------------------------------------------------------------------


def test_hidden_multiple_choice_withholds_the_count_but_lets_the_owner_filter(
        make_split, alice, bob, maintainer, django_capture_on_commit_callbacks) -> None:
    """string_match's parse status is a function of the answer and the public options: the owner may filter by it;
    the count is a diagnostic, withheld from every non-maintainer (docs/hidden-labels.md)."""
    refs = mmau_refs(20)
    split = make_split("mmau", "test", refs, hidden=True)
    run = mmau_answers(refs, 8)
    expected = _expected(refs, run)
    entry = _scored(alice, split, run, "Hidden parse", django_capture_on_commit_callbacks)
    for viewer in (None, bob, alice):
        api = Client() if viewer is None else client_for(viewer)
        parsing = api.get("/api/v1/benchmarks/mmau/test/leaderboard").json()["rows"][0]["entry"]["parsing"]
        assert list(parsing) == ["withheld"] and "maintainers only" in parsing["withheld"]
        browser = Client()
        if viewer is not None:
            browser.force_login(viewer)
        assert "withheld" in _parsed_cell(browser.get("/b/mmau/test/").content, "Hidden parse")
        board_csv = csv.DictReader(io.StringIO(_download(browser, "/b/mmau/test/leaderboard.csv")))
        assert [(r["unparsed_answers"], r["answers"]) for r in board_csv if r["source"] == "site"] == [
            ("withheld", "withheld")]
    owner = client_for(alice)
    assert owner.get(f"/api/v1/submissions/{entry.uid}").json()["parsing"]["withheld"]
    items = owner.get(f"/api/v1/submissions/{entry.uid}/items", {"parsed": "no"}).json()
    assert items["details_visible"] is False and items["parse_filter"] is True
    assert [i["id"] for i in items["items"]] == [r["id"] for r, e in zip(refs, expected) if e]
    assert all("scores" not in i for i in items["items"])
    assert client_for(bob).get(f"/api/v1/submissions/{entry.uid}/items", {"parsed": "no"}).status_code in (403, 404)
    staff = client_for(maintainer).get("/api/v1/benchmarks/mmau/test/leaderboard").json()
    assert staff["rows"][0]["entry"]["parsing"]["unparsed"] == sum(expected)
    staff_csv = csv.DictReader(io.StringIO(_download(client_for(maintainer), "/b/mmau/test/leaderboard.csv")))
    assert [r["unparsed_answers"] for r in staff_csv if r["source"] == "site"] == [str(sum(expected))]


def test_hidden_label_task_keeps_the_parse_status_from_the_owner(
        make_split, alice, maintainer, django_capture_on_commit_callbacks) -> None:
    """CMI-Bench's label rule reads the file's label set (the references): on a hidden split whether an answer
    names exactly one label is gold, so the owner gets neither the count nor the filter."""
    refs = [{"id": f"clip{i}", "question": "Which genre?", "answer": GENRES[i % len(GENRES)]} for i in range(20)]
    split = make_split("cmi-gtzan", "test", refs, hidden=True)
    rng = random.Random(4)
    run = [{"id": r["id"], "prediction": rng.choice([r["answer"], "rock and roll with blues", "no idea",
                                                     f"It is {rng.choice(GENRES)}."])} for r in refs]
    entry = _scored(alice, split, run, "Genre", django_capture_on_commit_callbacks)
    owner = client_for(alice)
    items = owner.get(f"/api/v1/submissions/{entry.uid}/items").json()
    assert items["parse_filter"] is False and all("unparsed" not in i for i in items["items"])
    refused = owner.get(f"/api/v1/submissions/{entry.uid}/items", {"parsed": "no"})
    assert refused.status_code == 403 and refused.json()["error"]["field"] == "parsed"
    labels = {g.replace(" ", "") for g in GENRES}
    expected = [sum(label in p["prediction"].replace(" ", "").lower() for label in labels) != 1 for p in run]
    staff = client_for(maintainer)
    assert staff.get(f"/api/v1/submissions/{entry.uid}").json()["parsing"]["unparsed"] == sum(expected)
    shown = staff.get(f"/api/v1/submissions/{entry.uid}/items", {"parsed": "no"}).json()
    assert [i["id"] for i in shown["items"]] == [r["id"] for r, e in zip(refs, expected) if e]
