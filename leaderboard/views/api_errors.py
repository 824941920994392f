"""Every response under ``/api/`` that is an error has the documented shape
``{"error": {"code", "message", "field"}}``: unknown routes, malformed ids, a wrong method,
Django's own 400/403/404 and unhandled exceptions (500) included.

Views raise :class:`~leaderboard.views.errors.ApiError` for the errors they know about; this
middleware covers what never reaches a view (the URL resolver, ``require_http_methods``) and
what escapes one.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.core.exceptions import BadRequest, PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse

API_PREFIX = "/api/"
SCHEMA_HINT = "the routes are listed at /api/v1/openapi.json"
logger = logging.getLogger("django.request")

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


def is_api_request(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def error_body(code: str, message: str, field: str | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "field": field}}


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


class ApiJsonErrorsMiddleware:
    """Outermost for ``/api/``: HTML or empty error responses become the JSON error shape, in place
    (headers set by other middleware, such as ``Allow`` or a security policy, are kept)."""

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
        if response.has_header("Content-Length"):  # set by CommonMiddleware for the old body
            response["Content-Length"] = str(len(response.content))
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> JsonResponse | None:
        if not is_api_request(request):
            return None
        if isinstance(exception, Http404):
            return JsonResponse(error_body("not_found", str(exception) or "no such resource"), status=404)
        if isinstance(exception, PermissionDenied):
            return JsonResponse(error_body("forbidden", str(exception) or "you may not do this"), status=403)
        if isinstance(exception, RequestDataTooBig):
            return JsonResponse(error_body("too_large", str(exception)), status=413)
        if isinstance(exception, (BadRequest, SuspiciousOperation)):
            return JsonResponse(error_body("bad_request", str(exception) or "the request is malformed"), status=400)
        # ApiError is answered by ApiErrorMiddleware before this runs (process_exception is innermost first)
        logger.error("Internal Server Error: %s", request.path, exc_info=exception,
                     extra={"status_code": 500, "request": request})
        return JsonResponse(error_body(*_CODES[500]), status=500)
