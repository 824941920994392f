"""One table of submission field rules: the same limit, link rule and text cleaning on the upload form,
the API, the owner's edit and the OpenAPI schema."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from leaderboard.models import EntryChange, Submission
from leaderboard.services.openapi import openapi_schema
from leaderboard.services.policy.submission_fields import FIELD_RULES
from tests.helpers.api_shape import assert_api_error
from tests.helpers.boards import make_entry
from tests.helpers.datagen import dialbgm_predictions
from tests.helpers.site import upload

pytestmark = pytest.mark.django_db

LIMITED = ["model_name", "organisation", "description", "paper_url", "code_url", "parameters"]
EXPECTED_LIMITS = {"model_name": 200, "organisation": 200, "description": 5000, "paper_url": 200, "code_url": 200,
                   "parameters": 50}  # docs/submitting.md
BIDI = "\u202eevil\u202c \u2066name\u2069"


def _login(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _over(name: str) -> str:
    limit = EXPECTED_LIMITS[name]
    return "https://x.org/" + "a" * (limit - 13) if name.endswith("_url") else "x" * (limit + 1)


def _at(name: str) -> str:
    limit = EXPECTED_LIMITS[name]
    return "https://x.org/" + "a" * (limit - 14) if name.endswith("_url") else "x" * limit


def test_the_table_holds_the_documented_limits_and_the_columns_agree():
    assert {name: FIELD_RULES[name].max_length for name in LIMITED} == EXPECTED_LIMITS
    for name in LIMITED:
        column = Submission._meta.get_field(name).max_length
        assert column is None or column == EXPECTED_LIMITS[name], name  # description is a TextField


def test_openapi_reads_the_limits_from_the_table():
    schemas = openapi_schema()["paths"]["/api/v1/benchmarks/{benchmark}/{split}/submissions"]["post"]["requestBody"]
    for media in ("multipart/form-data", "application/json"):
        properties = schemas["content"][media]["schema"]["properties"]
        assert {name: properties[name]["maxLength"] for name in LIMITED} == EXPECTED_LIMITS, media
        assert properties["open_weights"] == {"type": "boolean"} and properties["private"] == {"type": "boolean"}


@pytest.mark.parametrize("name", LIMITED)
def test_the_api_refuses_one_character_over_the_limit_and_takes_the_limit(alice, dialbgm_split, dialbgm_refs, name):
    run = dialbgm_predictions(dialbgm_refs, seed=1)
    metadata = {"model_name": "M", name: _over(name)}
    error = assert_api_error(upload(alice, dialbgm_split, [run], **metadata), 400, "too_long")
    assert error["field"] == name and f"{EXPECTED_LIMITS[name] + 1:,} characters" in error["message"]
    assert f"at most {EXPECTED_LIMITS[name]:,}" in error["message"]
    response = upload(alice, dialbgm_split, [run], **{"model_name": "M", name: _at(name)})
    assert response.status_code == 201, response.content
    assert Submission.objects.get().__dict__[name] == _at(name)


@pytest.mark.parametrize("name", LIMITED)
def test_the_upload_form_has_the_limit_and_refuses_past_it(alice, dialbgm_split, dialbgm_refs, name):
    page = _login(alice)
    form = page.get("/submit/?split=dialbgm/test").content.decode()
    tag = re.search(rf'<(?:input|textarea)[^>]*name="{name}"[^>]*>', form)
    assert tag and f'maxlength="{EXPECTED_LIMITS[name]}"' in tag.group(0), name
    body = "".join(json.dumps(r) + "\n" for r in dialbgm_predictions(dialbgm_refs, seed=1))
    refused = page.post("/submit/", {"split": "dialbgm/test", "model_name": "M", name: _over(name),
                                     "predictions": SimpleUploadedFile("r.jsonl", body.encode())})
    text = html.unescape(refused.content.decode())
    assert refused.status_code == 400 and f"<strong>{name}:</strong> {name} is" in text
    assert f"at most {EXPECTED_LIMITS[name]:,} are allowed" in text
    assert Submission.objects.count() == 0


@pytest.mark.parametrize("name", LIMITED)
def test_the_owners_edit_has_the_limit_and_refuses_past_it(alice, dialbgm_split, name):
    entry = make_entry(dialbgm_split, alice, "Old Name", {"ndcg_at_4": 0.7})
    owner = _login(alice)
    page = owner.get(f"/s/{entry.uid}/").content.decode()
    tag = re.search(rf'<(?:input|textarea)[^>]*name="{name}"[^>]*>', page)
    assert tag and f'maxlength="{EXPECTED_LIMITS[name]}"' in tag.group(0), name
    refused = owner.post(f"/s/{entry.uid}/manage", {"action": "metadata", "model_name": "Old Name", name: _over(name)},
                         follow=True)
    label = name.replace("_", " ")
    assert f"Not saved: {label} is longer than {EXPECTED_LIMITS[name]} characters." in html.unescape(
        refused.content.decode())
    taken = owner.post(f"/s/{entry.uid}/manage", {"action": "metadata", "model_name": "Old Name", name: _at(name)},
                       follow=True)
    assert "Saved:" in taken.content.decode()
    entry.refresh_from_db()
    assert getattr(entry, name) == _at(name)


def test_the_owners_edit_strips_bidi_controls_as_the_upload_does(alice, dialbgm_split, dialbgm_refs,
                                                                 django_capture_on_commit_callbacks):
    uploaded = upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs, seed=1)], model_name=BIDI,
                      organisation=BIDI, description=BIDI, parameters="\u202e7B")
    assert uploaded.status_code == 201, uploaded.content
    created = uploaded.json()
    assert [created[k] for k in ("model_name", "organisation", "parameters")] == ["evil name", "evil name", "7B"]
    entry = make_entry(dialbgm_split, alice, "Plain", {"ndcg_at_4": 0.7})
    with django_capture_on_commit_callbacks(execute=True):
        _login(alice).post(f"/s/{entry.uid}/manage", {"action": "metadata", "model_name": BIDI, "organisation": BIDI,
                                                      "description": BIDI, "parameters": "\u202e7B"}, follow=True)
    entry.refresh_from_db()
    stored = Submission.objects.get(uid=uploaded.json()["id"])
    for name in ("model_name", "organisation", "description", "parameters"):
        assert getattr(entry, name) == getattr(stored, name), name
    assert (entry.model_name, entry.description, entry.parameters) == ("evil name", "evil name", "7B")
    api = _login(alice).get(f"/api/v1/submissions/{entry.uid}").json()
    assert api["model_name"] == "evil name" and api["organisation"] == "evil name"
    change = EntryChange.objects.get(submission=entry)
    assert change.detail["model_name"] == ["Plain", "evil name"]


def test_an_edit_refuses_a_link_that_is_not_http_as_the_upload_does(alice, dialbgm_split, dialbgm_refs):
    run = dialbgm_predictions(dialbgm_refs, seed=1)
    error = assert_api_error(upload(alice, dialbgm_split, [run], model_name="M", paper_url="javascript:x"), 400,
                             "invalid_url")
    assert error == {"code": "invalid_url", "field": "paper_url",
                     "message": "paper_url must be an http:// or https:// URL"}
    entry = make_entry(dialbgm_split, alice, "Plain", {"ndcg_at_4": 0.7})
    page = _login(alice).post(f"/s/{entry.uid}/manage", {"action": "metadata", "model_name": "Plain",
                                                          "paper_url": "javascript:x"}, follow=True)
    assert "Not saved: paper url must be an http:// or https:// address." in html.unescape(page.content.decode())
    entry.refresh_from_db()
    assert entry.paper_url == ""
