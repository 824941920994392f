"""The heatmaps' page: their numbers as plain HTML tables, the no-JavaScript view of the charts.

``services.boards.heatmaps`` computes the payload (cached per split); the charts fetch it as JSON
from the API (``views.api``); this page shows the same payload through ``views.heatmap_tables``.
Its own page, linked from the leaderboard's heatmap section, so that the leaderboard page itself
never computes the heatmaps.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from leaderboard.selectors.splits import split_get
from leaderboard.services.boards import heatmaps
from leaderboard.views.heatmap_tables import heatmap_tables


def leaderboard_heatmaps(request: HttpRequest, benchmark: str, split: str) -> HttpResponse:
    found = split_get(benchmark, split)
    payload = heatmaps.heatmaps(found, request.user, request.GET)
    return render(request, "heatmap_tables.html", {
        "split": found, "spec": found.spec, "task_type": found.spec.task_type,
        "heatmap_tables": heatmap_tables(payload), "query": request.GET,
    })
