"""plotly.js served from the installed plotly package (no CDN: pages work offline)."""

from __future__ import annotations

from functools import cache

from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import cache_control


@cache
def _plotly_source() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


@cache_control(max_age=86400, public=True)
def plotly_js(request: HttpRequest) -> HttpResponse:
    return HttpResponse(_plotly_source(), content_type="application/javascript; charset=utf-8")

