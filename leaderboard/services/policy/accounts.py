"""Accounts: sign-up with a verified email, sign-up and reset limits (login throttling: ``services.policy.logins``).

Sign-up creates an inactive user and emails a one-time link (``EMAIL_BACKEND``: the console by
default, SMTP in production); following it activates the account. Limits and uniqueness key on
the mailbox an address reaches (``services.policy.identities``), and sign-ups are limited per client
address and per network. Only accepted sign-ups count (a link or a notice mailed): refused attempts
never lock an address out. The answer never says whether an address has an account: a sign-up
for a mailbox that has a verified account sends its owner a notice instead of a link.

An address nobody verified is never lost to whoever typed it first: unverified accounts with
one mailbox coexist until one is verified (the others are then removed), a password reset
reaches an unverified account too and completing it verifies the account, and unverified
accounts are removed once their link has expired. The daily limits count per UTC day (``rate_limits``);
a refusal says when the day ends. Limits: ``settings.ACCOUNTS`` (docs/submitting.md).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from leaderboard.models import AccountSettings
from leaderboard.services.policy.identities import client_network, email_mailbox
from leaderboard.services.policy.rate_limits import RateHit, limit_refused, rate_give_back, rate_take, retry_text
from leaderboard.services.policy.refusals import Refused

DAY = 24 * 3600


class _VerificationTokens(PasswordResetTokenGenerator):
    key_salt = "leaderboard.accounts.email-verification"

    def _make_hash_value(self, user: Any, timestamp: int) -> str:
        return f"{user.pk}{user.is_active}{user.email}{timestamp}"  # used once: activation changes is_active


verification_tokens = _VerificationTokens()


def _limits() -> dict[str, int]:
    return settings.ACCOUNTS


def account_signup(*, user: Any, ip: str, base_url: str) -> Refused | None:
    """Sign ``user`` (unsaved, username, email and password set) up: saved inactive, its link mailed.

    Returns why it is refused (a limit: a 429 that says when to retry), else ``None``, and the answer
    is the same whether or not the mailbox has an account: when it has a verified one (active or
    deactivated), that account's owner is mailed a notice and nothing is created. Only an accepted
    sign-up (a link or a notice mailed) counts towards the limits: a refused or failed one is given back.
    """
    hits = _daily_take("signup", email=user.email, ip=ip)
    refusal = _daily_refusal(hits, "SIGNUPS", "Too many sign-ups")
    if refusal is not None:
        rate_give_back(*hits)
        return refusal
    try:
        _signup_accepted(user, base_url)
    except BaseException:
        rate_give_back(*hits)
        raise
    return None


def _signup_accepted(user: Any, base_url: str) -> None:
    taken = [holder for holder in account_mailbox_holders(user.email) if not account_unverified(holder)]
    if taken:  # active, or deactivated by a maintainer: either way not free
        for holder in taken:
            _send_taken_notice(holder, base_url)
        return
    user.is_active = False  # until the emailed link is followed
    with transaction.atomic():  # a link that could not be mailed leaves no account (and no count) behind
        user.save()
        account_send_verification(user=user, base_url=base_url)


def account_mailbox_holders(email: str) -> list[Any]:
    """The accounts whose address reaches the same mailbox as ``email`` (``identities.email_mailbox``)."""
    mailbox = email_mailbox(email)
    domain = mailbox.rpartition("@")[2]
    candidates = get_user_model().objects.filter(Q(email__iendswith="@" + domain) | Q(email__iendswith="." + domain))
    return [user for user in candidates if email_mailbox(user.email) == mailbox]


def account_unverified(user: Any) -> bool:
    """Signed up and never verified: inactive and never logged in (a maintainer's deactivation is not this)."""
    return not user.is_active and user.last_login is None and not user.is_staff


def accounts_unverified_expire() -> int:
    """Remove unverified accounts whose link has expired (``PASSWORD_RESET_TIMEOUT``); returns how many."""
    cutoff = timezone.now() - timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)
    return _delete(_unverified().filter(date_joined__lt=cutoff, submissions__isnull=True))


