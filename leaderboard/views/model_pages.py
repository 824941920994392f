"""Models across benchmarks: a page per model, the model search page and its API. Thin: the
index (``services.boards.model_index``) holds every number, read off the boards as the viewer sees them."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from leaderboard.services.boards.explore import clean_text
from leaderboard.services.boards.model_index import model_index_build, model_overview_rows
from leaderboard.services.boards.model_papers import model_published
from leaderboard.services.policy.refusals import Refused
from leaderboard.views.auth import api_view

MAX_QUERY = 200


OVERVIEW_ROWS = 100  # the home page's table; every model is on the models page


def model_overview_context(request: HttpRequest) -> dict[str, Any]:
    """What the home page's models x benchmarks table needs (``model_sort=<benchmark>/<split>``):
    the first ``OVERVIEW_ROWS`` models in the chosen order."""
    index = model_index_build(request.user)
    rows, sorted_by = model_overview_rows(index, request.GET.get("model_sort", ""))
    return {"model_boards": index.boards, "model_rows": rows[:OVERVIEW_ROWS], "model_sorted_by": sorted_by,
            "model_total": len(rows)}


def model_page(request: HttpRequest, slug: str) -> HttpResponse:
    found = model_index_build(request.user).find(slug)
    if found is None:  # also a model whose every entry this viewer may not see
        raise Http404("no such model")
    return render(request, "model.html", {"model": found, "published": model_published(slug)})


def models_page(request: HttpRequest) -> HttpResponse:
    query = _query(request)
    index = model_index_build(request.user)
    return render(request, "models.html", {"query": query, "models": index.search(query),
                                           "total": len(index.models)})


@require_GET
@api_view()
def models_api(request: HttpRequest) -> JsonResponse:
    raw = request.GET.get("q", "")
    if "\x00" in raw:
        raise Refused("invalid_parameter", "q contains a NUL character", field="q")
    if len(raw) > MAX_QUERY:
        raise Refused("invalid_parameter", f"q is at most {MAX_QUERY} characters", field="q")
    query = _query(request)
    index = model_index_build(request.user)
    return JsonResponse({"query": query, "boards": [b.as_json() for b in index.boards],
                         "models": [m.as_json() for m in index.search(query)]})


def _query(request: HttpRequest) -> str:
    return clean_text(request.GET.get("q", ""))[:MAX_QUERY]
