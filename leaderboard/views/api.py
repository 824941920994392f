"""The JSON API: read benchmarks, leaderboards and entries; submit and dry-run validate.

Writes need an API token (``Authorization: Token <key>``). Errors always have
the shape ``{"error": {"code", "message", "field"}}``.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET, require_http_methods

from leaderboard.selectors.benchmarks import (
    benchmark_get_listed_or_refuse,
    benchmark_list_listed,
    benchmark_list_splits,
)
from leaderboard.selectors.splits import split_get_or_refuse
from leaderboard.selectors.submissions import submission_get_visible_or_refuse
from leaderboard.services.boards import heatmaps, leaderboards
from leaderboard.services.boards.items import item_page
from leaderboard.services.pipeline.submissions import (
    SubmissionMetadata,
    submission_create,
    submission_dry_run,
)
from leaderboard.services.policy.quotas import dry_run_check, dry_run_size_check
from leaderboard.services.policy.refusals import Refused
from leaderboard.services.policy.submission_fields import fields_storable
from leaderboard.views.api_params import check_board_params, check_filter_params, check_items_query
from leaderboard.views.api_presenters import benchmark_json, submission_json
from leaderboard.views.auth import api_view
from leaderboard.views.uploads import uploaded_files
from scoring.reading.jsonl import nesting_line


@require_GET
@api_view()
def benchmarks(request: HttpRequest) -> JsonResponse:
    listed = benchmark_list_listed()
    return JsonResponse({"benchmarks": [benchmark_json(b.spec, benchmark_list_splits(b)) for b in listed]})


@require_GET
@api_view()
def benchmark(request: HttpRequest, benchmark: str) -> JsonResponse:
    found = benchmark_get_listed_or_refuse(benchmark)
    return JsonResponse(benchmark_json(found.spec, benchmark_list_splits(found)))


@require_GET
@api_view()
def leaderboard(request: HttpRequest, benchmark: str, split: str) -> JsonResponse:
    found = split_get_or_refuse(benchmark, split)
    check_filter_params(request.GET)
    board = leaderboards.build(found, request.user, request.GET)
    check_board_params(found, request.GET, board.columns)
    return JsonResponse(board.as_json())


@require_GET
@api_view()
def heatmap(request: HttpRequest, benchmark: str, split: str) -> JsonResponse:
    found = split_get_or_refuse(benchmark, split)
    check_filter_params(request.GET)
    board = leaderboards.build(found, request.user, request.GET)
    check_board_params(found, request.GET, board.columns)  # an unknown `metric` falls back to the sort column
    return JsonResponse(heatmaps.heatmaps(found, request.user, request.GET, board=board))


@require_http_methods(["POST"])
@api_view(require_user=True)
def submit(request: HttpRequest, benchmark: str, split: str) -> JsonResponse:
    target = split_get_or_refuse(benchmark, split)
    data, files = _upload_payload(request)
    metadata = SubmissionMetadata.from_data(data, target)
    submission = submission_create(user=request.user, split=target, metadata=metadata, files=files)
    return JsonResponse(submission_json(submission, viewer=request.user), status=201)


@require_http_methods(["POST"])
@api_view(require_user=True)
def validate(request: HttpRequest, benchmark: str, split: str) -> JsonResponse:
    """Dry run: validate without storing anything or using quota (a login, a rate and a size cap)."""
    target = split_get_or_refuse(benchmark, split)
    dry_run_check(user=request.user, files=[], body_length=int(request.headers.get("Content-Length") or 0))
    data, files = _upload_payload(request)
    dry_run_size_check(files=files)  # a body without Content-Length
    problems = submission_dry_run(split=target, files=files, data=data)
    return JsonResponse({
        "valid": not problems,
        "problem_count": problems.total,
        "problem_counts": dict(problems.counts.most_common()),
        "problems": [p.as_dict() for p in problems.problems],
        **problems.warnings_json_fields(),
    })


@require_GET
@api_view()
def submission(request: HttpRequest, uid: str) -> JsonResponse:
    return JsonResponse(submission_json(submission_get_visible_or_refuse(request.user, uid), viewer=request.user))


@require_GET
@api_view()
def submission_items(request: HttpRequest, uid: str) -> JsonResponse:
    found = submission_get_visible_or_refuse(request.user, uid)
    check_items_query(request.GET)
    return JsonResponse(item_page(found, request.user, request.GET))


def _upload_payload(request: HttpRequest) -> tuple[Any, list[Any]]:
    if request.content_type == "application/json":
        data, runs = _json_payload(request)
        fields_storable(data)
        return data, runs
    files = uploaded_files(request)
    fields_storable(request.POST)
    return request.POST, files


def _json_payload(request: HttpRequest) -> tuple[dict[str, Any], list[Any]]:
    try:
        data = json.loads(request.body or b"{}")
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Refused("not_json", f"request body is not JSON: {exc}") from None
    except RecursionError:
        line = nesting_line(request.body.decode("utf-8", "replace"))
        raise Refused("too_deep", f"request body, line {line}: JSON nesting is too deep") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise Refused("not_json", f"request body is not JSON: {str(exc)[:120]}") from None
    if not isinstance(data, dict):
        raise Refused("wrong_type", "request body must be a JSON object")
    runs = data.get("predictions")
    if isinstance(runs, str):
        runs = [runs]
    if not isinstance(runs, list) or not all(isinstance(r, str) for r in runs):
        raise Refused("wrong_type", "predictions must be JSONL text or a list of JSONL texts (one per run)",
                      field="predictions")
    files = [SimpleUploadedFile(f"run-{i}.jsonl", text.encode()) for i, text in enumerate(runs, start=1)]
    return data, files