def _delete(users: QuerySet[Any]) -> int:
    ids = list(users.values_list("pk", flat=True))
    if ids:
        get_user_model().objects.filter(pk__in=ids).delete()
    return len(ids)


def _unverified() -> QuerySet[Any]:
    return get_user_model().objects.filter(is_active=False, last_login__isnull=True, is_staff=False)


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


def _send_taken_notice(holder: Any, base_url: str) -> None:
    root = base_url.rstrip("/")
    send_mail(
        "Someone tried to sign up with your email address",
        f"Hello {holder.username},\n\nsomebody tried to create an account on the music leaderboards with this "
        "email address, which already has your account. If it was you, log in:\n\n"
        f"{root}{reverse('login')}\n\nor choose a new password:\n\n{root}{reverse('password_reset')}\n\n"
        "If it was not you, ignore this message: nothing was changed.\n",
        None, [holder.email],
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
    account_activate(user)
    return user


def account_activate(user: Any) -> None:
    """Activate ``user`` (its mailbox is proven); other unverified accounts of that mailbox are removed."""
    with transaction.atomic():
        rivals = [u.pk for u in account_mailbox_holders(user.email) if u.pk != user.pk and account_unverified(u)]
        _delete(_unverified().filter(pk__in=rivals))
        user.is_active = True
        user.save(update_fields=["is_active"])


def password_reset_refusal(*, email: str, ip: str) -> Refused | None:
    """Why a reset mail for ``email`` is refused now (``None``: send, counted whether or not an account has it)."""
    hits = _daily_take("reset", email=email, ip=ip)
    refusal = _daily_refusal(hits, "RESETS", "Too many password reset requests")
    if refusal is not None:
        rate_give_back(*hits)
    return refusal


def _daily_take(kind: str, *, email: str, ip: str) -> tuple[RateHit, RateHit, RateHit]:
    """Count one request per mailbox, client and network for today (given back unless it is accepted).

    Counting first and giving back a refusal keeps each limit exact under concurrent requests.
    """
    return (rate_take(f"{kind}-email", email_mailbox(email), window=DAY),
            rate_take(f"{kind}-ip", ip, window=DAY),
            rate_take(f"{kind}-net", client_network(ip), window=DAY))


def _daily_refusal(hits: tuple[RateHit, RateHit, RateHit], setting: str, too_many: str) -> Refused | None:
    """Why counted ``hits`` are over a limit (``None``: not): a 429 that lifts when the UTC day ends."""
    limits = _limits()
    per_address, per_ip, per_network = (hit.count for hit in hits)
    at = hits[0].resets_at
    if per_address > limits[f"{setting}_PER_EMAIL_PER_DAY"]:
        return limit_refused("rate_limited", f"{too_many} for this email address today; try again {retry_text(at)}.",
                             at)
    if per_ip > limits[f"{setting}_PER_IP_PER_DAY"] or per_network > limits[f"{setting}_PER_NETWORK_PER_DAY"]:
        return limit_refused("rate_limited", f"{too_many} from your network today; try again {retry_text(at)}.", at)
    return None


def account_email_on_end(user: Any) -> bool:
    """Whether ``user`` asked for an e-mail when a submission of theirs ends."""
    return AccountSettings.objects.filter(user=user, email_on_end=True).exists()


def account_email_on_end_set(user: Any, on: bool) -> None:
    AccountSettings.objects.update_or_create(user=user, defaults={"email_on_end": on})


def system_account_get(username: str) -> Any:
    """The account a maintainer's command owns entries with (``released-outputs``), created when missing
    with no usable password, so nobody signs in as it. A person's account of that name is refused, never taken."""
    user, created = get_user_model().objects.get_or_create(username=username, defaults={"is_active": True})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    elif user.has_usable_password() or user.last_login is not None:
        raise Refused("account_taken", f"the account {username!r} belongs to a person; the system account needs "
                      "its own name", field="username")
    return user
