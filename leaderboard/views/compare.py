"""Compare two entries: ``/compare/?a=&b=`` (also ``?pick=&pick=`` from a leaderboard's checkboxes)
and ``GET /api/v1/compare?a=&b=``. Thin: find, call :func:`services.boards.compare.compare_entries`.

More than two entries picked (the boxes without JavaScript): the page lists them to choose a pair
(:func:`services.boards.compare.compare_choices`); the API refuses by name."""

from __future__ import annotations

import uuid
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from leaderboard.models import Submission
from leaderboard.selectors.submissions import submission_get
from leaderboard.services.boards.compare import compare_choices, compare_entries, compare_rate_check
from leaderboard.services.policy.rate_limits import client_ip
from leaderboard.services.policy.refusals import Refused
from leaderboard.views.auth import api_view


def _all_ids(request: HttpRequest) -> list[str]:
    """Every distinct entry id named by ``a``, ``b`` and ``pick``, in order."""
    named = [*request.GET.getlist("a"), *request.GET.getlist("b"), *request.GET.getlist("pick")]
    return list(dict.fromkeys(v for v in named if v))


def _ids(request: HttpRequest) -> tuple[str, str]:
    picked = [p for p in request.GET.getlist("pick") if p]
    named = _all_ids(request)
    if len(named) > 2 or len(picked) > 2:
        raise Refused("too_many", f"{max(len(named), len(picked))} entries picked: pick exactly two",
                      "pick")
    a = request.GET.get("a") or (picked[0] if picked else "")
    b = request.GET.get("b") or (picked[1] if len(picked) > 1 else "")
    for name, value in (("a", a), ("b", b)):
        if not value:
            raise Refused("missing", f"pick two entries to compare (no entry {name} given)", name)
    return a, b


def _find(uid: str, name: str) -> Submission:
    try:
        parsed = uuid.UUID(uid)
    except ValueError:
        raise Refused("not_found", f"no such submission: {name}={uid[:80]!r}", name, 404) from None
    found = submission_get(parsed)
    if found is None:
        raise Refused("not_found", f"no such submission: {name}={uid[:80]!r}", name, 404)
    return found


def _compare(request: HttpRequest) -> dict[str, Any]:
    a, b = _ids(request)
    compare_rate_check(user=request.user, ip=client_ip(request))
    return compare_entries(a=_find(a, "a"), b=_find(b, "b"), user=request.user, params=request.GET)


@require_GET
@api_view()
def compare_api(request: HttpRequest) -> JsonResponse:
    return JsonResponse(_compare(request))


@require_GET
def compare_page(request: HttpRequest) -> HttpResponse:
    try:
        result = _compare(request)
    except Refused as exc:  # the page itself says why, with how to pick two entries
        if exc.code == "too_many":
            choices = compare_choices(ids=_all_ids(request), user=request.user)
            return render(request, "compare.html", {"choose": choices})
        return render(request, "compare.html", {"error": exc}, status=exc.status)
    return render(request, "compare.html", {"c": result})
