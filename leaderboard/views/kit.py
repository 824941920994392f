"""The starter kit page of a split and its sample prediction file. Thin: fetch, call the service, render."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render

from leaderboard.selectors.splits import split_get, split_list_siblings
from leaderboard.services.boards.kit import split_kit, split_sample_lines
from leaderboard.services.policy.refusals import Refused
from leaderboard.views.error_responses import json_errors


def split_kit_page(request: HttpRequest, benchmark: str, split: str) -> HttpResponse:
    found = split_get(benchmark, split)
    kit = split_kit(found, site=request.build_absolute_uri("/").rstrip("/"))
    return render(request, "kit.html", {"kit": kit, "split": found, "spec": found.spec,
                                        "siblings": split_list_siblings(found)})


@json_errors
def sample_download(request: HttpRequest, benchmark: str, split: str) -> StreamingHttpResponse:
    """Every item answered with a placeholder of the right shape: a file that passes validation."""
    found = split_get(benchmark, split)
    if not found.has_references:
        raise Refused("not_open", f"{found} is not open yet: no references have been imported, so it has no "
                      "sample predictions to download", status=409, field="split")
    response = StreamingHttpResponse(split_sample_lines(found), content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{benchmark}-{split}-sample-predictions.jsonl"'
    return response
