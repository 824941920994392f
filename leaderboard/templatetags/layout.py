"""Presentation helpers for page layout: the explorer's category select grouped by field."""

from __future__ import annotations

from itertools import groupby

from django import template

register = template.Library()


@register.filter
def by_field(groups: list[str]) -> list[tuple[str, list[tuple[str, str]]]]:
    """``["genre=jazz", "genre=rock", "sub-category=Chords"]`` -> ``[("genre", [("genre=jazz", "jazz"),
    ...]), ("sub-category", [...])]``: the option value stays the ``key=value`` filter, its text the value."""
    pairs = sorted((g.partition("=")[0], g.partition("=")[2], g) for g in groups)
    return [(field.replace("_", " "), [(g, value or g) for _, value, g in rows])
            for field, rows in groupby(pairs, key=lambda p: p[0])]
