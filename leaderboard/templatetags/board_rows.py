"""The leaderboard table's rows as one template tag each.

A board has up to a hundred rows, and as template nodes (an include per row, a loop over its
entries) they were half of a cold page's render time; this writes the same HTML from Python with
f-strings, every value through ``escape`` (``html.escape``, as Django's own ``escape``).
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from leaderboard.models import Provenance
from leaderboard.services.boards.labels import settings_labelled
from leaderboard.services.boards.paper_rows import LANES, PAPER_BADGE, RANKED, PaperRow
from leaderboard.services.boards.parsing import NOT_COUNTED, parsed_percent, unparsed_text
from leaderboard.services.boards.provenance import RELEASED_BADGE, answered_line, answers_every_item
from leaderboard.services.boards.ties import INTERVALS, PAIRED, RELEASED, VALUES
from leaderboard.templatetags.board import metric_cells, num
from leaderboard.templatetags.pages import entry_facts, escape

register = template.Library()

_PRIVATE = ' <span class="meta">private</span>'
_TIED = {rule: f' <span title="{title}">≈</span>' for rule, title in {  # by the rule that decided the tie
    PAIRED: "statistically tied with its rank group's top entry: compare's paired bootstrap over the same items "
            "does not separate the two at the 5% level",
    INTERVALS: "statistically tied with its rank group's top entry: 95% intervals overlap (no per-item arrays "
               "stored to test on)",
    VALUES: "tied with its rank group's top entry: equal values (no interval)",
    RELEASED: "tied with its rank group's top entry: equal released values (hidden-label split)",
}.items()}


@register.simple_tag
def board_row(row: Any, board: Any, spec: Any, columns: Any) -> SafeString:
    """One ``<tr>`` of the leaderboard: rank, model cell (badges, facts, every entry), metric cells; a
    paper's row is a ``<tr class="paper">`` without entry, compare box or interval."""
    if isinstance(row, PaperRow):
        return _paper_row(row, board, spec, columns)
    entry = row.entry
    classes = ("mine" if row.mine else "") + ("" if row.complete else " incomplete")
    rank = f"{int(row.rank)}{_TIED[row.tie_rule] if row.tied_with_above else ''}" if row.rank else "–"
    name = escape(entry.model_name)
    pick = (f'<label class="pick" title="pick two entries, then “Compare”"><input type="checkbox" name="pick" '
            f'value="{escape(entry.uid)}"> <span class="visually-hidden">compare {name}</span></label> ')
    return mark_safe(f'\n    <tr class="{classes}" data-model="{name}">\n      <td class="rank">{rank}</td>\n'
                     f'      <td class="model">{pick}{_model_cell(row, board, spec)}</td>'
                     f'{metric_cells(entry, columns)}{_parsing_cell(entry, board)}\n    </tr>')


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
    source = entry.source or {}
    if entry.provenance == Provenance.RELEASED:
        about = f"released by {source.get('publisher', '')}, scored here; {source.get('licence', '')}"
        parts.append(f' <a class="badge released" href="{escape(source.get("url", ""))}" title="{escape(about)}" '
                     f'rel="nofollow noopener">{RELEASED_BADGE}</a>')
    if entry.private:
        parts.append(" <span class=\"badge\" title=\"others see this model's best public entry instead\">your "
                     "private entry</span>" if row.public_entry_exists else ' <span class="badge">private</span>')
    parts.append(f'\n        <div class="meta">{entry_facts(entry, spec)}</div>')
    if not answers_every_item(source):
        parts.append(f'\n        <div class="meta warn" title="the items the released file lacks are scored as empty '
                     f'answers">{escape(answered_line(source))}</div>')
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


def _parsing_cell(entry: Any, board: Any) -> str:
    """The entry's parse rate (never ranked): the share of answers the publisher's parser mapped, and how many it
    did not; empty on a board without a parser."""
    if not getattr(board, "parsing", ""):
        return ""
    summary = entry.parsing
    if summary is None:
        content = f'<span title="{escape(NOT_COUNTED)}">–</span>'
    elif "withheld" in summary:
        content = f'<span title="{escape(summary["withheld"])}">withheld</span>'
    else:
        about = f"{unparsed_text(summary)}: {board.parsing}"
        content = f'<span title="{escape(about)}">{escape(parsed_percent(summary))}</span>'
        if summary["unparsed"]:
            content += f'<div class="meta">{summary["unparsed"]:,} of {summary["answers"]:,} not parsed</div>'
    return f'\n      <td class="num parsed">{content}</td>'


def _paper_row(row: PaperRow, board: Any, spec: Any, columns: Any) -> SafeString:
    rank = str(int(row.rank)) if row.rank else "–"
    name = escape(row.model_name)
    facts = [escape(row.paper.split(",", 1)[0]), escape(row.table)]
    facts += [f'<span title="{escape(label)}">{escape(value)}</span>'
              for _, label, value in settings_labelled(spec, row.settings)]
    note = (f' · <a href="#paper-note-{int(row.footnote)}" class="note-link">note {int(row.footnote)}</a>'
            if row.footnote else "")
    sort = getattr(board, "sort", None)
    differs = row.other_protocol.get(sort.id, {}).get("differs", "") if sort is not None else ""
    why = (f'\n        <div class="meta protocol">not ranked: {escape(differs)}</div>'
           if row.lane != RANKED and differs else "")
    cells = "".join(f'\n      <td class="num">{_paper_cell(row, c)}</td>' for c in columns)
    parsed = bool(getattr(board, "parsing", ""))
    if parsed:  # a paper reports no parse count
        cells += '\n      <td class="num parsed"><span title="not reported in this paper table">–</span></td>'
    heading = (f'\n    <tr class="lane" data-lane="{escape(row.lane)}">'
               f'<th scope="rowgroup" colspan="{len(columns) + 2 + parsed}">{escape(LANES[row.lane])}</th></tr>'
               if row.lane_first and LANES[row.lane] else "")
    return mark_safe(f'{heading}\n    <tr class="paper" data-paper="{name}" data-lane="{escape(row.lane)}">\n'
                     f'      <td class="rank">{rank}</td>\n'
                     f'      <td class="model">{name} <span class="badge paper" title="{escape(row.paper)}">'
                     f'{PAPER_BADGE}</span>\n        <div class="meta">{" · ".join(facts)}{note}</div>{why}</td>'
                     f'{cells}\n    </tr>')


def _paper_cell(row: PaperRow, column: Any) -> str:
    """The paper's value on the column's scale (how it was printed in the title), the reason it is left
    out, or a dash where the paper reports no such metric."""
    if column.id in row.left_out:
        return f'<span class="left-out" title="{escape(row.left_out[column.id])}">not comparable</span>'
    other = row.other_protocol.get(column.id)
    if other is not None:
        shown = escape(num(other["value"], column.decimals))
        return f'<span class="other-protocol" title="{escape(other["note"])}">{shown}</span>'
    cell = row.values.get(column.id)
    if cell is None:
        return '<span title="not reported in this paper table">–</span>'
    shown = escape(num(cell["value"], column.decimals))
    return f'<span class="paper-value" title="{escape(cell["note"])}">{shown}</span>'
