"""gzip for clients that send ``Accept-Encoding: gzip``: pages, API answers, API docs and downloads
(streamed ones chunk by chunk), with ``Vary: Accept-Encoding``.

A response that carries a CSRF token is sent uncompressed: a secret beside text an attacker can reflect
into the same body is what BREACH reads out of compressed sizes. Django's middleware sets the CSRF
cookie on exactly the responses whose rendering asked for the token.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import patch_vary_headers

from leaderboard.views.vendor import accepts_gzip


class GzipWithoutTokens(GZipMiddleware):
    """Django's gzip (with its random padding), except for responses that carry a CSRF token and for
    clients that refuse gzip (``gzip;q=0``, which Django's own check reads as accepting it)."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if settings.CSRF_COOKIE_NAME in response.cookies or not accepts_gzip(request):
            patch_vary_headers(response, ("Accept-Encoding",))
            return response
        return super().process_response(request, response)
