"""Accounts: sign-up with a verified email, sign-up limits, login throttling.

Sign-up creates an inactive user and emails a one-time link (``EMAIL_BACKEND``: the console by
default, SMTP in production); following it activates the account. Sign-ups are limited per
address and per client IP; logins are refused for a while after repeated failures for one
username or from one IP. Limits: ``settings.ACCOUNTS`` (docs/submitting.md).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.mail import send_mail
from django.urls import reverse
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from leaderboard.services.ratelimit import rate_clear, rate_count, rate_hit

DAY = 24 * 3600


class _VerificationTokens(PasswordResetTokenGenerator):
    key_salt = "leaderboard.accounts.email-verification"

    def _make_hash_value(self, user: Any, timestamp: int) -> str:
        return f"{user.pk}{user.is_active}{user.email}{timestamp}"  # used once: activation changes is_active


verification_tokens = _VerificationTokens()


def _limits() -> dict[str, int]:
    return settings.ACCOUNTS


def account_signup_refusal(*, email: str, ip: str) -> str | None:
    """Why a sign-up from ``ip`` for ``email`` is refused now (``None``: allowed). Counts the attempt."""
    limits = _limits()
    per_address = rate_hit("signup-email", email_canonical(email), window=DAY)
    per_ip = rate_hit("signup-ip", ip, window=DAY)
    if per_address > limits["SIGNUPS_PER_EMAIL_PER_DAY"]:
        return "Too many sign-ups for this email address today; try again tomorrow."
    if per_ip > limits["SIGNUPS_PER_IP_PER_DAY"]:
        return "Too many sign-ups from your network today; try again tomorrow."
    return None


def email_canonical(email: str) -> str:
    """The mailbox an address reaches: lower case, without a ``+tag`` (``a+1@x.org`` is ``a@x.org``)."""
    local, _, domain = email.strip().lower().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}"


def account_send_verification(*, user: Any, base_url: str) -> None:
    """Email ``user`` the link that activates the account."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    link = base_url.rstrip("/") + reverse("verify-email", args=[uid, verification_tokens.make_token(user)])
    send_mail(
        "Confirm your email for the music leaderboards",
        f"Hello {user.username},\n\nopen this link to activate your account:\n\n{link}\n\n"
        "If you did not sign up, ignore this message.\n",
        None, [user.email],
    )


def account_verify(*, uidb64: str, token: str) -> Any:
    """The user the link activates (now active), or ``None`` for a bad or used link."""
    try:
        pk = int(force_str(urlsafe_base64_decode(uidb64)))
    except (ValueError, TypeError, OverflowError):
        return None
    user = get_user_model().objects.filter(pk=pk).first()
    if user is None or user.is_active or not verification_tokens.check_token(user, token):
        return None
    user.is_active = True
    user.save(update_fields=["is_active"])
    return user


def login_refusal(*, username: str, ip: str) -> str | None:
    """Why a login attempt is refused without checking the password (``None``: go ahead)."""
    limits = _limits()
    window = limits["LOGIN_WINDOW_SECONDS"]
    minutes = max(1, window // 60)
    if rate_count("login-user", username, window=window) >= limits["LOGIN_FAILURES_PER_USERNAME"]:
        return (f"Too many failed logins for this username: try again in up to {minutes} minutes, "
                "or reset your password.")
    if rate_count("login-ip", ip, window=window) >= limits["LOGIN_FAILURES_PER_IP"]:
        return f"Too many failed logins from your network: try again in up to {minutes} minutes."
    return None


def login_failed(*, username: str, ip: str) -> None:
    window = _limits()["LOGIN_WINDOW_SECONDS"]
    rate_hit("login-user", username, window=window)
    rate_hit("login-ip", ip, window=window)


def login_succeeded(*, username: str) -> None:
    rate_clear("login-user", username, window=_limits()["LOGIN_WINDOW_SECONDS"])
