"""Login throttling: refused for a while after repeated failures for one identity, from one client or
from one network (``identities.client_network``: a /24 or a /64, as for sign-ups), so spreading
guesses over a network's addresses does not multiply them.

The identity is the name as Django resolves it (``identities.username_identity``: NFKC, case-folded)
and, when the name resolves to an account, that account: look-alike spellings of a locked name
share its counter and cannot clear it. The counters are fixed windows of ``LOGIN_WINDOW_SECONDS``
(``rate_limits``): a refusal lasts until the window ends and says when that is. Limits:
``settings.ACCOUNTS`` (docs/submitting.md).
"""

from __future__ import annotations

import unicodedata

from django.conf import settings
from django.contrib.auth import get_user_model

from leaderboard.services.policy.identities import client_network, username_identity
from leaderboard.services.policy.rate_limits import (
    limit_refused,
    rate_clear,
    rate_count,
    rate_hit,
    rate_resets_at,
    retry_text,
)
from leaderboard.services.policy.refusals import Refused

MAX_NAME = 600  # what is normalised of a posted name (Django keeps 150 characters)


def login_subjects(username: str) -> list[str]:
    """The counters one attempt for ``username`` counts on: its identity, and its account if any."""
    name = username[:MAX_NAME]
    subjects = [f"name:{username_identity(name)}"]
    resolved = unicodedata.normalize("NFKC", name.strip())  # as the login form cleans it
    pk = get_user_model().objects.filter(username=resolved).values_list("pk", flat=True).first()
    if pk is not None:
        subjects.append(f"user:{pk}")
    return subjects


def login_refusal(*, username: str, ip: str) -> Refused | None:
    """Why a login attempt is refused without checking the password (``None``: go ahead); a 429 that
    says when the window ends."""
    limits = settings.ACCOUNTS
    window = limits["LOGIN_WINDOW_SECONDS"]
    if any(rate_count("login-user", subject, window=window) >= limits["LOGIN_FAILURES_PER_USERNAME"]
           for subject in login_subjects(username)):
        return _refused("Too many failed logins for this username: try again {when}, or reset your password.",
                        window)
    if (rate_count("login-ip", ip, window=window) >= limits["LOGIN_FAILURES_PER_IP"]
            or rate_count("login-net", client_network(ip), window=window) >= _per_network(limits)):
        return _refused("Too many failed logins from your network: try again {when}.", window)
    return None


def _refused(message: str, window: int) -> Refused:
    at = rate_resets_at(window=window)
    return limit_refused("rate_limited", message.format(when=retry_text(at)), at)


def _per_network(limits: dict[str, int]) -> int:
    # a network holds many clients (an office, a carrier's NAT): twice one client's limit unless set
    return limits.get("LOGIN_FAILURES_PER_NETWORK", 2 * limits["LOGIN_FAILURES_PER_IP"])


def login_failed(*, username: str, ip: str) -> None:
    window = settings.ACCOUNTS["LOGIN_WINDOW_SECONDS"]
    for subject in login_subjects(username):
        rate_hit("login-user", subject, window=window)
    rate_hit("login-ip", ip, window=window)
    rate_hit("login-net", client_network(ip), window=window)


def login_succeeded(*, username: str) -> None:
    window = settings.ACCOUNTS["LOGIN_WINDOW_SECONDS"]
    for subject in login_subjects(username):
        rate_clear("login-user", subject, window=window)
