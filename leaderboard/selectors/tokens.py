"""API tokens."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from leaderboard.models import ApiToken


def token_list(user: Any) -> QuerySet[ApiToken]:
    """``user``'s tokens, newest first."""
    return user.api_tokens.all()
