"""Owners control their entries: withdraw (tombstone), public/private, metadata; every change recorded."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client

from leaderboard.models import EntryChange
from tests.helpers.boards import make_entry, page_rows
from tests.helpers.datagen import dialbgm_predictions
from tests.helpers.site import upload
from tests.leaderboard.services.boards.test_compare import _check_scored, _scored

pytestmark = pytest.mark.django_db


def _login(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _board_models(split: Any, client: Client | None = None) -> list[str]:
    response = (client or Client()).get(f"/b/{split.benchmark.name}/{split.name}/")
    return [row["model"] for row in page_rows(response.content)]


@pytest.fixture
def manage(django_capture_on_commit_callbacks: Any) -> Any:
    """POST an owner's action and run what it schedules on commit (the cache version move)."""
    def post(client: Client, entry: Any, **data: str) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(f"/s/{entry.uid}/manage", data, follow=True)

    return post


def test_withdraw_leaves_a_tombstone_for_owner_and_maintainers(alice, bob, maintainer, dialbgm_split, manage):
    entry = make_entry(dialbgm_split, alice, "Withdrawn Ranker", {"ndcg_at_4": 0.7})
    make_entry(dialbgm_split, bob, "Staying Ranker", {"ndcg_at_4": 0.6})
    assert _board_models(dialbgm_split) == ["Withdrawn Ranker", "Staying Ranker"]  # caches the board
    owner = _login(alice)
    assert manage(_login(bob), entry, action="withdraw").status_code == 404  # not bob's
    response = manage(owner, entry, action="withdraw", confirm="1")
    assert b"Withdrawn: the entry is off every leaderboard" in response.content
    assert b'id="tombstone"' in response.content
    for viewer in (None, alice, maintainer):  # off the board at once, for everyone (cache moved)
        assert _board_models(dialbgm_split, _login(viewer) if viewer else Client()) == ["Staying Ranker"]
    api = Client().get(f"/api/v1/benchmarks/dialbgm/{dialbgm_split.name}/leaderboard").json()
    assert [r["entry"]["model_name"] for r in api["rows"]] == ["Staying Ranker"]
    assert Client().get(f"/s/{entry.uid}/").status_code == 404
    assert _login(bob).get(f"/api/v1/submissions/{entry.uid}").status_code == 404
    assert _login(maintainer).get(f"/s/{entry.uid}/").status_code == 200
    assert owner.get(f"/api/v1/submissions/{entry.uid}").json()["withdrawn_at"]
    change = EntryChange.objects.get(submission=entry)
    assert change.action == "withdrawn" and change.user == alice
    again = manage(owner, entry, action="withdraw", confirm="1")
    assert b"Not saved: this entry is already withdrawn" in again.content
    home = Client().get("/").content.decode()
    assert "Withdrawn Ranker" not in home


def test_visibility_switch_is_recorded_and_moves_the_board(alice, dialbgm_split, manage):
    entry = make_entry(dialbgm_split, alice, "Switching Ranker", {"ndcg_at_4": 0.7})
    owner = _login(alice)
    assert _board_models(dialbgm_split) == ["Switching Ranker"]
    page = manage(owner, entry, action="visibility", private="1").content.decode()
    assert "Now private: only you and the maintainers see it." in page
    assert _board_models(dialbgm_split) == []
    assert Client().get(f"/s/{entry.uid}/").status_code == 404
    manage(owner, entry, action="visibility", private="0")
    assert _board_models(dialbgm_split) == ["Switching Ranker"]
    page = Client().get(f"/s/{entry.uid}/").content.decode()
    assert [c.action for c in EntryChange.objects.filter(submission=entry)] == ["made public", "made private"]
    assert page.count("made p") == 2 and 'id="entry-changes"' in page and 'id="entry-controls"' not in page


def test_metadata_edit_checks_each_field_and_records_old_and_new(alice, dialbgm_split, manage):
    entry = make_entry(dialbgm_split, alice, "Old Name", {"ndcg_at_4": 0.7})
    owner = _login(alice)
    fields = {"action": "metadata", "model_name": "New Name", "organisation": "Lab", "paper_url":
              "https://arxiv.org/abs/1", "code_url": "", "parameters": "7B", "open_weights": "yes",
              "description": "A ranker."}
    for field, bad, message in (("paper_url", "javascript:alert(1)", "paper url must be an http"),
                                ("code_url", "ftp://x.org/a", "code url must be an http"),
                                ("model_name", "  ", "the model needs a name"),
                                ("open_weights", "maybe", "open_weights is yes, no or unknown"),
                                ("parameters", "7" * 51, "parameters is longer than 50 characters")):
        page = manage(owner, entry, **{**fields, field: bad}).content.decode()
        assert f"Not saved: {message}" in html.unescape(page), field
    entry.refresh_from_db()
    assert entry.model_name == "Old Name" and not EntryChange.objects.exists()
    page = manage(owner, entry, **fields).content.decode()
    assert "Saved: model_name, organisation, description, paper_url, parameters, open_weights." in page
    entry.refresh_from_db()
    assert (entry.model_name, entry.paper_url, entry.parameters, entry.open_weights) == (
        "New Name", "https://arxiv.org/abs/1", "7B", True)
    change = EntryChange.objects.get(submission=entry)
    assert change.detail["model_name"] == ["Old Name", "New Name"] and change.detail["open_weights"] == [None, True]
    assert "model_name: “Old Name” → “New Name”" in html.unescape(page)
    assert _board_models(dialbgm_split) == ["New Name"]
    assert "Nothing changed." in manage(owner, entry, **fields).content.decode()


def test_my_submissions_shows_main_scores(alice, dialbgm_split, dialbgm_refs, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        entry = _scored(upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)], model_name="Mine"))
    _check_scored(entry)
    page = _login(alice).get("/submissions/").content.decode()
    spec = dialbgm_split.spec
    value = entry.report["metrics"][spec.default_sort]
    metric = spec.profile().metric(spec.default_sort)
    assert f'<span class="meta">{html.escape(metric.label)}</span> {value:.{metric.decimals}f}' in page
