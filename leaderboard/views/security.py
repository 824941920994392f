"""Response headers every page gets: a strict Content-Security-Policy.

``script-src 'self'``: no inline script and no ``on*`` handler runs, so an injected tag cannot
execute. ``style-src 'self'``: the site's CSS is a file; plotly styles its charts through the
CSSOM (``element.style``, ``insertRule``), which a policy does not govern, so it needs no
``'unsafe-inline'`` (the browser tests draw the heatmaps under this policy).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings

CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
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
