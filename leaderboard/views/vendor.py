"""plotly.js served from the installed plotly package (no CDN: pages work offline).

The bundle is 4.8 MB: its URL carries a content hash so browsers keep it for a year, it is sent
gzip-compressed (about 1.4 MB) to every client that accepts gzip, and only pages that draw a chart
ask for it (static/js/field.js and heatmaps.js load it once their section is scrolled to and has something to draw).
"""

from __future__ import annotations

import gzip
import hashlib
import re
from functools import cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

_GZIP_REFUSED = re.compile(r"(?:^|,)\s*gzip\s*;\s*q=0(?:\.0*)?\s*(?:,|$)")
YEAR = 365 * 24 * 3600


@cache
def _source() -> tuple[bytes, str]:
    """(source, content hash), read once per process."""
    from plotly.offline import get_plotlyjs

    source = get_plotlyjs().encode()
    return source, hashlib.sha256(source).hexdigest()[:16]


@cache
def _plotly() -> tuple[bytes, bytes, str]:
    """(source, gzip of it, content hash); compressed once per process, when the bundle is first asked
    for (a page only needs its hash: level-9 gzip of 4.8 MB would cost its first render about 0.4 s)."""
    source, digest = _source()
    return source, gzip.compress(source, compresslevel=9, mtime=0), digest


def plotly_url() -> str:
    return reverse("plotly-js", args=[_source()[1]])


def accepts_gzip(request: HttpRequest) -> bool:
    header = request.headers.get("Accept-Encoding", "").lower()
    return "gzip" in header and not _GZIP_REFUSED.search(header)


def plotly_js(request: HttpRequest, digest: str) -> HttpResponse:
    source, packed, current = _plotly()
    if digest != current:  # an old page's URL: the current bundle, not cached under the old name
        return HttpResponseRedirect(reverse("plotly-js", args=[current]))
    compressed = accepts_gzip(request)
    response = HttpResponse(packed if compressed else source, content_type="application/javascript; charset=utf-8")
    if compressed:
        response["Content-Encoding"] = "gzip"
    response["Cache-Control"] = f"public, max-age={YEAR}, immutable"
    response["Vary"] = "Accept-Encoding"
    response["ETag"] = f'"{current}{"-gz" if compressed else ""}"'
    return response


@cache
def _favicon() -> bytes:
    return (settings.BASE_DIR / "static" / "favicon.svg").read_bytes()


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico on every page; pages also name the icon (static/favicon.svg)."""
    response = HttpResponse(_favicon(), content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response

