"""Every error under /api/ has the documented JSON shape, whatever produced it."""

from __future__ import annotations

import logging

import pytest
from django.test import Client

from tests.helpers.api_shape import assert_api_error
from tests.helpers.site import client_for

pytestmark = pytest.mark.django_db


def test_unknown_benchmark_is_a_json_404_naming_the_field(dialbgm_split):
    error = assert_api_error(Client().get("/api/v1/benchmarks/no-such-benchmark"), 404, "unknown_benchmark")
    assert error["field"] == "benchmark" and "dialbgm" in error["message"]


@pytest.mark.parametrize("path", [
    "/api/v1/submissions/not-a-uuid",
    "/api/v1/submissions/not-a-uuid/items",
    "/api/v1/nothing/here",
    "/api/",
    "/api/v1/benchmarks/",  # trailing slash: not a route
])
def test_unknown_routes_and_malformed_ids_are_json_404s(db, path):
    error = assert_api_error(Client().get(path), 404, "not_found")
    assert path in error["message"] and "/api/v1/openapi.json" in error["message"]


def test_unknown_submission_id_is_a_json_404(db):
    assert_api_error(Client().get("/api/v1/submissions/00000000-0000-0000-0000-000000000000"), 404, "not_found")


@pytest.mark.parametrize(("method", "path", "allowed"), [
    ("get", "/api/v1/benchmarks/dialbgm/test/submissions", "POST"),
    ("get", "/api/v1/benchmarks/dialbgm/test/validate", "POST"),
    ("put", "/api/v1/benchmarks", "GET"),
    ("delete", "/api/v1/benchmarks/dialbgm/test/leaderboard", "GET"),
])
def test_wrong_method_is_a_json_405_listing_the_allowed_ones(dialbgm_split, method, path, allowed):
    response = getattr(Client(), method)(path)
    error = assert_api_error(response, 405, "method_not_allowed")
    assert response["Allow"] == allowed and allowed in error["message"]


def test_token_routes_keep_their_own_errors(alice, dialbgm_split):
    response = Client().post("/api/v1/benchmarks/dialbgm/test/submissions", {"model_name": "x"})
    assert_api_error(response, 401, "unauthenticated")
    bad = Client(HTTP_AUTHORIZATION="Token nope").get("/api/v1/benchmarks")
    assert_api_error(bad, 401, "invalid_token")
    assert client_for(alice).get("/api/v1/benchmarks").status_code == 200


def test_unhandled_exception_is_a_json_500_without_internals(dialbgm_split, monkeypatch, caplog):
    def explode(*args, **kwargs):
        raise RuntimeError("secret internals /srv/app/x.py")

    monkeypatch.setattr("leaderboard.views.api.leaderboards.build", explode)
    with caplog.at_level(logging.ERROR, logger="django.request"):
        response = Client(raise_request_exception=False).get("/api/v1/benchmarks/dialbgm/test/leaderboard")
    error = assert_api_error(response, 500, "internal_error")
    assert "secret" not in response.content.decode() and error["field"] is None
    assert any("secret internals" in str(r.exc_info[1]) for r in caplog.records if r.exc_info), "not logged"


def test_pages_outside_the_api_keep_html_errors(db):
    response = Client().get("/no-such-page/")
    assert response.status_code == 404 and not response["Content-Type"].startswith("application/json")


@pytest.mark.parametrize(("query", "field"), [
    ("entry=bogus", "entry"), ("sort=no_such_metric", "sort"), ("input=banana", "input")])
def test_leaderboard_refuses_parameters_it_would_ignore(dialbgm_split, query, field):
    error = assert_api_error(Client().get(f"/api/v1/benchmarks/dialbgm/test/leaderboard?{query}"), 400)
    assert error["field"] == field


