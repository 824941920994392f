"""Accounts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.contrib.auth import get_user_model

from leaderboard.services.policy.accounts import account_unverified


def account_list_resettable(email: str) -> Iterator[Any]:
    """Accounts with this address (any case) whose password a reset may set: usable passwords, active
    accounts and never-verified ones (following the link verifies them)."""
    users = get_user_model()._default_manager.filter(email__iexact=email)
    return (u for u in users if u.has_usable_password() and (u.is_active or account_unverified(u)))
