"""Small formatting helpers for the leaderboard templates."""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import urlencode

from django import template
from django.utils.safestring import mark_safe

from scoring.signature import Signature

register = template.Library()


@register.filter
def get(mapping: Any, key: Any) -> Any:
    if mapping is None:
        return None
    try:
        return mapping.get(key)
    except AttributeError:
        return None


@register.simple_tag
def num(value: Any, decimals: int = 4) -> str:
    """A number with fixed decimals, or an en dash when missing."""
    if value is None or value == "":
        return "–"
    try:
        return f"{float(value):.{int(decimals)}f}"
    except (TypeError, ValueError):
        return str(value)


@register.simple_tag
def metric_cells(entry: Any, columns: Any) -> str:
    """A leaderboard row's metric cells (``<td>`` each): one tag per row instead of a dozen
    template nodes per cell, since a board has rows x columns of them."""
    return mark_safe("".join(f'\n      <td class="num">{metric_cell(entry, c)}</td>' for c in columns))


def metric_cell(entry: Any, column: Any) -> str:
    """A cell's content: value, ± std over runs, the 95% interval; n/a when not computed."""
    cell = entry.values.get(column.id)
    if not cell:
        return '<span title="not computed for this entry">n/a</span>'
    if cell.get("withheld"):
        return f'<span title="{html.escape(cell["withheld"])}">not above best</span>'
    decimals = column.decimals
    out = _escaped_num(cell["value"], decimals)
    if cell.get("std") is not None:
        out += f'<span class="std"> ± {_escaped_num(cell["std"], decimals)}</span>'
    if cell.get("ci95"):
        low, high = cell["ci95"]
        out += (f'<div class="ci" title="95% bootstrap interval">[{_escaped_num(low, decimals)}, '
                f'{_escaped_num(high, decimals)}]</div>')
    return out  # every part is escaped


def _escaped_num(value: Any, decimals: int) -> str:
    return html.escape(num(value, decimals))


@register.simple_tag(takes_context=True)
def query(context: Any, **changes: Any) -> str:
    """The current query string with some parameters changed (``None`` removes one). Every value
    of a repeated parameter stays (the column chooser's ``col=a&col=b``)."""
    params: dict[str, list[str]] = {k: v for k, v in context["request"].GET.lists()}
    for key, value in changes.items():
        if value is None or value == "":
            params.pop(key, None)
        else:
            params[key] = [str(value)]
    params.pop("page", None) if "page" not in changes else None
    return "?" + urlencode(params, doseq=True) if params else "?"


@register.filter
def signature_fields(signature: str) -> list[tuple[str, str]]:
    return list(Signature.parse(signature))


@register.filter
def safe_url(value: Any) -> str:
    """``value`` if it is an http(s) URL, else "" (a page never renders another scheme as a link)."""
    from leaderboard.services.policy.submission_fields import url_is_safe

    return value if isinstance(value, str) and url_is_safe(value) else ""
