"""Real-shaped runs through the site: warnings stored and shown, numbers equal to the CLI's and to
evaluate.py's, what the database cannot hold refused at validation, missing items counted."""

from __future__ import annotations

import json
import math
import os
import stat

import pytest

from leaderboard.models import Split, Status, Submission
from leaderboard.services.references.benchmarks import benchmark_create_from_spec, split_import_references
from scoring import ProblemLog
from scoring.cli import main
from scoring.publishers.importers import import_jamendo
from tests.helpers.evaluate_py import evaluate_py, evaluate_py_records, write_records
from tests.helpers.site import client_for, upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def evaluate_py_split(tmp_path):
    """A split imported from a file in evaluate.py's record format, out of a read-only folder."""
    records = evaluate_py_records()
    folder = tmp_path / "maintainer-data"
    folder.mkdir()
    path = write_records(records, folder / "questions.jsonl")
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    split, _ = Split.objects.get_or_create(benchmark=benchmark_create_from_spec(name="jamendo-mt-qa"), name="full")
    log = ProblemLog()
    try:
        count = split_import_references(split=split, path=path, source_format="jamendo", log=log)
    finally:
        folder.chmod(stat.S_IRWXU)
    assert os.listdir(folder) == ["questions.jsonl"]  # nothing written next to the input
    assert count == len(records) - 1
    assert dict(log.warning_counts) == {"empty_gold_answer": 2, "unknown_qa_type": 1}
    assert [(w.file, w.line) for w in log.warnings][-1] == ("questions.jsonl", len(records))
    split.refresh_from_db()
    return split, records, path


@pytest.mark.slow
def test_blank_and_long_answers_are_scored_like_the_cli_and_evaluate_py(
        alice, evaluate_py_split, tmp_path, capsys, settings, django_capture_on_commit_callbacks):
    split, records, path = evaluate_py_split
    _, predictions = import_jamendo(path)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, split, [predictions], model_name="Real run", type="Multi")
    assert response.status_code == 201, response.content
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.SCORED, submission.status_detail
    assert submission.warning_counts == {"blank_prediction": 3, "empty_prediction": 2, "null_prediction": 1}
    assert ("run1.jsonl", 6, "prediction", "warning") in {
        (w["file"], w["line"], w["field"], w["severity"]) for w in submission.warnings}

    run = tmp_path / "run1.jsonl"
    run.write_text("".join(json.dumps(p) + "\n" for p in predictions))
    assert main(["score", "--benchmark", "jamendo-mt-qa", "--references", str(path), "--references-format",
                 "jamendo", "--predictions", str(run), "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"]),
                 "--no-bertscore"]) == 0  # site == library with BERTScore: test_submissions.py
    cli = json.loads(capsys.readouterr().out)
    site = dict(submission.report["metrics"])
    assert site.pop("bertscore_f1") is not None
    assert site == cli["metrics"] and submission.report["ci95"]["bleu"] == cli["ci95"]["bleu"]
    assert cli["warnings"]["counts"] == {**submission.warning_counts, "empty_gold_answer": 2, "unknown_qa_type": 1}
    for key, value in evaluate_py(records).items():
        assert math.isclose(submission.report["metrics"][key], value, rel_tol=0, abs_tol=1e-9), key

    api = client_for(alice).get(f"/api/v1/submissions/{submission.uid}").json()
    assert api["warning_counts"] == submission.warning_counts
    assert "2 empty prediction(s), scored as the publisher scores them" in api["warning_summary"]
    assert len(api["warnings"]) == 6
    page = client_for(alice).get(f"/s/{submission.uid}/").content.decode()
    assert "2 empty prediction(s), scored as the publisher scores them" in page
    assert "3 whitespace-only prediction(s), scored as the publisher scores them" in page
    assert "run1.jsonl:6</code> <code>prediction</code>" in page


def _with_line_5(jamendo_refs: list[dict], escaped: str) -> bytes:
    lines = [json.dumps({"id": r["id"], "prediction": "fine"}) for r in jamendo_refs]
    lines[4] = '{"id": "' + jamendo_refs[4]["id"] + '", "prediction": "bad ' + escaped + ' text"}'
    return "\n".join(lines).encode() + b"\n"


def test_text_the_database_cannot_hold_is_invalid_not_a_failure(
        alice, jamendo_split, jamendo_refs, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, jamendo_split, [_with_line_5(jamendo_refs, "\\ud83d")], model_name="Surrogate")
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.INVALID
    bad = [p for p in submission.problems if p["kind"] == "unstorable_text"]
    assert [(p["file"], p["line"], p["field"]) for p in bad] == [("run1.jsonl", 5, "prediction")]
    assert "lone surrogate (U+D83D)" in bad[0]["message"]


def test_a_nul_in_an_answer_is_removed_with_a_warning_and_the_entry_scored(
        alice, jamendo_split, jamendo_refs, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, jamendo_split, [_with_line_5(jamendo_refs, "\\u0000")], model_name="NUL")
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.SCORED, submission.status_detail
    (nul,) = [w for w in submission.warnings if w["kind"] == "nul_removed"]
    assert (nul["file"], nul["line"], nul["field"]) == ("run1.jsonl", 5, "prediction")
    stored = submission.item_scores.get(run=1, index=4).prediction
    assert stored["prediction"] == "bad  text"  # as scored: the NUL removed


def test_missing_items_stay_an_error_with_count_and_first_ids(
        alice, jamendo_split, jamendo_refs, django_capture_on_commit_callbacks):
    kept = [{"id": r["id"], "prediction": "yes"} for i, r in enumerate(jamendo_refs) if i % 4]
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice, jamendo_split, [kept], model_name="Partial")
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.INVALID
    missing = [r["id"] for i, r in enumerate(jamendo_refs) if i % 4 == 0]
    (problem,) = submission.problems
    assert submission.problem_counts == {"missing_item": len(missing)}
    assert problem["message"].startswith(
        f"{len(missing)} of {len(jamendo_refs)} items have no prediction in run1.jsonl: "
        + ", ".join(f'"{i}"' for i in missing[:10]) + " (first 10 listed)")


def test_dry_run_answers_valid_with_warnings(alice, jamendo_split, jamendo_refs):
    body = "".join(json.dumps({"id": r["id"], "prediction": "" if i < 3 else None if i == 3 else "no"}) + "\n"
                   for i, r in enumerate(jamendo_refs))
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client_for(alice).post("/api/v1/benchmarks/jamendo-mt-qa/full/validate",
                                      {"predictions": SimpleUploadedFile("run.jsonl", body.encode())})
    data = response.json()
    assert response.status_code == 200 and data["valid"] is True, data
    assert data["warning_counts"] == {"empty_prediction": 3, "null_prediction": 1}
    assert [(w["line"], w["kind"]) for w in data["warnings"]] == [
        (1, "empty_prediction"), (2, "empty_prediction"), (3, "empty_prediction"), (4, "null_prediction")]


def test_benchmark_page_says_why_official_bertscore_is_batch_invariant(client, db):
    benchmark_create_from_spec(name="musicqa")
    page = client.get("/b/musicqa/").content.decode()
    assert "The official BERTScore columns are batch-invariant" in page
    assert "<code>bertscore-batched</code>" in page
    benchmark_create_from_spec(name="dialbgm")
    assert "batch-invariant" not in client.get("/b/dialbgm/").content.decode()
