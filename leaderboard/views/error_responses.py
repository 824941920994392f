"""Where every refusal and error becomes a response: one middleware.

* A :class:`~leaderboard.services.policy.refusals.Refused` raised by a view or a service it calls
  becomes the JSON error shape ``{"error": {"code", "message", "field"}}`` under ``/api/`` and on
  the file downloads (views marked :func:`json_errors`), and an HTML page with the message elsewhere.
* Under ``/api/`` every other error is JSON too: unknown routes, malformed ids, a wrong method,
  Django's own 400/403/404/413 and unhandled exceptions (500, logged, without internals). HTML or
  empty error responses made by Django (the URL resolver, ``require_http_methods``) are rewritten
  in place, keeping headers set by other middleware (``Allow``, the security policy).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.core.exceptions import (
    BadRequest,
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from leaderboard.services.policy.refusals import Refused

API_PREFIX = "/api/"
SCHEMA_HINT = "the routes are listed at /api/v1/openapi.json"
logger = logging.getLogger("django.request")
View = TypeVar("View", bound=Callable[..., Any])

_CODES = {
    400: ("bad_request", "the request is malformed"),
    401: ("unauthenticated", "send an API token: Authorization: Token <key>"),
    403: ("forbidden", "you may not do this"),
    404: ("not_found", "no such resource"),
    405: ("method_not_allowed", "method not allowed"),
    413: ("too_large", "the request body is too large"),
    429: ("too_many_requests", "too many requests; try again later"),
    500: ("internal_error", "the server failed to answer this request; it has been logged"),
}


def json_errors(view: View) -> View:
    """Mark a view outside ``/api/`` (a file download) whose refusals are answered in the JSON shape."""
    view.json_errors = True  # type: ignore[attr-defined]
    return view


def is_api_request(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def _wants_json(request: HttpRequest) -> bool:
    match = getattr(request, "resolver_match", None)
    return is_api_request(request) or bool(match and getattr(match.func, "json_errors", False))


def error_body(code: str, message: str, field: str | None = None) -> dict[str, Any]:
    return Refused(code, message, field).as_json()


def refusal_response(request: HttpRequest, refusal: Refused) -> HttpResponse:
    """The response to ``refusal``: its JSON error body, or the refusal page (``Retry-After`` on a limit's)."""
    if _wants_json(request):
        return with_retry_after(JsonResponse(refusal.as_json(), status=refusal.status), refusal)
    return with_retry_after(render(request, "refused.html", {"error": refusal}, status=refusal.status), refusal)


def with_retry_after(response: HttpResponse, refusal: Refused | None) -> HttpResponse:
    """``Retry-After`` (seconds) on a response to a limit's refusal (``rate_limits.limit_refused``)."""
    seconds = refusal.details.get("retry_after") if refusal is not None else None
    if seconds is not None:
        response["Retry-After"] = str(int(seconds))
    return response


def _is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").startswith("application/json")


def _message(request: HttpRequest, response: HttpResponse) -> tuple[str, str]:
    status = response.status_code
    code, message = _CODES.get(status, ("server_error" if status >= 500 else "client_error",
                                        f"HTTP {status}"))
    if status == 404:
        message = f"no API route or resource for {request.method} {request.path}; {SCHEMA_HINT}"
    elif status == 405:
        allowed = response.get("Allow", "")
        message = f"{request.method} is not allowed on {request.path}; allowed: {allowed or 'none'}"
    return code, message


def _django_error(exception: Exception) -> Refused | None:
    """Django's own request exceptions as refusals (``None`` for anything else)."""
    if isinstance(exception, Http404):
        return Refused("not_found", str(exception) or "no such resource", status=404)
    if isinstance(exception, PermissionDenied):
        return Refused("forbidden", str(exception) or "you may not do this", status=403)
    if isinstance(exception, RequestDataTooBig):
        return Refused("too_large", _limit_message(exception), status=413)
    if isinstance(exception, (BadRequest, SuspiciousOperation)):
        return Refused("bad_request", _limit_message(exception) or "the request is malformed", status=400)
    return None


def _limit_message(exception: Exception) -> str:
    """Django's request-limit messages name its settings; the client needs the limit and the way around it."""
    if isinstance(exception, TooManyFilesSent):
        return f"the request holds more than {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files"
    if isinstance(exception, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        return f"the request has more than {limit} fields (form fields or query parameters)"
    if not isinstance(exception, RequestDataTooBig):
        return str(exception)
    mib = 1024 * 1024  # as the upload refusals count MB
    return (f"the request body is over {settings.DATA_UPLOAD_MAX_MEMORY_SIZE / mib:g} MB, the limit for a body "
            f"without files; send the predictions as files (multipart/form-data, up to "
            f"{settings.LEADERBOARD['MAX_UPLOAD_BYTES'] / mib:g} MB a file)")


class ErrorResponsesMiddleware:
    """Outermost (so its rewrite sees the final response): refusals to responses; every ``/api/`` error JSON."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> Any:
        response = self.get_response(request)
        if not is_api_request(request) or response.status_code < 400 or _is_json(response):
            return response
        code, message = _message(request, response)
        if response.streaming:
            return JsonResponse(error_body(code, message), status=response.status_code)
        response.content = json.dumps(error_body(code, message)).encode()
        response["Content-Type"] = "application/json"
        if response.has_header("Content-Length"):  # set by CommonMiddleware for the replaced body
            response["Content-Length"] = str(len(response.content))
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Refused):
            return refusal_response(request, exception)
        if not is_api_request(request):
            return None  # Django's own handlers answer pages (404.html, 500)
        refusal = _django_error(exception)
        if refusal is not None:
            return JsonResponse(refusal.as_json(), status=refusal.status)
        logger.error("Internal Server Error: %s", request.path, exc_info=exception,
                     extra={"status_code": 500, "request": request})
        return JsonResponse(error_body(*_CODES[500]), status=500)
