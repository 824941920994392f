"""Response headers every page gets: a strict Content-Security-Policy.

``script-src 'self'``: no inline script and no ``on*`` handler runs, so an injected tag cannot
execute. Styles: the site's CSS is a file. plotly.js (7.x bundle) adds two ``<style>`` elements,
an empty one whose rules it inserts through the CSSOM and MapLibre's stylesheet, both allowed by
their hashes (an upgrade that changes them fails tests/browser/test_csp.py), and writes
``style`` attributes on the SVG it draws: ``style-src-attr 'unsafe-inline'`` allows attributes
only, which cannot hold selectors, so no ``<style>`` element can be injected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings

_PLOTLY_STYLE_HASHES = ("'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=' "  # the empty <style>
                        "'sha256-ji27qzEtxXZW+7dun6UwjHXJ18e6WAin1VvNtkzIE/o='")  # MapLibre's CSS
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    f"style-src 'self' {_PLOTLY_STYLE_HASHES}",
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])


class SecurityHeadersMiddleware:
    """Adds the Content-Security-Policy (and keeps a view's own, if it set one)."""

    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response
        self.policy = getattr(settings, "CONTENT_SECURITY_POLICY", CONTENT_SECURITY_POLICY)

    def __call__(self, request: Any) -> Any:
        response = self.get_response(request)
        if self.policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = self.policy
        return response
