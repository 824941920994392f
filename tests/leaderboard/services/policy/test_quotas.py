"""/validate needs a login and has a rate and a size cap, and submitting spends no dry run; rejected
uploads are limited and their files removed after the retention time (content shared with a kept
submission stays); a pending submission holds its quota slot until validated; every limit's refusal
is a 429 that says when to retry (message, ``Retry-After``, ``retry_after``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from leaderboard.models import RunFile, Status, Submission
from leaderboard.services.pipeline.retention import rejected_files_purge
from leaderboard.services.shared.blobs import blob_path
from tests.helpers.datagen import dialbgm_predictions
from tests.helpers.limits import FROZEN, assert_retry, at_unix, freeze, window_end
from tests.helpers.site import client_for, upload

pytestmark = pytest.mark.django_db
VALIDATE = "/api/v1/benchmarks/dialbgm/test/validate"


def _jsonl(records: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def test_anonymous_validate_is_refused_before_the_body_is_read(dialbgm_split, dialbgm_refs):
    body = _jsonl(dialbgm_predictions(dialbgm_refs))
    response = Client().post(VALIDATE, {"predictions": SimpleUploadedFile("a.jsonl", body)})
    assert response.status_code == 401 and response.json()["error"]["code"] == "unauthenticated"


def test_validate_works_with_a_session_or_a_token(alice, dialbgm_split, dialbgm_refs):
    body = _jsonl(dialbgm_predictions(dialbgm_refs))
    assert client_for(alice).post(VALIDATE, {"predictions": SimpleUploadedFile("a.jsonl", body)}).json()["valid"]
    session = Client()
    session.force_login(alice)
    assert session.post(VALIDATE, {"predictions": SimpleUploadedFile("a.jsonl", body)}).json()["valid"]


def test_validate_has_a_size_cap_and_a_rate_limit_that_says_when_to_retry(alice, bob, dialbgm_split, dialbgm_refs,
                                                                         settings, monkeypatch):
    body = _jsonl(dialbgm_predictions(dialbgm_refs))
    settings.LIMITS = {**settings.LIMITS, "DRY_RUN_MAX_BYTES": len(body) - 1, "DRY_RUNS_PER_HOUR": 2}
    big = client_for(alice).post(VALIDATE, {"predictions": SimpleUploadedFile("a.jsonl", body)})
    assert big.status_code == 413 and big.json()["error"]["code"] == "dry_run_too_large"
    assert "submit the files instead" in big.json()["error"]["message"]
    settings.LIMITS = {**settings.LIMITS, "DRY_RUN_MAX_BYTES": 10_000_000}
    freeze(monkeypatch)
    client = client_for(bob)
    for _ in range(2):
        assert client.post(VALIDATE, {"predictions": SimpleUploadedFile("a.jsonl", body)}).status_code == 200
    limited = client.post(VALIDATE, {"predictions": SimpleUploadedFile("a.jsonl", body)})
    assert limited.json()["error"]["code"] == "rate_limited"
    end, now = window_end(FROZEN, 3600), at_unix(FROZEN)
    assert_retry(limited, end, now, json_body=True)
    assert limited.json()["error"]["message"].startswith(
        "at most 2 dry runs per hour (clock hours, UTC); try again in 23 min, at 2026-11-27 15:00 UTC")
    page = Client()
    page.force_login(bob)
    form = page.post("/submit/", {"split": "dialbgm/test", "dry_run": "1",
                                  "predictions": SimpleUploadedFile("a.jsonl", body)})
    assert b"dry runs per hour (clock hours, UTC)" in form.content
    assert_retry(form, end, now, json_body=False)
    freeze(monkeypatch, end.timestamp())  # the next hour: allowed again
    assert client.post(VALIDATE, {"predictions": SimpleUploadedFile("a.jsonl", body)}).status_code == 200


def test_submitting_spends_no_dry_run(alice, dialbgm_split, dialbgm_refs, settings, monkeypatch,
                                      django_capture_on_commit_callbacks):
    settings.LIMITS = {**settings.LIMITS, "DRY_RUNS_PER_HOUR": 1}
    freeze(monkeypatch)
    body = _jsonl(dialbgm_predictions(dialbgm_refs))
    client = client_for(alice)
    assert client.post(VALIDATE, {"predictions": SimpleUploadedFile("a.jsonl", body)}).status_code == 200
    assert client.post(VALIDATE, {"predictions": SimpleUploadedFile("a.jsonl", body)}).status_code == 429
    with django_capture_on_commit_callbacks(execute=True):
        assert upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)], model_name="After").status_code == 201
    assert Submission.objects.get(model_name="After").status == Status.SCORED


def test_invalid_and_failed_submissions_have_their_own_limit(alice, dialbgm_split, settings,
                                                           django_capture_on_commit_callbacks):
    settings.LIMITS = {**settings.LIMITS, "REJECTED_PER_DAY": 2}
    for n in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            assert upload(alice, dialbgm_split, [b"not json\n"], model_name=f"Bad {n}").status_code == 201
    assert Submission.objects.filter(status=Status.INVALID).count() == 2
    refused = upload(alice, dialbgm_split, [b"not json\n"], model_name="Bad 3")
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rejected_limit"
    assert Submission.objects.count() == 2


def _lifts_at(times: list[datetime], limit: int) -> datetime:
    """The first moment fewer than ``limit`` of ``times`` lie in the 24 hours before it."""
    for moment in sorted(t + timedelta(days=1) for t in times):
        if sum(1 for t in times if t > moment - timedelta(days=1)) < limit:
            return moment
    raise AssertionError("never over the limit")


def test_the_rejected_limit_says_when_it_lifts(alice, bob, dialbgm_split, settings, monkeypatch):
    settings.LIMITS = {**settings.LIMITS, "REJECTED_PER_DAY": 2}
    now = datetime(2026, 11, 27, 14, 37, 20, 250_000, tzinfo=UTC)
    ages = {"Bad 1": timedelta(hours=23, minutes=50), "Bad 2": timedelta(hours=5, seconds=30.5),
            "Bad 3": timedelta(hours=1), "Old": timedelta(hours=30)}
    for name in ages:  # waiting for validation until marked below
        assert upload(alice, dialbgm_split, [b"not json\n"], model_name=name).status_code == 201
    for name, age in ages.items():
        Submission.objects.filter(model_name=name).update(status=Status.INVALID, created_at=now - age)
    Submission.objects.filter(model_name="Bad 3").update(status=Status.FAILED)
    monkeypatch.setattr(timezone, "now", lambda: now)
    refused = upload(alice, dialbgm_split, [b"{}\n"], model_name="Next")
    at = _lifts_at([now - age for name, age in ages.items() if name != "Old"], 2)
    assert at == now + timedelta(hours=18, minutes=59, seconds=29.5)
    assert_retry(refused, at, now, json_body=True)
    assert refused.json()["error"]["message"].startswith("3 invalid or failed submissions in the last 24 hours")
    assert upload(bob, dialbgm_split, [b"{}\n"], model_name="Bob's").status_code == 201  # per user


def test_retention_removes_rejected_files_but_keeps_content_shared_with_a_kept_run(
        alice, dialbgm_split, dialbgm_refs, django_capture_on_commit_callbacks):
    good = _jsonl(dialbgm_predictions(dialbgm_refs))
    with django_capture_on_commit_callbacks(execute=True):
        scored = upload(alice, dialbgm_split, [good], model_name="Good").json()
        old_invalid = upload(alice, dialbgm_split, [b"old garbage\n"], model_name="Old bad").json()
        shared = upload(alice, dialbgm_split, [good, b"{}\n"], model_name="Shares a run").json()
        recent = upload(alice, dialbgm_split, [b"recent garbage\n"], model_name="Recent bad").json()
    statuses = dict(Submission.objects.values_list("model_name", "status"))
    assert statuses == {"Good": Status.SCORED, "Old bad": Status.INVALID, "Shares a run": Status.INVALID,
                        "Recent bad": Status.INVALID}
    Submission.objects.filter(uid__in=[old_invalid["id"], shared["id"]]).update(
        updated_at=timezone.now() - timedelta(days=8))

    def paths(uid: str) -> list[Any]:
        return [blob_path(sha) for sha in RunFile.objects.filter(submission__uid=uid).values_list("sha256", flat=True)]

    assert all(p.exists() for uid in (scored["id"], old_invalid["id"], shared["id"], recent["id"]) for p in paths(uid))
    result = rejected_files_purge()
    assert result == {"removed": 2, "bytes": len(b"old garbage\n") + len(b"{}\n"), "kept_shared": 1}
    assert not any(p.exists() for p in paths(old_invalid["id"]))
    kept_good, removed_other = paths(shared["id"])
    assert kept_good.exists() and not removed_other.exists()  # the scored entry's content stays
    assert all(p.exists() for p in paths(scored["id"]) + paths(recent["id"]))
    assert rejected_files_purge() == {"removed": 0, "bytes": 0, "kept_shared": 1}  # nothing left to do


def test_pending_submissions_hold_quota_until_validated_and_the_refusal_says_when_a_slot_frees(
        alice, dialbgm_split, dialbgm_refs, settings, django_capture_on_commit_callbacks):
    from leaderboard.services.pipeline import steps as pipeline

    settings.LEADERBOARD = {**settings.LEADERBOARD, "DAILY_QUOTA": 2}
    first, second = (upload(alice, dialbgm_split, [b"not json\n"], model_name=f"Waiting {n}") for n in (1, 2))
    assert first.status_code == second.status_code == 201  # on_commit not run: both wait for validation
    oldest = Submission.objects.get(uid=first.json()["id"])
    Submission.objects.filter(pk=oldest.pk).update(created_at=timezone.now() - timedelta(hours=20))
    refused = upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)], model_name="Third")
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "quota_exceeded"
    message = refused.json()["error"]["message"]
    frees = (timezone.now() + timedelta(hours=4)).strftime("%Y-%m-%d %H:")  # the minute may turn meanwhile
    assert "2 of yours still wait for validation, and each found invalid frees its slot" in message
    assert f"the next slot frees in 4 h 0 min, at {frees}" in message and message.endswith("UTC at the latest")
    assert 4 * 3600 - 60 < int(refused["Retry-After"]) == refused.json()["error"]["retry_after"] <= 4 * 3600
    pipeline.submission_validate(oldest.pk)  # invalid: its slot is free
    assert Submission.objects.get(pk=oldest.pk).status == Status.INVALID
    with django_capture_on_commit_callbacks(execute=False):
        accepted = upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)], model_name="Third")
    assert accepted.status_code == 201
    refused = upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)], model_name="Fourth")
    assert refused.status_code == 429 and "2 of yours still wait" in refused.json()["error"]["message"]
