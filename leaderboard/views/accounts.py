"""API tokens and e-mail settings (sign-up, login: views.registration; logout, password reset: Django's)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from leaderboard.selectors.tokens import token_list
from leaderboard.services.policy.accounts import account_email_on_end, account_email_on_end_set
from leaderboard.services.policy.tokens import token_issue, token_revoke


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    new_key = None
    revoke = request.POST.get("revoke", request.GET.get("revoke"))
    if revoke is not None and not revoke.isdigit():
        messages.error(request, f"Nothing revoked: {revoke[:40]!r} is not one of your tokens.")
        return _tokens_page(request, None, status=400)
    if request.method == "POST":
        if "mail_settings" in request.POST:
            account_email_on_end_set(request.user, request.POST.get("email_on_end") == "on")
            messages.info(request, "E-mail settings saved.")
            return redirect(_back(request))
        if "revoke" in request.POST:
            token_revoke(user=request.user, pk=int(request.POST["revoke"][:18]))
            messages.info(request, "Token revoked.")
            return redirect("tokens")
        _, new_key = token_issue(user=request.user, name=(request.POST.get("name") or "default")[:100])
        # shown once, on the page the redirect lands on: reloading that page creates nothing
        request.session[NEW_TOKEN] = new_key
        return redirect("tokens")
    return _tokens_page(request, request.session.pop(NEW_TOKEN, None))


def _back(request: HttpRequest) -> str:
    """Where a settings form sent from another page (an entry's) returns: its ``next``, if on this site."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                                  require_https=request.is_secure()):
        return target
    return "tokens"


NEW_TOKEN = "new-api-token"  # session key (server-side sessions) of a key created and not yet shown


def _tokens_page(request: HttpRequest, new_key: str | None, status: int = 200) -> HttpResponse:
    response = render(request, "tokens.html", {"tokens": token_list(request.user), "new_key": new_key,
                                               "email_on_end": account_email_on_end(request.user)}, status=status)
    add_never_cache_headers(response)  # the page shows a new key once: no cache may keep it
    return response
