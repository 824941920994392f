"""Token authentication for the API: ``Authorization: Token <key>`` (or ``Bearer``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest
from django.views.decorators.csrf import csrf_exempt

from leaderboard.services.policy.refusals import Refused
from leaderboard.services.policy.tokens import token_authenticate
from leaderboard.views.uploads import guard_uploads


def token_user(request: HttpRequest) -> Any:
    header = request.headers.get("Authorization", "")
    scheme, _, raw = header.partition(" ")
    if scheme.lower() not in ("token", "bearer") or not raw.strip():
        return None
    return token_authenticate(raw=raw.strip())


def api_view(require_user: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Resolve the token (or session) user; CSRF applies only to session-authenticated writes."""

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            user = token_user(request)
            if user is not None:
                request.user = user
            elif request.method not in ("GET", "HEAD", "OPTIONS") and request.user.is_authenticated:
                from django.middleware.csrf import CsrfViewMiddleware

                guard_uploads(request)  # before the CSRF check reads the body

                reason = CsrfViewMiddleware(lambda r: None).process_view(request, None, (), {})
                if reason is not None:
                    raise Refused("csrf", "CSRF check failed; use an API token", status=403)
            if require_user and not request.user.is_authenticated:
                raise Refused("unauthenticated", "send an API token: Authorization: Token <key>", status=401)
            return view(request, *args, **kwargs)

        return csrf_exempt(wrapper)

    return decorate