def test_leaderboard_accepts_every_documented_parameter(dialbgm_split):
    for query in ("entry=latest", "sort=mrr", "input=summary", "sort=hit_at_1&entry=best"):
        assert Client().get(f"/api/v1/benchmarks/dialbgm/test/leaderboard?{query}").status_code == 200, query
    assert Client().get("/api/v1/benchmarks/dialbgm/test/heatmap?metric=mrr").status_code == 200
    assert_api_error(Client().get("/api/v1/benchmarks/dialbgm/test/heatmap?entry=nope"), 400, "invalid_parameter")


@pytest.mark.parametrize(("body", "field", "code"), [
    ({"model_name": "M", "organisation": True}, "organisation", "wrong_type"),
    ({"model_name": {"a": 1}}, "model_name", "wrong_type"),
    ({"model_name": "M", "input": 3}, "input", "wrong_type"),
    ({"model_name": "M\x00"}, "model_name", "invalid_text"),
    ({"model_name": "M", "paper_url": "https://x.org/" + "a" * 300}, "paper_url", "too_long"),
])
def test_json_upload_fields_of_the_wrong_kind_are_400s_not_500s(alice, dialbgm_split, body, field, code):
    body = {**body, "predictions": '{"id": "dlg-0", "ranking": ["a", "b"]}\n'}
    response = client_for(alice).post("/api/v1/benchmarks/dialbgm/test/submissions", body,
                                      content_type="application/json")
    assert assert_api_error(response, 400, code)["field"] == field


def test_lone_surrogate_in_a_json_field_is_refused(alice, dialbgm_split):
    raw = b'{"model_name": "M\\ud800", "predictions": "{}"}'
    response = client_for(alice).post("/api/v1/benchmarks/dialbgm/test/submissions", raw,
                                      content_type="application/json")
    assert assert_api_error(response, 400, "invalid_text")["field"] == "model_name"


def test_form_field_with_nul_is_refused_before_the_database(alice, dialbgm_split):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client_for(alice).post("/api/v1/benchmarks/dialbgm/test/submissions", {
        "model_name": "Bad\x00name", "predictions": SimpleUploadedFile("r.jsonl", b'{"id": "x"}\n')})
    assert assert_api_error(response, 400, "invalid_text")["field"] == "model_name"


def test_items_explorer_refuses_runs_and_pages_that_do_not_exist(alice, dialbgm_split, dialbgm_refs):
    from tests.helpers.datagen import dialbgm_predictions
    from tests.helpers.site import upload

    uid = upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs, seed=1)], model_name="M").json()["id"]
    url = f"/api/v1/submissions/{uid}/items"
    assert Client().get(f"{url}?run=1&page=1").status_code == 200
    for query, status, field in (("run=9", 404, "run"), ("page=999", 404, "page"), ("page=true", 400, "page"),
                                 ("run=-1", 400, "run"), ("run=99999999999999999999", 400, "run"),
                                 ("q=%00", 400, "q")):
        assert assert_api_error(Client().get(f"{url}?{query}"), status)["field"] == field, query


def test_a_json_body_over_the_request_limit_names_the_limit_and_the_file_upload(alice, dialbgm_split, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
    settings.LEADERBOARD = {**settings.LEADERBOARD, "MAX_UPLOAD_BYTES": 100 * 1024 * 1024}
    body = {"model_name": "M", "predictions": '{"id": "dlg-0", "ranking": ["a", "b"]}\n' * 70_000}
    response = client_for(alice).post("/api/v1/benchmarks/dialbgm/test/submissions", body,
                                      content_type="application/json")
    error = assert_api_error(response, 413, "too_large")
    assert error["message"] == ("the request body is over 2 MB, the limit for a body without files; send the "
                                "predictions as files (multipart/form-data, up to 100 MB a file)")


def test_a_form_with_too_many_fields_says_how_many_are_accepted(alice, dialbgm_split, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    response = client_for(alice).post("/api/v1/benchmarks/dialbgm/test/submissions",
                                      {f"field{i}": "x" for i in range(8)})
    assert assert_api_error(response, 400, "bad_request")["message"] == (
        "the request has more than 5 fields (form fields or query parameters)")
