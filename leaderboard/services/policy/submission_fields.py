"""Checks on user-supplied text fields before the database (or a page) sees them.

* URLs: only ``http`` and ``https`` (a ``javascript:`` link on a public page is stored XSS).
* Lengths: every field has a documented maximum; longer values are refused, never truncated.
* Bidirectional controls (U+202A-U+202E, U+2066-U+2069) are removed from names and descriptions:
  they reorder the text around them on every page that shows the name.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

URL_MAX_LENGTH = 200  # the URLField columns
FIELD_MAX_LENGTHS = {"model_name": 200, "organisation": 200, "parameters": 50, "paper_url": URL_MAX_LENGTH,
                     "code_url": URL_MAX_LENGTH, "description": 5000}
BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
_URL_VALIDATOR = URLValidator(schemes=["http", "https"])


class FieldInvalid(ValueError):
    """A field value refused; ``field`` names it and ``code`` says why."""

    def __init__(self, code: str, message: str, *, field: str) -> None:
        super().__init__(message)
        self.code, self.message, self.field = code, message, field


def text_without_bidi(value: str) -> str:
    """``value`` without bidirectional embedding, override and isolate characters."""
    return BIDI_CONTROLS.sub("", value)


def url_is_safe(value: str) -> bool:
    """True for an absolute ``http``/``https`` URL (what a page may render as a link)."""
    if not value or len(value) > URL_MAX_LENGTH:
        return False
    try:
        _URL_VALIDATOR(value)
    except ValidationError:
        return False
    return True


def field_clean(name: str, value: str) -> str:
    """The stripped value of field ``name``, or :class:`FieldInvalid` (too long, or a bad URL)."""
    value = text_without_bidi(value.strip())
    limit = FIELD_MAX_LENGTHS.get(name)
    if limit is not None and len(value) > limit:
        raise FieldInvalid("too_long", f"{name} is {len(value):,} characters; at most {limit:,} are allowed",
                           field=name)
    if name.endswith("_url") and value and not url_is_safe(value):
        raise FieldInvalid("invalid_url", f"{name} must be an http:// or https:// URL", field=name)
    return value
