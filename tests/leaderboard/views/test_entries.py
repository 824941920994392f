"""An entry's page states only what is true of the entry (invalid, scored, public), keeps what its owner
typed when an edit is refused, and lands on its message; the token page shows a new key once."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from leaderboard.models import ApiToken, Status, Submission
from tests.helpers.boards import make_entry
from tests.helpers.site import upload

pytestmark = pytest.mark.django_db


def _session(user: object) -> Client:
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    return client


@pytest.fixture
def invalid(alice, jamendo_split, jamendo_refs, django_capture_on_commit_callbacks) -> Submission:
    lines = [json.dumps({"id": r["id"], "prediction": r["answer"]}) for r in jamendo_refs]
    lines[0] = json.dumps({"id": jamendo_refs[0]["id"], "prediction": ""})  # a warning: scored as empty
    lines[3] = '{"id": "' + jamendo_refs[3]["id"] + '", "prediction": 7}'  # an error: not text
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, jamendo_split, ["\n".join(lines).encode() + b"\n"], model_name="Broken",
                          organisation="", type="Multi")
    found = Submission.objects.get(uid=response.json()["id"])
    assert found.status == Status.INVALID, found.status_detail
    return found


def test_an_invalid_entry_offers_resubmission_not_publication(alice, invalid):
    Submission.objects.filter(pk=invalid.pk).update(warning_counts={"empty_prediction": 1})  # kept beside errors
    page = _session(alice).get(f"/s/{invalid.uid}/").content.decode()
    assert "Now public" not in page and "listed on the leaderboard" not in page
    assert 'id="visibility-form"' not in page and 'id="withdraw-form"' not in page
    assert 'id="warnings"' in page and "Scored, as the publishers" not in page and "Nothing was scored" in page
    resubmit = re.search(r'<p id="resubmit">(.*?)</p>', page, re.S)[1]  # type: ignore[index]
    assert "was not scored" in resubmit and 'href="/submit/?split=jamendo-mt-qa/full"' in resubmit
    meta = re.search(r'<p class="meta">(.*?)</p>', page, re.S)[1]  # type: ignore[index]
    assert "· ·" not in meta and "·  ·" not in meta


def test_a_scored_entry_says_public_and_listed(alice, dialbgm_split):
    entry = make_entry(dialbgm_split, alice, "Listed", {"hit_at_1": 0.5}, organisation="")
    page = _session(alice).get(f"/s/{entry.uid}/").content.decode()
    assert "Now public: listed on the leaderboard." in page and 'id="withdraw-form"' in page
    assert 'id="resubmit"' not in page
    meta = re.search(r'<p class="meta">(.*?)</p>', page, re.S)[1]  # type: ignore[index]
    assert "· ·" not in meta and meta.count("·") == 1  # board link · submitted date


def test_a_refused_edit_keeps_what_the_owner_typed_and_lands_on_the_message(alice, dialbgm_split):
    entry = make_entry(dialbgm_split, alice, "Original", {"hit_at_1": 0.5}, organisation="Lab")
    client = _session(alice)
    typed = {"action": "metadata", "model_name": "Renamed model", "organisation": "New Lab",
             "paper_url": "ftp://example.org/paper", "code_url": "", "parameters": "7B", "open_weights": "yes",
             "description": "A long description the owner wrote."}
    response = client.post(f"/s/{entry.uid}/manage", typed)
    assert response.status_code == 302 and response["Location"] == f"/s/{entry.uid}/#edit-paper_url"
    page = client.get(response["Location"]).content.decode()
    assert re.search(r'<ul class="messages" id="messages" tabindex="-1" role="status"><li class="banner error">'
                     r'Not saved: paper url must be an http:// or https:// address\.</li>', page)
    assert '<details id="metadata-edit" open>' in page
    for value in ("Renamed model", "New Lab", "ftp://example.org/paper", "7B"):
        assert f'value="{value}"' in page, value
    assert 'id="edit-paper_url" name="paper_url" type="url" value="ftp://example.org/paper" maxlength="200" ' \
           'placeholder="https://" aria-invalid="true" aria-describedby="edit-error" autofocus> <span class="error" ' \
           'id="edit-error">Not saved: paper url must be an http:// or https:// address.</span>' in page
    assert ">A long description the owner wrote.</textarea>" in page
    assert '<option value="yes" selected>yes</option>' in page
    entry.refresh_from_db()
    assert entry.model_name == "Original" and entry.organisation == "Lab"
    again = client.get(f"/s/{entry.uid}/").content.decode()  # shown once: a reload shows the stored values
    assert 'value="Original"' in again and "Renamed model" not in again and "<details id=\"metadata-edit\">" in again
    saved = client.post(f"/s/{entry.uid}/manage", {**typed, "paper_url": "https://example.org/p"})
    assert saved["Location"] == f"/s/{entry.uid}/#messages"
    done = client.get(saved["Location"]).content.decode()
    assert '<li class="banner success">Saved:' in done
    entry.refresh_from_db()
    assert entry.model_name == "Renamed model" and entry.paper_url == "https://example.org/p"


def test_reloading_the_token_page_creates_no_second_token(alice):
    client = _session(alice)
    created = client.post("/accounts/tokens/", {"name": "ci"})
    assert created.status_code == 302 and created["Location"] == "/accounts/tokens/"
    shown = client.get("/accounts/tokens/")
    key = re.search(r'<code id="new-token">([^<]+)</code>', shown.content.decode())[1]  # type: ignore[index]
    assert key.startswith("mlb_") and "no-store" in shown["Cache-Control"]
    reloaded = client.get("/accounts/tokens/").content.decode()
    assert key not in reloaded and 'id="new-token"' not in reloaded
    assert ApiToken.objects.filter(user=alice).count() == 1


def test_ranks_under_a_search_are_the_whole_boards(alice, dialbgm_split):
    for name, hit in (("Top", 0.9), ("Second", 0.7), ("Third Search", 0.5)):
        make_entry(dialbgm_split, alice, name, {"hit_at_1": hit})
    client = Client()
    plain = client.get("/b/dialbgm/test/").content.decode()
    assert "Rank in this view" not in plain and 'id="rank-scope"' not in plain
    searched = client.get("/b/dialbgm/test/?q=search").content.decode()
    assert "Rank in this view" not in searched
    assert '<strong id="rank-scope">Ranks are the whole leaderboard\'s</strong>' in searched
    api = client.get("/api/v1/benchmarks/dialbgm/test/leaderboard?q=search").json()
    assert api["rank_scope"] == "whole leaderboard" and api["rows"][0]["rank"] == 3
    assert client.get("/api/v1/benchmarks/dialbgm/test/leaderboard").json()["rank_scope"] == "whole leaderboard"
