"""Whole leaderboard pages (HTML and API JSON), the home page and model pages for anonymous viewers,
from the cache. The home and model pages show every split, so their key holds every split's token.

A middleware placed before the session and authentication middleware: a request with no session
cookie, no messages cookie and no ``Authorization`` header is anonymous for certain, and every
anonymous viewer sees the same page. The key holds the split's ``cache_token`` (read from the
tokens' own cache entry, deleted wherever a token moves, so any change to the split is visible on
the next request and a hit costs one small cache read and no query: ``services.shared.cache``; the page
itself comes from this process's recent pages, or the cache), the view and
the query parameters the page depends on; requests with any other parameter are rendered, not
cached, so made-up parameters cannot fill the cache. Logged-in viewers (their own highlights and
private entries) always get a fresh page. With the cache down, pages render from the database.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils.cache import patch_vary_headers

from leaderboard.services.shared.cache import split_tokens
from leaderboard.views.vendor import accepts_gzip
from scoring import BENCHMARKS

CACHED_VIEWS = frozenset({"leaderboard", "leaderboard-heatmaps", "api-leaderboard"})
SITE_VIEWS = frozenset({"home", "model"})  # pages that show every split: keyed by every split's token
PAGE_PARAMETERS = frozenset({"sort", "entry", "metric"})
TIMEOUT = 600  # seconds; correctness comes from the key, this only bounds memory
HEADER = "X-Page-Cache"
FORMAT = 2  # of the stored value: (body, gzipped body, headers)
RECENT_PAGES = 32  # per process: at most ~10 MiB of pages (body and its gzip)


class AnonymousPageCache:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = page_key(request)
        if key is None:
            return self.get_response(request)
        stored = _RECENT.get(key)
        if stored is None:
            stored = cache.get(key)
            if stored is not None:
                _RECENT.put(key, stored)
        if stored is not None:
            return _thaw(stored, compressed=accepts_gzip(request))
        response = self.get_response(request)
        if _storable(response):
            patch_vary_headers(response, ["Accept-Encoding"])  # hits are gzipped for clients that accept it
            frozen = _freeze(response)
            cache.set(key, frozen, timeout=TIMEOUT)
            _RECENT.put(key, frozen)
            response[HEADER] = "miss"
        return response


class _RecentPages:
    """The last pages this process served, by key. A key names one split token, so the page stored
    under it never changes: keeping it here saves the 100-250 KiB cache read on a hit, leaving one
    small read (the tokens). Bounded in number and, like the cache, in age."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._pages: OrderedDict[str, tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()  # threaded workers share it

    def get(self, key: str) -> Any:
        with self._lock:
            found = self._pages.get(key)
            if found is None or time.monotonic() - found[0] > TIMEOUT:
                return None
            self._pages.move_to_end(key)
            return found[1]

    def clear(self) -> None:
        with self._lock:
            self._pages.clear()

    def put(self, key: str, page: Any) -> None:
        with self._lock:
            self._pages[key] = (time.monotonic(), page)
            self._pages.move_to_end(key)
            while len(self._pages) > self.size:
                self._pages.popitem(last=False)


_RECENT = _RecentPages(RECENT_PAGES)


def recent_pages_clear() -> None:
    """Forget this process's recent pages (a cold-cache measurement clears them with the cache)."""
    _RECENT.clear()


def page_key(request: HttpRequest) -> str | None:
    """The cache key of this request's page, or None when it must be rendered for this viewer."""
    if request.method != "GET" or "HTTP_AUTHORIZATION" in request.META:
        return None
    if settings.SESSION_COOKIE_NAME in request.COOKIES or "messages" in request.COOKIES:
        return None
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return None
    if match.url_name in SITE_VIEWS:
        return _site_page_key(request, match.url_name, match.kwargs)
    if match.url_name not in CACHED_VIEWS or match.kwargs.get("benchmark") not in BENCHMARKS:
        return None
    params = _page_parameters(request, match.kwargs["benchmark"])
    if params is None:
        return None
    found = split_tokens().get((match.kwargs["benchmark"], match.kwargs["split"]))
    if found is None:
        return None
    digest = hashlib.sha256(json.dumps(params).encode()).hexdigest()[:24]
    return f"page:{FORMAT}:{found[0]}:{found[1]}:{match.url_name}:{digest}"


def _site_page_key(request: HttpRequest, view: str, kwargs: dict[str, Any]) -> str | None:
    """The home page (``model_sort`` naming a split) and model pages, under every split's token."""
    tokens = split_tokens()
    params = [(name, request.GET.getlist(name)) for name in request.GET]
    if any(name != "model_sort" or len(values) != 1 or tuple(values[0].split("/", 1)) not in tokens
           for name, values in params) or (view != "home" and params):
        return None
    versions = sorted((f"{b}/{s}", token) for (b, s), (_, token) in tokens.items())
    digest = hashlib.sha256(json.dumps([versions, sorted(kwargs.items()), params]).encode()).hexdigest()[:24]
    return f"page:{FORMAT}:site:{view}:{digest}"


def _page_parameters(request: HttpRequest, benchmark: str) -> list[tuple[str, str]] | None:
    known = PAGE_PARAMETERS | {s.key for s in BENCHMARKS[benchmark].settings}
    params = []
    for name in request.GET:
        values = request.GET.getlist(name)
        if name not in known or len(values) != 1:
            return None
        params.append((name, values[0]))
    return sorted(params)


def _storable(response: HttpResponse) -> bool:
    control = response.get("Cache-Control", "")
    return (response.status_code == 200 and not response.streaming and not response.cookies
            and "private" not in control and "no-store" not in control)


def _freeze(response: HttpResponse) -> tuple[bytes, bytes, list[tuple[str, str]]]:
    """Body, its gzip (compressed once, on the miss; anonymous pages hold no secret, so no BREACH), headers."""
    headers = [(k, v) for k, v in response.items() if k.lower() not in (HEADER.lower(), "content-length")]
    return response.content, gzip.compress(response.content, compresslevel=6, mtime=0), headers


def _thaw(stored: Any, *, compressed: bool) -> HttpResponse:
    content, packed, headers = stored
    response = HttpResponse(packed if compressed else content)
    for name, value in headers:
        response[name] = value
    if compressed:
        response["Content-Encoding"] = "gzip"
    response["Content-Length"] = str(len(response.content))
    response[HEADER] = "hit"
    return response
