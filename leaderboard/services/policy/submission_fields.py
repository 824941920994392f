"""A submission's metadata fields and their rules, declared once in :data:`FIELD_RULES`.

The upload form, the API, the owner's edit and the OpenAPI schema all read this table:

* Text: storable (a string, no NUL, no lone surrogate) and at most ``max_length`` characters as sent
  (longer values are refused, never truncated); then stripped, and bidirectional controls
  (U+202A-U+202E, U+2066-U+2069) removed: they reorder the text around them on every page that shows it.
* URLs: only ``http`` and ``https`` (a ``javascript:`` link on a public page is stored XSS).
* Yes/no fields: a boolean (or its text form).

A refusal names the field. Messages name it as the API does (``paper_url``) or, for the owner's
form, as a person reads it (``paper url``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from leaderboard.services.policy.refusals import Refused
from scoring.reading.jsonl import json_type

URL_MAX_LENGTH = 200  # the URLField columns
BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
_URL_VALIDATOR = URLValidator(schemes=["http", "https"])

Kind = Literal["text", "url", "boolean"]
Voice = Literal["api", "form"]


@dataclass(frozen=True)
class FieldRule:
    """One metadata field: its kind, its limit, whether it is required at upload and editable afterwards."""

    name: str
    kind: Kind
    max_length: int | None = None
    required: bool = False
    editable: bool = True
    description: str = ""

    @property
    def label(self) -> str:
        """The field as a person reads it on a form."""
        return self.name.replace("_", " ")

    def called(self, voice: Voice) -> str:
        return self.label if voice == "form" else self.name


FIELD_RULES: dict[str, FieldRule] = {rule.name: rule for rule in (
    FieldRule("model_name", "text", 200, required=True, description="how the model appears on the leaderboard"),
    FieldRule("organisation", "text", 200),
    FieldRule("description", "text", 5000),
    FieldRule("paper_url", "url", URL_MAX_LENGTH, description="an http:// or https:// link"),
    FieldRule("code_url", "url", URL_MAX_LENGTH, description="an http:// or https:// link"),
    FieldRule("parameters", "text", 50, description="e.g. 7B"),
    FieldRule("open_weights", "boolean"),
    FieldRule("private", "boolean", editable=False),
)}
TEXT_FIELDS = tuple(name for name, rule in FIELD_RULES.items() if rule.kind != "boolean")
BOOLEAN_FIELDS = tuple(name for name, rule in FIELD_RULES.items() if rule.kind == "boolean")
EDITABLE_FIELDS = tuple(name for name, rule in FIELD_RULES.items() if rule.editable)


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


def fields_storable(data: Mapping[str, Any], *, skip: tuple[str, ...] = ("predictions",)) -> None:
    """Refuse (400, naming it) the first value of ``data`` that is not storable text: the wrong JSON type,
    a NUL character or a lone surrogate (the database would answer those with a 500)."""
    for name in list(data.keys()):
        if name in skip:
            continue
        values = data.getlist(name) if hasattr(data, "getlist") else [data[name]]
        for value in values:
            _check_storable(name, value)


def _check_storable(name: str, value: Any) -> None:
    boolean = name in BOOLEAN_FIELDS
    if value is None or (boolean and isinstance(value, bool)):
        return
    if not isinstance(value, str):
        kind = "a boolean or a string" if boolean else "a string"
        raise Refused("wrong_type", f"{name} must be {kind}, got {json_type(value)}", field=name)
    if "\x00" in value:
        raise Refused("invalid_text", f"{name} contains a NUL character", field=name)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise Refused("invalid_text", f"{name} contains a lone surrogate (not valid Unicode text)",
                      field=name) from None


def field_clean(name: str, value: str, *, voice: Voice = "api") -> str:
    """The value of text field ``name`` as stored: stripped, bidi controls removed; refused (400) when
    longer than the field's limit or, for a link, not ``http(s)``. ``voice`` words the message."""
    rule = FIELD_RULES[name]
    limit = rule.max_length
    if limit is not None and len(value) > limit:  # as sent: the schema's maxLength and a form's maxlength
        message = (f"{rule.label} is longer than {limit} characters" if voice == "form"
                   else f"{name} is {len(value):,} characters; at most {limit:,} are allowed")
        raise Refused("too_long", message, field=name)
    value = text_without_bidi(value.strip())
    if rule.kind == "url" and value and not url_is_safe(value):
        ending = "address" if voice == "form" else "URL"
        raise Refused("invalid_url", f"{rule.called(voice)} must be an http:// or https:// {ending}", field=name)
    return value
