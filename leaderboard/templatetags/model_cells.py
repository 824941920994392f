"""Cells of the model pages and the models overview, written by the board's own cell writer."""

from __future__ import annotations

import html
from types import SimpleNamespace
from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from leaderboard.templatetags.board import metric_cell, num

register = template.Library()


@register.simple_tag
def model_cell(cell: Any) -> SafeString:
    """A result's metric cell exactly as its board writes it (value, ± std, interval, or withheld)."""
    if cell is None:
        return mark_safe('<span title="not computed for this entry">n/a</span>')
    values = {cell.column_id: {"value": cell.value, "std": cell.std, "ci95": list(cell.ci95) if cell.ci95 else None,
                               **({"withheld": cell.withheld} if cell.withheld else {})}}
    column = SimpleNamespace(id=cell.column_id, decimals=cell.decimals)
    return mark_safe(metric_cell(SimpleNamespace(values=values), column))  # every part escaped there


@register.simple_tag
def overview_cell(result: Any) -> SafeString:
    """An overview cell: the board's main value only; empty where the model has no row on the board."""
    if result is None:
        return mark_safe("")
    cell = result.main
    if cell is None:
        return mark_safe('<span title="not computed for this entry">n/a</span>')
    if cell.withheld:
        return mark_safe(f'<span title="{html.escape(cell.withheld)}">not above best</span>')
    text = html.escape(num(cell.value, cell.decimals))
    if result.source == "paper":
        why = f"reported in {result.paper}, not re-scored here" + (
            f"; not ranked: {result.not_ranked}" if result.not_ranked else "")
        return mark_safe(f'<a href="{html.escape(result.entry_url)}" class="paper-value" title="{html.escape(why)}">'
                         f'{text}<span aria-hidden="true">†</span></a>')
    return mark_safe(f'<a href="{html.escape(result.entry_url)}">{text}</a>')
