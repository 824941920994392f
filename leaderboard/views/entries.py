"""Owners' controls on an entry's page: one POST route, ``action`` = withdraw | visibility | metadata."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from leaderboard.models import Submission
from leaderboard.selectors.submissions import submission_get_manageable
from leaderboard.services.policy.entries import (
    EDITABLE,
    entry_set_visibility,
    entry_update_metadata,
    entry_withdraw,
)
from leaderboard.services.policy.refusals import Refused


@require_POST
@login_required
def entry_manage(request: HttpRequest, uid: str) -> HttpResponse:
    found = submission_get_manageable(request.user, uid)
    action = request.POST.get("action", "")
    try:
        if action == "withdraw":
            entry_withdraw(submission=found, user=request.user)
            messages.success(request, "Withdrawn: the entry is off every leaderboard. This page stays for you "
                                      "and the maintainers.")
        elif action == "visibility":
            private = request.POST.get("private") == "1"
            entry_set_visibility(submission=found, user=request.user, private=private)
            messages.success(request, "Now private: only you and the maintainers see it." if private
                             else "Now public: it is listed on the leaderboard.")
        elif action == "metadata":
            changed = entry_update_metadata(submission=found, user=request.user, data=request.POST)
            messages.success(request, f"Saved: {', '.join(changed)}." if changed else "Nothing changed.")
        else:
            raise Refused("unknown_action", f"unknown action {action[:40]!r}", "action")
    except Refused as exc:  # the entry's page says why (and a refused edit comes back as typed)
        messages.error(request, f"Not saved: {exc.message}.")
        if action == "metadata" and exc.field in EDITABLE:
            # the form comes back with what the owner typed; the browser focuses the refused field (the
            # fragment), which the message describes
            request.session[typed_key(found.uid)] = {
                "field": exc.field, "message": f"Not saved: {exc.message}.",
                **{name: request.POST.get(name, "")[:5000] for name in EDITABLE}}
            return redirect(reverse("submission", args=[found.uid]) + f"#edit-{exc.field}")
    # the browser focuses the message (a focusable fragment), so it is read first
    return redirect(reverse("submission", args=[found.uid]) + "#messages")


def typed_key(uid: object) -> str:
    """The session key of an entry's metadata form as its owner last typed it (a refused edit)."""
    return f"entry-form:{uid}"


def entry_form(request: HttpRequest, submission: Submission) -> dict[str, object]:
    """The metadata form's values: what a refused edit typed (once), else the entry's own."""
    typed = request.session.pop(typed_key(submission.uid), None) if hasattr(request, "session") else None
    if isinstance(typed, dict):
        return {**typed, "refused": True}
    weights = {True: "yes", False: "no", None: "unknown"}[submission.open_weights]
    return {**{name: getattr(submission, name) for name in EDITABLE}, "open_weights": weights, "refused": False}
