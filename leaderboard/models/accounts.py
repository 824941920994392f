"""API tokens (shown once, stored as a hash) and account settings."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models

TOKEN_PREFIX = "mlb_"


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, default="default")
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=12)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    @classmethod
    def issue(cls, user: object, name: str = "default") -> tuple[ApiToken, str]:
        """Create a token; the raw key is returned once and never stored."""
        raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(user=user, name=name, key_hash=hash_token(raw), prefix=raw[:10])
        return token, raw


class AccountSettings(models.Model):
    """One account's preferences."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account_settings")
    email_on_end = models.BooleanField(default=False, help_text="E-mail me when a submission of mine ends.")
