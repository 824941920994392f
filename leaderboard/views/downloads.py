"""Downloads: per-item breakdowns (CSV, JSONL) and leaderboards (CSV, JSON), streamed."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse

from leaderboard.models import Status
from leaderboard.selectors.splits import split_get, split_list_inputs
from leaderboard.selectors.submissions import submission_get_visible
from leaderboard.services.boards import leaderboards
from leaderboard.services.boards.items import export_columns, export_rows
from leaderboard.services.policy.access import can_view_item_details
from leaderboard.services.policy.refusals import Refused
from leaderboard.views.auth import token_user
from leaderboard.views.download_csv import csv_safe, leaderboard_csv
from leaderboard.views.error_responses import json_errors
from scoring.site.inputs import inputs_lines


def _viewer(request: HttpRequest) -> Any:
    user = token_user(request)
    return user if user is not None else request.user


@json_errors
def items_download(request: HttpRequest, uid: str, fmt: str) -> StreamingHttpResponse:
    viewer = _viewer(request)
    submission = submission_get_visible(viewer, uid)
    if not can_view_item_details(viewer, submission.split):
        raise Refused("withheld", "per-item scores of a hidden-label split are available to maintainers only",
                      status=403)
    if submission.status != Status.SCORED:
        raise Refused("not_scored", f"the submission is {submission.status}, not scored", status=409)
    rows = export_rows(submission, viewer)
    name = f"{submission.split.benchmark.name}-{submission.split.name}-{submission.uid}-items.{fmt}"
    if fmt == "jsonl":
        body: Iterable[str] = (json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        content_type = "application/x-ndjson"
    else:
        body = _csv_lines(rows, export_columns(submission))
        content_type = "text/csv"
    response = StreamingHttpResponse(body, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@json_errors
def inputs_download(request: HttpRequest, benchmark: str, split: str) -> StreamingHttpResponse:
    """The split's items as researchers need them to run a model: ids and inputs, never labels."""
    found = split_get(benchmark, split)
    if not found.has_references:
        raise Refused("not_open", f"{found} is not open yet: no references have been imported, so it has no "
                      "inputs to download", status=409, field="split")
    items = split_list_inputs(found)
    response = StreamingHttpResponse(inputs_lines(items), content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{benchmark}-{split}-inputs.jsonl"'
    return response


@json_errors
def leaderboard_download(request: HttpRequest, benchmark: str, split: str, fmt: str) -> HttpResponse:
    found = split_get(benchmark, split)
    board = leaderboards.build(found, _viewer(request), request.GET)
    if fmt == "json":
        return JsonResponse(board.as_json())
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerows(leaderboard_csv(board, request.build_absolute_uri))
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{benchmark}-{split}-leaderboard.csv"'
    return response


def _csv_lines(rows: Iterator[dict[str, Any]], columns: list[str]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(columns)
    yield _drain(buffer)
    for row in rows:
        flat = {**row, **row.get("scores", {})}
        for name in ("prediction", "reference"):
            if not isinstance(flat.get(name), str) and flat.get(name) is not None:
                flat[name] = json.dumps(flat[name], ensure_ascii=False)
        writer.writerow(["" if flat.get(c) is None else csv_safe(flat.get(c)) for c in columns])
        yield _drain(buffer)


def _drain(buffer: io.StringIO) -> str:
    value = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return value
