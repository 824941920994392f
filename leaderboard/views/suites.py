"""A suite's board (CMI-Bench: a column per task) and its JSON. Thin: ``services.boards.suites`` holds every
number, read off the task boards as the viewer sees them."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from leaderboard.services.boards.suites import MISSING_RULE, SuiteBoard, suite_board_build
from leaderboard.views.auth import api_view


def suite_page(request: HttpRequest, suite: str) -> HttpResponse:
    return render(request, "suite.html", {"board": _board(request, suite), "rule": MISSING_RULE})


@require_GET
@api_view()
def suite_api(request: HttpRequest, suite: str) -> JsonResponse:
    return JsonResponse(_board(request, suite).as_json())


def _board(request: HttpRequest, suite: str) -> SuiteBoard:
    board = suite_board_build(suite, request.user)
    if board is None:
        raise Http404("no such suite")
    return board
