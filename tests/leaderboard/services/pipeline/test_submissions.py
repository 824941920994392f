"""Uploads through the API, the pipeline's outcome, bad inputs and the quota (PostgreSQL, Redis)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from leaderboard.models import ItemScore, MetricValue, RunFile, Status, Submission
from leaderboard.services.shared.blobs import blob_root
from scoring import ScoringOptions, score_files
from tests.helpers.datagen import dialbgm_predictions, jamendo_predictions, write_jsonl
from tests.helpers.reports import assert_same_values
from tests.helpers.site import upload

pytestmark = pytest.mark.django_db


def _library_report(benchmark: str, refs: list[dict], runs: list[list[dict]], tmp_path: Path) -> dict[str, Any]:
    ref_path = write_jsonl(refs, tmp_path / "refs.jsonl")
    paths = [write_jsonl(run, tmp_path / f"run{i}.jsonl") for i, run in enumerate(runs)]
    from django.conf import settings

    options = ScoringOptions(n_bootstrap=settings.LEADERBOARD["BOOTSTRAP_REPLICATES"])
    return score_files(benchmark, ref_path, paths, options).as_json()


@pytest.mark.slow
def test_api_upload_is_scored_with_the_librarys_numbers(alice, jamendo_split, jamendo_refs, tmp_path,
                                                         django_capture_on_commit_callbacks):
    runs = [jamendo_predictions(jamendo_refs, seed=s) for s in (1, 2)]
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, jamendo_split, runs, model_name="Model A", type="Multi")
    assert response.status_code == 201, response.content
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.SCORED, submission.status_detail
    expected = _library_report("jamendo-mt-qa", jamendo_refs, runs, tmp_path)
    assert_same_values(submission.report["metrics"], expected["metrics"])
    assert_same_values(submission.report["ci95"], expected["ci95"])
    assert_same_values(submission.report["std"], expected["std"])  # BERTScore to 1e-6, whatever was batched before
    assert submission.report["signatures"] == expected["signatures"]
    stored = {v.key: v.value for v in MetricValue.objects.filter(submission=submission, current=True)}
    assert_same_values(stored, expected["metrics"])
    assert ItemScore.objects.filter(submission=submission).count() == 2 * len(jamendo_refs)
    assert submission.progress_done == submission.progress_total == 2 * len(jamendo_refs)
    assert submission.settings == {"type": "Multi"}


def test_ranking_upload_matches_library(alice, dialbgm_split, dialbgm_refs, tmp_path,
                                        django_capture_on_commit_callbacks):
    run = dialbgm_predictions(dialbgm_refs, skill=0.6)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, dialbgm_split, [run], model_name="Ranker")
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.SCORED
    assert submission.report["metrics"] == _library_report("dialbgm", dialbgm_refs, [run], tmp_path)["metrics"]


def test_json_body_upload(alice, dialbgm_split, dialbgm_refs, django_capture_on_commit_callbacks):
    from tests.helpers.site import client_for

    text = "".join(json.dumps(r) + "\n" for r in dialbgm_predictions(dialbgm_refs))
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(alice).post(
            "/api/v1/benchmarks/dialbgm/test/submissions",
            data=json.dumps({"model_name": "JSON body", "predictions": text}), content_type="application/json")
    assert response.status_code == 201, response.content
    assert Submission.objects.get(uid=response.json()["id"]).status == Status.SCORED


BAD_FILES = {
    "not_json": b'{"id": "x", "prediction": "fine"}\nthis is not json\n',
    "empty_file": b"",
    "binary_file": gzip.compress(b"some bytes" * 100),
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_bad_file_is_invalid_with_a_specific_problem(kind, alice, jamendo_split,
                                                     django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, jamendo_split, [BAD_FILES[kind]], model_name="Bad")
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.INVALID
    assert kind in submission.problem_counts
    assert all({"file", "line", "field", "kind", "message"} <= set(p) for p in submission.problems)
    _assert_nothing_scored(submission)


def test_schema_duplicate_and_unknown_ids_are_each_reported(alice, jamendo_split, jamendo_refs,
                                                            django_capture_on_commit_callbacks):
    preds = jamendo_predictions(jamendo_refs)
    preds[0] = {"id": preds[0]["id"], "prediction": 42}  # wrong type
    preds[1] = dict(preds[2])  # duplicate id (and item 1 missing)
    preds.append({"id": "no-such-item", "prediction": "x"})
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, jamendo_split, [preds], model_name="Bad schema")
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.INVALID
    assert {"wrong_type", "duplicate_id", "unknown_id", "missing_item"} <= set(submission.problem_counts)
    by_kind = {p["kind"]: p for p in submission.problems}
    assert by_kind["wrong_type"]["line"] == 1 and by_kind["wrong_type"]["field"] == "prediction"
    assert by_kind["duplicate_id"]["line"] == 3 and "line 2" in by_kind["duplicate_id"]["message"]
    assert by_kind["unknown_id"]["line"] == len(preds)
    _assert_nothing_scored(submission)


def test_predictions_for_another_benchmark_say_so(alice, jamendo_split, dialbgm_refs,
                                                  django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, jamendo_split, [dialbgm_predictions(dialbgm_refs)], model_name="Wrong")
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.INVALID
    assert "wrong_benchmark" in submission.problem_counts
    message = next(p["message"] for p in submission.problems if p["kind"] == "wrong_benchmark")
    assert "ranking" in message and "jamendo-mt-qa" in message


def test_unknown_benchmark_or_split_is_a_404_listing_valid_names(alice, jamendo_split):
    from tests.helpers.site import client_for

    client = client_for(alice)
    response = client.post("/api/v1/benchmarks/no-such/full/submissions", {"model_name": "x"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "unknown_benchmark"
    assert "jamendo-mt-qa" in response.json()["error"]["message"]
    response = client.post("/api/v1/benchmarks/jamendo-mt-qa/nope/submissions", {"model_name": "x"})
    assert response.status_code == 404 and "full" in response.json()["error"]["message"]


def test_oversized_upload_is_refused_before_anything_is_stored(alice, jamendo_split, settings):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "MAX_UPLOAD_BYTES": 1024 * 1024}
    big = b'{"id": "x", "prediction": "' + b"a" * (2 * 1024 * 1024) + b'"}\n'
    blobs_before = _blob_count()
    response = upload(alice, jamendo_split, [big], model_name="Huge")
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "file_too_large"
    assert Submission.objects.count() == 0 and RunFile.objects.count() == 0
    assert _blob_count() == blobs_before


def test_request_larger_than_any_allowed_upload_is_refused_from_its_length(alice, jamendo_split):
    from tests.helpers.site import client_for

    response = client_for(alice).generic(
        "POST", "/api/v1/benchmarks/jamendo-mt-qa/full/submissions", data=b"x",
        content_type="multipart/form-data; boundary=zzz", CONTENT_LENGTH=str(10 * 1024**3))
    assert response.status_code == 413
    assert "limit" in response.json()["error"]["message"]
    assert Submission.objects.count() == 0


@pytest.mark.slow
def test_invalid_and_failed_do_not_count_against_the_quota(alice, jamendo_split, jamendo_refs, settings,
                                                           django_capture_on_commit_callbacks):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "DAILY_QUOTA": 2}
    for _ in range(4):
        with django_capture_on_commit_callbacks(execute=True):
            assert upload(alice, jamendo_split, [b"not json\n"], model_name="Bad").status_code == 201
    Submission.objects.filter(status=Status.INVALID).update(status=Status.FAILED)
    for i in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            ok = upload(alice, jamendo_split, [jamendo_predictions(jamendo_refs)], model_name=f"Good {i}")
        assert ok.status_code == 201
    refused = upload(alice, jamendo_split, [jamendo_predictions(jamendo_refs)], model_name="Third")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "quota_exceeded"
    assert Submission.objects.filter(model_name="Third").count() == 0


def test_dry_run_stores_nothing_and_costs_no_quota(alice, jamendo_split, jamendo_refs, settings):
    from tests.helpers.site import client_for

    settings.LEADERBOARD = {**settings.LEADERBOARD, "DAILY_QUOTA": 1}
    client = client_for(alice)
    blobs_before = _blob_count()
    bad = client.post("/api/v1/benchmarks/jamendo-mt-qa/full/validate",
                      {"predictions": _file(b'{"id": 1}\n')})
    assert bad.status_code == 200 and bad.json()["valid"] is False
    assert bad.json()["problems"][0]["field"] == "id"
    good = client.post("/api/v1/benchmarks/jamendo-mt-qa/full/validate",
                       {"predictions": _file(_jsonl(jamendo_predictions(jamendo_refs)))})
    assert good.json() == {"valid": True, "problem_count": 0, "problem_counts": {}, "problems": [],
                           "warning_counts": {}, "warning_summary": [], "warnings": []}
    assert Submission.objects.count() == 0 and _blob_count() == blobs_before


def test_writes_need_a_valid_token(jamendo_split):
    from django.test import Client

    assert Client().post("/api/v1/benchmarks/jamendo-mt-qa/full/submissions").status_code == 401
    bad = Client(HTTP_AUTHORIZATION="Token nope").post("/api/v1/benchmarks/jamendo-mt-qa/full/submissions")
    assert bad.status_code == 401 and bad.json()["error"]["code"] == "invalid_token"


@pytest.mark.slow
def test_uploaded_bytes_are_kept_by_content_hash(alice, jamendo_split, jamendo_refs,
                                                 django_capture_on_commit_callbacks):
    data = _jsonl(jamendo_predictions(jamendo_refs))
    with django_capture_on_commit_callbacks(execute=True):
        first = Submission.objects.get(uid=upload(alice, jamendo_split, [data], model_name="A").json()["id"])
        second = Submission.objects.get(uid=upload(alice, jamendo_split, [data], model_name="B").json()["id"])
    sha = first.runs.get().sha256
    assert second.runs.get().sha256 == sha
    import hashlib

    stored = (blob_root() / sha[:2] / sha).read_bytes()
    assert stored == data and hashlib.sha256(stored).hexdigest() == sha


def _assert_nothing_scored(submission: Submission) -> None:
    assert not ItemScore.objects.filter(submission=submission).exists()
    assert not MetricValue.objects.filter(submission=submission).exists()


def _blob_count() -> int:
    root = blob_root()
    return sum(1 for p in root.rglob("*") if p.is_file()) if root.exists() else 0


def _jsonl(records: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def _file(data: bytes) -> Any:
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("p.jsonl", data)


@pytest.mark.slow
def test_chunks_without_sentence_items_keep_corpus_bleu_equal_to_the_library(
        alice, make_split, jamendo_refs, tmp_path, settings, django_capture_on_commit_callbacks):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 10}
    order = {"yes_no": 0, "short_answer": 1, "sentence": 2}
    by_type = sorted(jamendo_refs, key=lambda r: order[r["qa_type"]])  # first chunks hold no sentence item
    split = make_split("jamendo-mt-qa", "full", by_type)
    run = jamendo_predictions(by_type)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, split, [run], model_name="Sorted by type")
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.SCORED, submission.status_detail
    expected = _library_report("jamendo-mt-qa", by_type, [run], tmp_path)
    assert submission.report["metrics"]["bleu"] is not None
    assert_same_values(submission.report["metrics"], expected["metrics"])
