"""API tokens (sign-up and login: views.registration; logout and password reset: Django's own views)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_http_methods

from leaderboard.models import ApiToken


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    new_key = None
    revoke = request.POST.get("revoke", request.GET.get("revoke"))
    if revoke is not None and not revoke.isdigit():
        messages.error(request, f"Nothing revoked: {revoke[:40]!r} is not one of your tokens.")
        return _tokens_page(request, None, status=400)
    if request.method == "POST":
        if "revoke" in request.POST:
            ApiToken.objects.filter(user=request.user, pk=int(request.POST["revoke"][:18])).delete()
            messages.info(request, "Token revoked.")
            return redirect("tokens")
        _, new_key = ApiToken.issue(request.user, (request.POST.get("name") or "default")[:100])
        # shown once, on the page the redirect lands on: reloading that page creates nothing
        request.session[NEW_TOKEN] = new_key
        return redirect("tokens")
    return _tokens_page(request, request.session.pop(NEW_TOKEN, None))


NEW_TOKEN = "new-api-token"  # session key (server-side sessions) of a key created and not yet shown


def _tokens_page(request: HttpRequest, new_key: str | None, status: int = 200) -> HttpResponse:
    response = render(request, "tokens.html", {"tokens": request.user.api_tokens.all(), "new_key": new_key},
                      status=status)
    add_never_cache_headers(response)  # the page shows a new key once: no cache may keep it
    return response
