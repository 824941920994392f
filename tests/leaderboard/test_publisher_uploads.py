"""Uploads and dry runs of the publishers' own files and of hostile input: what the publishers score is
scored with warnings, every refusal names file, line and field, nothing answers 500, and metadata is
never coerced (a yes/no field with another value, an unknown setting key, the true size of a dry run)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Status, Submission
from leaderboard.services.pipeline.submissions import quota_used
from scoring.publishers.mcq_importers import import_mmau_references
from tests.helpers.publisher_files import mmau_items, released_mmau_accuracy
from tests.helpers.site import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def mmau(make_split: Any, tmp_path: Any) -> tuple[Any, list[dict[str, Any]]]:
    items = mmau_items(30, seed=4)
    gold = [{k: v for k, v in item.items() if k != "model_output"} for item in items]
    for item in gold[:3]:  # spaces around options, as 6 test-mini items have
        item["choices"] = [f" {c} " for c in item["choices"]]
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(gold), encoding="utf-8")
    return make_split("mmau", "test-mini", import_mmau_references(path)), items


def _post(user: Any, split: Any, data: bytes, route: str = "submissions", **fields: Any) -> Any:
    url = f"/api/v1/benchmarks/{split.benchmark.name}/{split.name}/{route}"
    return client_for(user).post(url, {**fields, "predictions": [SimpleUploadedFile("run.json", data)]})


def _named(problems: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(p["file"], p["line"], p["kind"], p["field"], p["message"]) for p in problems]


def _uploaded(user: Any, split: Any, data: bytes, capture: Any) -> Submission:
    with capture(execute=True):
        response = _post(user, split, data, model_name="M")
    assert response.status_code == 201, response.content
    return Submission.objects.get(uid=response.json()["id"])


def test_publisher_array_is_scored_as_the_publisher_scores_it(alice, mmau, django_capture_on_commit_callbacks):
    split, items = mmau
    items[0]["model_output"] = items[0]["answer"] + " " * 25_000  # over 20,000 characters, right
    items[1]["model_output"] = None
    items[2]["model_output"] = ""
    for item in items:  # the publisher's file: options without the gold file's surrounding spaces
        item["choices"] = [c.strip() for c in item["choices"]]
    repeated = [*items, {**items[5], "model_output": f" {items[5]['model_output']} "}]
    data = b"\xef\xbb\xbf" + json.dumps(repeated).encode()
    submission = _uploaded(alice, split, data, django_capture_on_commit_callbacks)
    assert submission.status == Status.SCORED, (submission.status_detail, submission.problems)
    scored = [{**item, "model_output": item["model_output"] or ""} for item in items]
    assert submission.report["metrics"]["accuracy"] == pytest.approx(released_mmau_accuracy(scored), abs=1e-9)
    counts = submission.warning_counts
    assert counts["null_prediction"] == 1 and counts["repeated_item"] == 1
    assert counts["empty_prediction"] == sum(1 for i in items if i["model_output"] == "")


def test_unstorable_text_upload_is_invalid_naming_item_and_field(alice, mmau,
                                                                 django_capture_on_commit_callbacks) -> None:
    split, items = mmau
    what = "a lone surrogate (U+D83C)"
    items[2]["model_output"] = "PLACEHOLDER"
    data = json.dumps(items).replace('"PLACEHOLDER"', '"piano \\ud83c"').encode()
    submission = _uploaded(alice, split, data, django_capture_on_commit_callbacks)
    assert submission.status == Status.INVALID
    assert _named(submission.problems) == [
        ("run.json", 3, "unstorable_text", "model_output", f"model_output contains {what}, which cannot be stored; "
         "remove it")]
    dry = _post(alice, split, data, route="validate").json()
    assert dry["valid"] is False and dry["problems"] == submission.problems


def test_a_nul_in_an_upload_is_removed_and_the_answer_scored(alice, mmau, django_capture_on_commit_callbacks) -> None:
    split, items = mmau
    answer = items[2]["model_output"]
    items[2]["model_output"] = "PLACEHOLDER"
    data = json.dumps(items).replace('"PLACEHOLDER"', json.dumps(answer + "\x00")).encode()
    submission = _uploaded(alice, split, data, django_capture_on_commit_callbacks)
    assert submission.status == Status.SCORED, submission.status_detail
    assert submission.warning_counts["nul_removed"] == 1
    items[2]["model_output"] = answer
    assert submission.report["metrics"]["accuracy"] == pytest.approx(released_mmau_accuracy(items), abs=1e-9)


DEEP = {
    "line of 200,000 brackets": ("[" * 200_000 + "]" * 200_000 + "\n").encode(),
    "array nested 50,000 deep": (b'[{"id": "x"},\n' + b"[" * 50_000 + b"]" * 50_000 + b"]"),
}


@pytest.mark.parametrize("shape", list(DEEP))
def test_deep_nesting_is_invalid_naming_the_line_and_uses_no_quota(alice, mmau, shape,
                                                                   django_capture_on_commit_callbacks) -> None:
    split, _ = mmau
    line = 1 if shape.startswith("line") else 2
    dry = _post(alice, split, DEEP[shape], route="validate")
    assert dry.status_code == 200
    assert _named(dry.json()["problems"]) == [("run.json", line, "too_deep", None, "JSON nesting is too deep")]
    submission = _uploaded(alice, split, DEEP[shape], django_capture_on_commit_callbacks)
    assert submission.status == Status.INVALID, submission.status_detail
    assert submission.problems == dry.json()["problems"]
    assert quota_used(alice, split) == 0


def test_json_body_nested_too_deep_is_a_400_naming_the_line(alice, mmau) -> None:
    assert mmau  # the split exists
    body = '{"model_name": "M",\n"predictions": ' + "[" * 100_000 + "]" * 100_000 + "}"
    for route in ("submissions", "validate"):
        response = client_for(alice).post(f"/api/v1/benchmarks/mmau/test-mini/{route}", body,
                                          content_type="application/json")
        assert response.status_code == 400, response.content
        assert response.json()["error"]["code"] == "too_deep"
        assert response.json()["error"]["message"] == "request body, line 2: JSON nesting is too deep"
    assert Submission.objects.count() == 0
    jsonl = json.dumps({"model_name": "M", "predictions": ['{"id": "x"}\n' + "[" * 200_000 + "]" * 200_000]})
    dry = client_for(alice).post("/api/v1/benchmarks/mmau/test-mini/validate", jsonl, content_type="application/json")
    assert dry.status_code == 200
    assert ("run-1.jsonl", 2, "too_deep", None, "JSON nesting is too deep") in _named(dry.json()["problems"])


# --- metadata is never coerced ----------------------------------------------------------------------


@pytest.mark.parametrize(("field", "value"), [("private", "2"), ("open_weights", "maybe"), ("private", "public")])
def test_yes_no_fields_with_other_values_are_refused_naming_the_field(alice, mmau, field, value) -> None:
    split, items = mmau
    for route in ("submissions", "validate"):
        response = _post(alice, split, json.dumps(items).encode(), route=route, model_name="M", **{field: value})
        assert response.status_code == 400, response.content
        assert response.json()["error"]["field"] == field
        assert response.json()["error"]["code"] == "invalid_value"
    assert Submission.objects.count() == 0


@pytest.mark.parametrize(("value", "stored"), [("1", True), ("true", True), ("on", True), ("0", False),
                                               ("false", False), ("", False)])
def test_private_accepts_the_usual_yes_no_spellings(alice, mmau, value, stored) -> None:
    split, items = mmau
    response = _post(alice, split, json.dumps(items).encode(), model_name="M", private=value)
    assert response.status_code == 201, response.content
    assert Submission.objects.get(uid=response.json()["id"]).is_private is stored


def test_unknown_setting_keys_are_refused_naming_the_key(alice, jamendo_split, jamendo_refs) -> None:
    run = "".join(json.dumps({"id": r["id"], "prediction": "yes"}) + "\n" for r in jamendo_refs).encode()
    for route in ("submissions", "validate"):
        response = _post(alice, jamendo_split, run, route=route, model_name="M", typ="Multi")
        assert response.status_code == 400, response.content
        error = response.json()["error"]
        assert error["code"] == "unknown_field" and error["field"] == "typ"
        assert "'typ' is neither a submission field nor a setting of jamendo-mt-qa" in error["message"]
    assert Submission.objects.count() == 0


def test_dry_run_size_error_states_the_true_size(alice, mmau, settings) -> None:
    split, _ = mmau
    data = b" " * 11_090_000
    response = _post(alice, split, data, route="validate")
    assert response.status_code == 413
    assert "at most 10 MB in the request (11.09 MB sent)" in response.json()["error"]["message"]


# --- Jamendo-MT-QA records as evaluate.py reads them -------------------------------------------------


@pytest.mark.slow
def test_jamendo_records_import_with_warnings_and_uploads_score_as_evaluate_py(
        alice, db, tmp_path, settings, django_capture_on_commit_callbacks) -> None:
    from leaderboard.models import Split
    from leaderboard.services.references.benchmarks import benchmark_create_from_spec, split_import_references
    from scoring import ProblemLog
    from tests.helpers.evaluate_py import evaluate_py
    from tests.helpers.jamendo_records import jamendo_records

    settings.LEADERBOARD = {**settings.LEADERBOARD, "BERTSCORE": False}  # evaluate.py's default, too
    records = jamendo_records()
    path = tmp_path / "results.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    split, _ = Split.objects.get_or_create(benchmark=benchmark_create_from_spec(name="jamendo-mt-qa"),
                                           name="full", defaults={"title": "full"})
    log = ProblemLog()
    assert split_import_references(split=split, path=path, source_format="jamendo", log=log) == len(records) - 1
    assert log.warning_counts == {"derived_pair_id": len(records), "empty_gold_answer": 1, "unknown_qa_type": 1,
                                  "empty_question": 1}
    assert [w.line for w in log.warnings if w.kind == "empty_question"] == [5]
    run = [{"id": f"{r['audio1']}__{r['audio2']}::{r['qa_type']}", "prediction": r["prediction"] or ""}
           for r in records if r["qa_type"] is not None]
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(alice).post("/api/v1/benchmarks/jamendo-mt-qa/full/submissions", {
            "model_name": "M", "predictions": [SimpleUploadedFile(
                "run.jsonl", "".join(json.dumps(r) + "\n" for r in run).encode())]})
    assert response.status_code == 201, response.content
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.SCORED, (submission.status_detail, submission.problems)
    for key, value in evaluate_py(records).items():
        assert submission.report["metrics"][key] == pytest.approx(value, abs=1e-9), key
