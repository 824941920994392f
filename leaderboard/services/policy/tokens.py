"""API tokens: issue, revoke, and authenticate a request's key (recording its last use)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from leaderboard.models import ApiToken
from leaderboard.models.accounts import hash_token
from leaderboard.services.policy.refusals import Refused


def token_issue(*, user: Any, name: str) -> tuple[ApiToken, str]:
    """A new token of ``user`` and its raw key (returned once, never stored)."""
    return ApiToken.issue(user, name)


def token_revoke(*, user: Any, pk: int) -> None:
    """Delete ``user``'s token ``pk``; another account's token, or none, is left as it is."""
    ApiToken.objects.filter(user=user, pk=pk).delete()


def token_authenticate(*, raw: str) -> Any:
    """The user whose token ``raw`` is, its use recorded; a 401 refusal for an unknown key or an inactive user."""
    token = ApiToken.objects.select_related("user").filter(key_hash=hash_token(raw)).first()
    if token is None or not token.user.is_active:
        raise Refused("invalid_token", "the API token is not valid", status=401)
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user
