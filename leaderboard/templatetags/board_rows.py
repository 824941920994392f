"""The leaderboard table's rows as one template tag each.

A board has up to a hundred rows, and as template nodes (an include per row, a loop over its
entries) they were half of a cold page's render time; this writes the same HTML from Python.
Every value goes through ``escape`` / ``format_html``.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from leaderboard.templatetags.board import metric_cells, num
from leaderboard.templatetags.pages import entry_facts

register = template.Library()

_TIED = ' <span title="statistically tied: 95% intervals overlap">≈</span>'
_PICK = ('<label class="pick" title="pick two entries, then “Compare”"><input type="checkbox" name="pick" '
         'value="{}"> <span class="visually-hidden">compare {}</span></label> ')


@register.simple_tag
def board_row(row: Any, board: Any, spec: Any, columns: Any) -> SafeString:
    """One ``<tr>`` of the leaderboard: rank, model cell (badges, facts, every entry), metric cells."""
    entry = row.entry
    classes = ("mine" if row.mine else "") + ("" if row.complete else " incomplete")
    rank = f"{row.rank}{_TIED if row.tied_with_above else ''}" if row.rank else "–"
    return format_html(
        '\n    <tr class="{}" data-model="{}">\n      <td class="rank">{}</td>\n      <td class="model">{}{}</td>{}\n'
        '    </tr>', classes, entry.model_name, mark_safe(rank), format_html(_PICK, entry.uid, entry.model_name),
        _model_cell(row, board, spec), metric_cells(entry, columns))


def _model_cell(row: Any, board: Any, spec: Any) -> SafeString:
    entry = row.entry
    parts = [format_html('<a href="{}">{}</a>', entry.url, entry.model_name)]
    if row.mine:
        parts.append(' <span class="badge mine">yours</span>')
    if entry.verified:
        parts.append(' <span class="badge verified" title="checked by a maintainer">verified</span>')
    if entry.demo:
        parts.append(' <span class="badge demo" title="made by the site\'s demo loader; not a real model">demo'
                     "</span>")
    if entry.private:
        parts.append(' <span class="badge" title="others see this model\'s best public entry instead">your '
                     "private entry</span>" if row.public_entry_exists else ' <span class="badge">private</span>')
    parts.append(format_html('\n        <div class="meta">{}</div>', entry_facts(entry, spec)))
    if not row.complete:
        parts.append(format_html('\n        <div class="meta warn">incomplete: no {}</div>',
                                 mark_safe(", ".join(escape(m) for m in row.missing))))
    if entry.judge_flags:
        flags = entry.judge_flags
        parts.append(format_html('\n        <div class="meta warn" title="judged as data; see the entry\'s item '
                                 'explorer">⚠ {} prediction{} tried to address the judge</div>',
                                 flags, "" if flags == 1 else "s"))
    if len(row.entries) > 1:
        parts.append(format_html('\n        <details><summary>all {} entries</summary>\n          <ul>{}</ul>\n'
                                 '        </details>', len(row.entries), _entry_list(row, board)))
    return mark_safe("".join(parts) + "\n")


def _entry_list(row: Any, board: Any) -> SafeString:
    sort = board.sort
    items = []
    for other in row.entries:
        organisation = other.organisation if other.organisation and other.organisation != row.entry.organisation else ""
        cell = other.values.get(sort.id) if sort is not None else None
        value = num(cell.get("value") if cell else None, sort.decimals if sort is not None else 4)
        items.append(format_html('<li><a href="{}">{}</a>{}{}: {}</li>', other.url, other.created_at[:10],
                                 format_html(" ({})", organisation) if organisation else "",
                                 mark_safe(' <span class="meta">private</span>') if other.private else "", value))
    return mark_safe("".join(items))
