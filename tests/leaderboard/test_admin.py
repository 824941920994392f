"""Maintainers' admin: importing references (validated first), hiding and re-scoring entries."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from leaderboard.models import Split, Status, Submission
from leaderboard.services.references.benchmarks import benchmark_create_from_spec
from tests.helpers.datagen import dialbgm_predictions, jamendo_references
from tests.helpers.site import upload

pytestmark = pytest.mark.django_db


def _admin(maintainer) -> Client:
    maintainer.is_superuser = True  # the admin needs model permissions besides is_staff
    maintainer.save()
    client = Client()
    client.force_login(maintainer)
    return client


def _jsonl(records) -> SimpleUploadedFile:
    return SimpleUploadedFile("refs.jsonl", "".join(json.dumps(r) + "\n" for r in records).encode())


def test_maintainer_imports_references_and_sees_every_problem(maintainer, alice):
    benchmark_create_from_spec(name="jamendo-mt-qa")
    split = Split.objects.get(benchmark__name="jamendo-mt-qa", name="full")
    url = f"/admin/leaderboard/split/{split.pk}/references/"
    bad = jamendo_references(3)
    bad[1]["qa_type"] = 5
    bad[2]["answer"] = None
    response = _admin(maintainer).post(url, {"references": _jsonl(bad)})
    assert response.status_code == 200
    page = response.content.decode()
    assert "refs.jsonl:2: qa_type: qa_type must be a string" in page
    assert "refs.jsonl:3: answer: required field" in page
    split.refresh_from_db()
    assert split.n_items == 0
    # what evaluate.py accepts is imported with its semantics, each a warning with its line
    odd = jamendo_references(4)
    odd[1]["qa_type"] = "essay"  # left out
    odd[2]["answer"] = ""  # counted, always wrong
    ok = _admin(maintainer).post(url, {"references": _jsonl(odd)}, follow=True)
    assert ok.redirect_chain[-1][1] == 302
    page = ok.content.decode()
    assert "1 reference item(s) with an unknown qa_type, left out (as evaluate.py)" in page
    assert "refs.jsonl:3: answer: warning: the gold answer is empty" in page.lower()  # the admin capitalises
    split.refresh_from_db()
    assert split.n_items == 11 and split.items.count() == 11
    assert Client().get(url).status_code == 302  # not a maintainer: sent to the login page
    alice_client = Client()
    alice_client.force_login(alice)
    assert alice_client.get(url).status_code == 302


def test_maintainer_hides_and_rescores_from_the_admin(maintainer, alice, dialbgm_split, dialbgm_refs,
                                                      django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)], model_name="Moderated")
    submission = Submission.objects.get(uid=response.json()["id"])
    client = _admin(maintainer)
    changelist = "/admin/leaderboard/submission/"
    client.post(changelist, {"action": "hide", "_selected_action": [submission.pk], "index": 0})
    assert Client().get("/api/v1/benchmarks/dialbgm/test/leaderboard").json()["rows"] == []
    with django_capture_on_commit_callbacks(execute=True):
        client.post(changelist, {"action": "rescore", "_selected_action": [submission.pk], "index": 0})
    submission.refresh_from_db()
    assert submission.status == Status.SCORED and submission.hidden


def _shown_data(page) -> dict[str, object]:
    """What a browser sends back from an admin change page left as it is: its form and inline forms' values."""
    forms = [page.context["adminform"].form]
    for inline in page.context["inline_admin_formsets"]:
        forms += [inline.formset.management_form, *inline.formset.forms]
    data: dict[str, object] = {}
    for form in forms:
        for field in form:
            value = field.value()
            if value is not None and value is not False:
                data[field.html_name] = "on" if value is True else value
    return data


@pytest.mark.parametrize("form", ["split", "benchmark"])
def test_hiding_labels_in_an_admin_form_keys_the_digests_already_stored(public_mmau_entry, maintainer, form,
                                                                       django_capture_on_commit_callbacks):
    """The split's own form and the benchmark's form (its splits inline) save a split as ``split_save`` does."""
    split, entry = public_mmau_entry
    client = _admin(maintainer)
    url = (f"/admin/leaderboard/split/{split.pk}/change/" if form == "split"
           else f"/admin/leaderboard/benchmark/{split.benchmark_id}/change/")
    data = _shown_data(client.get(url))
    field = next(name for name, value in data.items() if name.endswith("-name") and value == split.name) \
        .removesuffix("name") + "hidden_labels" if form == "benchmark" else "hidden_labels"
    data[field] = "on"
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(url, data).status_code == 302
    split.refresh_from_db()
    assert split.hidden_labels
    signatures = list(entry.metric_values.values_list("signature", flat=True))
    assert signatures and all("gold:hmac-" in s for s in signatures)


def test_hiding_entries_selected_by_not_being_hidden_clears_their_boards(alice, dialbgm_split, dialbgm_refs,
                                                                        django_capture_on_commit_callbacks):
    """A bulk action on a changelist filtered on the field it changes still announces the boards it changed."""
    from leaderboard.services.policy.moderation import submissions_hide

    with django_capture_on_commit_callbacks(execute=True):
        upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)], model_name="Filtered")
    board = "/api/v1/benchmarks/dialbgm/test/leaderboard"
    assert [row["entry"]["model_name"] for row in Client().get(board).json()["rows"]] == ["Filtered"]
    submissions_hide(submissions=Submission.objects.filter(hidden=False))
    assert Client().get(board).json()["rows"] == []
