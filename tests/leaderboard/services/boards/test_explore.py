"""The per-item explorer: filters, sorts, text search and honest errors, on the API and the page."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from leaderboard.models import ItemScore, Submission
from leaderboard.services.references.signatures import split_save
from tests.helpers.datagen import dialbgm_predictions, dialbgm_references, jamendo_predictions, jamendo_references
from tests.helpers.fixtures import module_rows, rows_fresh, split_create, user_create
from tests.helpers.site import bertscore_off, on_commit_run, upload
from tests.leaderboard.services.boards.test_compare import _check_scored, _scored

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="class")
def entries_rows(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[dict[str, Any]]:
    """One scored entry per benchmark, uploaded once for the tests of a class that only read them."""
    folder = tmp_path_factory.mktemp("explore")
    dialbgm_refs, jamendo_refs = dialbgm_references(60, seed=3), jamendo_references(40, seed=3)
    with module_rows(django_db_blocker), bertscore_off():
        alice = user_create("alice")
        dialbgm_split = split_create("dialbgm", "test", dialbgm_refs, folder)
        jamendo_split = split_create("jamendo-mt-qa", "full", jamendo_refs, folder)
        jam_run = jamendo_predictions(jamendo_refs, seed=2, noise=0.4)
        with on_commit_run():
            dial = _scored(upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs, seed=4),
                                                         dialbgm_predictions(dialbgm_refs, seed=5)], model_name="D"))
            jam = _scored(upload(alice, jamendo_split, [jam_run], model_name="J", type="Multi"))
        _check_scored(dial, jam)
        yield {"dial": dial, "jam": jam, "jam_run": jam_run, "alice": alice}


@pytest.fixture
def entries(entries_rows, db) -> dict[str, Any]:
    return rows_fresh(entries_rows)


def _all(client: Client, entry: Submission, query: str) -> list[dict[str, Any]]:
    items, page = [], 1
    while True:
        data = client.get(f"/api/v1/submissions/{entry.uid}/items?{query}&page={page}").json()
        assert "error" not in data, data
        items += data["items"]
        if page >= data["pages"]:
            return items
        page += 1


class TestOneScoredEntryPerBenchmark:
    """Tests that read one scored DialBGM entry and one Jamendo-MT-QA entry, uploaded once for the class."""

    @pytest.fixture
    def alice(self, entries):
        return entries["alice"]

    def test_filters_and_sorts_on_the_api(self, entries, jamendo_refs, dialbgm_refs):
        client = Client()
        jam = entries["jam"]
        by_id = {r["id"]: r for r in jamendo_refs}
        predicted = {r["id"]: r["prediction"] for r in entries["jam_run"]}

        yes_no = _all(client, jam, "qa_type=yes_no")
        assert [i["id"] for i in yes_no] == [r["id"] for r in jamendo_refs if r["qa_type"] == "yes_no"]
        right = _all(client, jam, "qa_type=yes_no&correct=yes")
        wrong = _all(client, jam, "qa_type=yes_no&correct=no")
        assert [i["id"] for i in right] == [r["id"] for r in jamendo_refs
                                            if r["qa_type"] == "yes_no" and predicted[r["id"]] == r["answer"]]
        assert len(right) + len(wrong) == len(yes_no) and right and wrong

        questions = _all(client, jam, "q=faster+than")  # text in the inputs (the yes/no questions)
        assert {i["id"] for i in questions} == {r["id"] for r in jamendo_refs if "faster than" in r["question"]}
        nul = client.get(f"/api/v1/submissions/{jam.uid}/items?q=%00")  # refused by name, not a server error
        assert nul.status_code == 400 and nul.json()["error"]["field"] == "q"
        assert [i["id"] for i in _all(client, jam, "q=Track3A")] == [r["id"] for r in jamendo_refs
                                                                        if "Track3A" in r["id"]]

        dial = entries["dial"]
        ranked = _all(client, dial, "sort=-mrr")
        values = [i["scores"]["mrr"] for i in ranked]
        assert values == sorted(values, reverse=True) and len(ranked) == len(dialbgm_refs)
        assert [i["index"] for i in _all(client, dial, "sort=mrr")] == [
            i["index"] for i in sorted(ranked, key=lambda i: (i["scores"]["mrr"], i["index"]))]
        run2 = _all(client, dial, "run=2&metric=ndcg_at_4&min=0.5&max=0.9")
        stored = ItemScore.objects.filter(submission=dial, run=2)
        expected = sorted(r.index for r in stored if 0.5 <= r.values["ndcg_at_4"] <= 0.9)
        assert [i["index"] for i in run2] == expected and expected
        assert by_id  # the references are the ones uploaded against

    @pytest.mark.parametrize("query, status, code", [
        ("run=9", 404, "unknown_run"), ("page=999", 404, "no_such_page"), ("run=x", 400, "not_a_number"),
        ("run=99999999999", 400, "not_a_number"),
        ("qa_type=poem", 400, "unknown_value"), ("sort=banana", 400, "unknown_metric"),
        ("min=0.2", 400, "unknown_metric"), ("correct=maybe", 400, "unknown_value"),
        ("metric=bleu&min=nan", 400, "not_a_number"), ("metric=bleu&max=inf", 400, "not_a_number"),
        ("metric=bleu&max=high", 400, "not_a_number"),
    ])
    def test_unanswerable_requests_say_why(self, entries, query, status, code):
        jam = entries["jam"]
        response = Client().get(f"/api/v1/submissions/{jam.uid}/items?{query}")
        assert response.status_code == status
        assert response.json()["error"]["code"] == code
        page = Client().get(f"/s/{jam.uid}/?{query}")
        assert page.status_code == 200
        message = html.unescape(re.search(r'id="items-error">(.*?)</p>', page.content.decode(), re.S)[1])
        assert response.json()["error"]["message"] in message

    def test_page_shows_inputs_in_full_and_rounded_numbers(self, entries, dialbgm_refs, jamendo_refs):
        dial_page = Client().get(f"/s/{entries['dial'].uid}/").content.decode()
        first = dialbgm_refs[0]
        for turn in first["dialogue"]:
            assert f"<li>{html.escape(turn)}</li>" in dial_page
        for candidate in first["candidates"]:
            assert f'<code class="wrap">{candidate}</code>' in dial_page
        assert html.escape(" > ".join(first["gold_ranking"])) in dial_page
        assert not re.search(r"\d\.\d{6,}", dial_page.split('id="item-table"')[1])
        jam_page = Client().get(f"/s/{entries['jam'].uid}/?qa_type=short_answer").content.decode()
        ref = next(r for r in jamendo_refs if r["qa_type"] == "short_answer")
        for text in (ref["audio1"], ref["audio2"], ref["question"]):
            assert html.escape(text) in jam_page
        assert 'id="items-count"' in jam_page and "match these filters" in jam_page

    def test_score_filters_are_for_maintainers_on_hidden_label_splits(self, entries, alice, maintainer):
        entry = entries["jam"]
        entry.split.hidden_labels = True
        split_save(split=entry.split)  # as the admin hides a split's labels: its stored gold digests re-keyed
        owner = Client()
        owner.force_login(alice)
        for query in ("sort=-bleu", "correct=yes", "metric=bleu&min=1"):
            response = owner.get(f"/api/v1/submissions/{entry.uid}/items?{query}")
            assert response.status_code == 403 and response.json()["error"]["code"] == "withheld"
        assert owner.get(f"/api/v1/submissions/{entry.uid}/items?qa_type=yes_no").status_code == 200
        staff = Client()
        staff.force_login(maintainer)
        assert staff.get(f"/api/v1/submissions/{entry.uid}/items?sort=-bleu").status_code == 200

    def test_score_filters_and_sorts_see_only_the_items_their_metric_applies_to(self, entries, jamendo_refs):
        client, jam = Client(), entries["jam"]
        accuracy_types = ("yes_no", "short_answer")
        wrong = _wrong_ids(jamendo_refs, entries["jam_run"], accuracy_types)
        right = {r["id"] for r in jamendo_refs if r["qa_type"] in accuracy_types} - wrong
        sentences = [r["id"] for r in jamendo_refs if r["qa_type"] == "sentence"]
        # a stored row may hold a number for a metric that does not apply to its item (0 where the scorer
        # skipped it): the subset, not the stored value, decides what a score filter sees
        for row in ItemScore.objects.filter(submission=jam):
            row.values = {k: 0.0 if v is None else v for k, v in row.values.items()}
            row.save(update_fields=["values"])
        assert {i["id"] for i in _all(client, jam, "correct=no")} == wrong and wrong
        assert {i["id"] for i in _all(client, jam, "correct=yes")} == right and right
        yes_no_wrong = {i["id"] for i in _all(client, jam, "qa_type=yes_no&correct=no")}
        assert yes_no_wrong == wrong & {r["id"] for r in jamendo_refs if r["qa_type"] == "yes_no"}
        ranged = _all(client, jam, "metric=rouge1&min=0&max=100")
        assert sorted(i["id"] for i in ranged) == sorted(sentences)
        ascending = _all(client, jam, "sort=rougeL")
        assert len(ascending) == len(sentences) and {i["id"] for i in ascending} == set(sentences)
        values = [i["scores"]["rougeL"] for i in ascending]
        assert values == sorted(values)
        page = client.get(f"/s/{jam.uid}/?correct=no&run=1&qa_type=&metric=&min=&max=&sort=&q=").content.decode()
        assert f"{len(wrong)} items match these filters" in page


def _wrong_ids(refs: list[dict[str, Any]], run: list[dict[str, Any]], types: tuple[str, ...]) -> set[str]:
    """Items of the accuracy types whose prediction is not the answer (the test data's only wrong shape)."""
    predicted = {r["id"]: r["prediction"] for r in run}
    return {r["id"] for r in refs if r["qa_type"] in types and predicted[r["id"]].strip() != r["answer"]}


def test_multiple_choice_items_filter_by_correctness_and_category(make_split, alice,
                                                                   django_capture_on_commit_callbacks):
    import random

    from tests.leaderboard.test_mcq_site import _scored, mmau_like

    refs = mmau_like(30)
    split = make_split("mmau", "test-mini", refs)
    rng = random.Random(7)
    run = [{"id": r["id"], "prediction": r["answer"] if rng.random() < 0.6 else
            rng.choice([o for o in r["options"] if o != r["answer"]])} for r in refs]
    entry = _scored(alice, split, run, "MC", django_capture_on_commit_callbacks)
    predicted = {r["id"]: r["prediction"] for r in run}
    wrong = {r["id"] for r in refs if predicted[r["id"]] != r["answer"]}
    music = {r["id"] for r in refs if r["metadata"]["task"] == "music"}
    client = Client()
    assert {i["id"] for i in _all(client, entry, "correct=no")} == wrong and 0 < len(wrong) < 30
    assert {i["id"] for i in _all(client, entry, "correct=yes")} == {r["id"] for r in refs} - wrong
    assert {i["id"] for i in _all(client, entry, "group=task%3Dmusic")} == music
    assert {i["id"] for i in _all(client, entry, "group=task%3Dmusic&correct=no")} == music & wrong
    hard = {r["id"] for r in refs if r["metadata"]["difficulty"] == "hard"}
    assert {i["id"] for i in _all(client, entry, "group=difficulty%3Dhard")} == hard
    by_music = _all(client, entry, "sort=-music_accuracy")  # the music column scores music items only
    assert {i["id"] for i in by_music} == music
    assert [i["scores"]["music_accuracy"] for i in by_music] == sorted(
        (i["scores"]["music_accuracy"] for i in by_music), reverse=True)
    refused = client.get(f"/api/v1/submissions/{entry.uid}/items?group=task%3Dpoetry")
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "group"
    page = client.get(f"/s/{entry.uid}/").content.decode()
    assert '<select name="correct">' in page and '<select name="group">' in page
    # grouped by field, the value as the option's text, the filter as its value
    task = page.split('<optgroup label="task">', 1)[1].split("</optgroup>", 1)[0]
    assert '<option value="task=music">music</option>' in task and "task=music</option>" not in page


def test_empty_predictions_rankings_and_inputs_read_as_submitted(alice, jamendo_split, jamendo_refs, dialbgm_split,
                                                                 dialbgm_refs, no_bertscore,
                                                                 django_capture_on_commit_callbacks):
    from leaderboard.templatetags.explore import inputs_view

    run = jamendo_predictions(jamendo_refs, seed=3)
    blank = {run[i]["id"] for i in (1, 5, 9)}
    for record in run:
        if record["id"] in blank:
            record["prediction"] = "" if record["id"] != run[9]["id"] else "   "
    ranking = [{"id": r["id"], "ranking": list(reversed(r["candidates"]))} for r in dialbgm_refs]
    with django_capture_on_commit_callbacks(execute=True):
        jam = _scored(upload(alice, jamendo_split, [run], model_name="Blanks", type="Multi"))
        dial = _scored(upload(alice, dialbgm_split, [ranking], model_name="Lists"))
    _check_scored(jam, dial)
    client = Client()
    assert {i["id"] for i in _all(client, jam, "q=(empty)")} == blank
    page = client.get(f"/s/{jam.uid}/?q=(empty)").content.decode()
    assert page.count('<td class="text meta">(empty)</td>') == 3 and "3 items match these filters" in page
    assert "<th scope=\"col\">Notes</th>" not in page and "<th scope=\"col\">Judge</th>" not in page
    assert '<span class="meta">Tracks</span>' in page  # two tracks per Jamendo item
    assert inputs_view({"audio": "clip.wav", "question": "What plays?"})["tracks_label"] == "Audio"
    listed = client.get(f"/s/{dial.uid}/").content.decode()
    first = dialbgm_refs[0]
    assert f'<td class="text">{" &gt; ".join(reversed(first["candidates"]))}</td>' in listed
    assert f"{first['candidates'][0]}: 1" not in listed  # no invented scores
