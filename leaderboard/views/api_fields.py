"""Submission fields from a request, checked before anything reaches the database.

A JSON body may carry any type and a form any text; the database refuses NUL characters,
lone surrogates and over-long values with errors that would otherwise be 500s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from leaderboard.models import Submission
from leaderboard.views.errors import ApiError
from scoring.jsonl import json_type

BOOLEAN_FIELDS = ("open_weights", "private")
DESCRIPTION_LIMIT = 20_000


STORED_FIELDS = ("model_name", "organisation", "paper_url", "code_url", "parameters", "description")


def _limit(name: str) -> int | None:
    if name == "description":
        return DESCRIPTION_LIMIT
    if name in STORED_FIELDS:
        return Submission._meta.get_field(name).max_length
    return None  # settings must be one of their choices; unknown fields are refused by the metadata


def check_submission_fields(data: Mapping[str, Any]) -> None:
    """Raise a 400 :class:`ApiError` naming the first field that is not storable text."""
    for name in list(data.keys()):
        if name == "predictions":
            continue
        values = data.getlist(name) if hasattr(data, "getlist") else [data[name]]
        for value in values:
            _check_value(name, value)


def _check_value(name: str, value: Any) -> None:
    if value is None or (name in BOOLEAN_FIELDS and isinstance(value, bool)):
        return
    if not isinstance(value, str):
        kind = "a boolean or a string" if name in BOOLEAN_FIELDS else "a string"
        raise ApiError("wrong_type", f"{name} must be {kind}, got {json_type(value)}", field=name)
    if "\x00" in value:
        raise ApiError("invalid_text", f"{name} contains a NUL character", field=name)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError("invalid_text", f"{name} contains a lone surrogate (not valid Unicode text)",
                       field=name) from None
    limit = _limit(name)
    if limit is not None and len(value) > limit:
        raise ApiError("too_long", f"{name} has {len(value):,} characters; the limit is {limit:,}", field=name)
