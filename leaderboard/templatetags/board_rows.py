"""The leaderboard table's rows as one template tag each.

A board has up to a hundred rows, and as template nodes (an include per row, a loop over its
entries) they were half of a cold page's render time; this writes the same HTML from Python with
f-strings, every value through ``escape`` (``html.escape``, as Django's own ``escape``).
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from leaderboard.templatetags.board import metric_cells, num
from leaderboard.templatetags.pages import entry_facts, escape

register = template.Library()

_PRIVATE = ' <span class="meta">private</span>'
_TIED = ' <span title="statistically tied: 95% intervals overlap">≈</span>'


@register.simple_tag
def board_row(row: Any, board: Any, spec: Any, columns: Any) -> SafeString:
    """One ``<tr>`` of the leaderboard: rank, model cell (badges, facts, every entry), metric cells."""
    entry = row.entry
    classes = ("mine" if row.mine else "") + ("" if row.complete else " incomplete")
    rank = f"{int(row.rank)}{_TIED if row.tied_with_above else ''}" if row.rank else "–"
    name = escape(entry.model_name)
    pick = (f'<label class="pick" title="pick two entries, then “Compare”"><input type="checkbox" name="pick" '
            f'value="{escape(entry.uid)}"> <span class="visually-hidden">compare {name}</span></label> ')
    return mark_safe(f'\n    <tr class="{classes}" data-model="{name}">\n      <td class="rank">{rank}</td>\n'
                     f'      <td class="model">{pick}{_model_cell(row, board, spec)}</td>'
                     f'{metric_cells(entry, columns)}\n    </tr>')


def _model_cell(row: Any, board: Any, spec: Any) -> str:
    entry = row.entry
    parts = [f'<a href="{escape(entry.url)}">{escape(entry.model_name)}</a>']
    if row.mine:
        parts.append(' <span class="badge mine">yours</span>')
    if entry.verified:
        parts.append(' <span class="badge verified" title="checked by a maintainer">verified</span>')
    if entry.demo:
        parts.append(" <span class=\"badge demo\" title=\"made by the site's demo loader; not a real model\">demo"
                     "</span>")
    if entry.private:
        parts.append(" <span class=\"badge\" title=\"others see this model's best public entry instead\">your "
                     "private entry</span>" if row.public_entry_exists else ' <span class="badge">private</span>')
    parts.append(f'\n        <div class="meta">{entry_facts(entry, spec)}</div>')
    if not row.complete:
        missing = ", ".join(escape(m) for m in row.missing)
        parts.append(f'\n        <div class="meta warn">incomplete: no {missing}</div>')
    if entry.judge_flags:
        flags = int(entry.judge_flags)
        parts.append("\n        <div class=\"meta warn\" title=\"judged as data; see the entry's item explorer\">"
                     f"⚠ {flags} prediction{'' if flags == 1 else 's'} tried to address the judge</div>")
    if len(row.entries) > 1:
        parts.append(f"\n        <details><summary>all {len(row.entries)} entries</summary>\n"
                     f"          <ul>{_entry_list(row, board)}</ul>\n        </details>")
    return "".join(parts) + "\n"


def _entry_list(row: Any, board: Any) -> str:
    sort = board.sort
    items = []
    for other in row.entries:
        organisation = other.organisation if other.organisation and other.organisation != row.entry.organisation else ""
        cell = other.values.get(sort.id) if sort is not None else None
        value = num(cell.get("value") if cell else None, sort.decimals if sort is not None else 4)
        by = f" ({escape(organisation)})" if organisation else ""
        private = _PRIVATE if other.private else ""
        items.append(f'<li><a href="{escape(other.url)}">{escape(other.created_at[:10])}</a>{by}{private}: '
                     f"{escape(value)}</li>")
    return "".join(items)
