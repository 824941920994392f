"""The field plots' table fallbacks (intervals, best over time) as one template tag per table body.

Fifty-odd rows of a few cells each cost a cold page several milliseconds as template nodes; this
writes the same HTML from Python, every value escaped as ``{{ value }}`` would render it.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.formats import localize
from django.utils.safestring import SafeString, mark_safe

from leaderboard.templatetags.board import num
from leaderboard.templatetags.pages import escape

register = template.Library()


def _shown(value: Any) -> str:
    """A value as ``{{ value }}`` shows it (localized, escaped)."""
    return escape(localize(value))


@register.simple_tag
def interval_rows(plots: dict[str, Any]) -> SafeString:
    """The intervals table's rows: rank (≈ when tied), model, value, 95% interval; then the papers' values
    with their rank on the board, or marked as reference values of another protocol."""
    decimals = plots["column"]["decimals"]
    rows = []
    for e in plots["entries"]:
        rank = f"{_shown(e['rank'])}{' ≈' if e['tied'] else ''}" if e["rank"] else "–"
        interval = (f"[{escape(num(e['low'], decimals))}, {escape(num(e['high'], decimals))}]"
                    if e["low"] is not None else "–")
        rows.append(f"<tr><td>{rank}</td><td>{escape(e['model'])}</td><td class=\"num\">"
                    f"{escape(num(e['value'], decimals))}</td><td class=\"num\">{interval}</td></tr>")
    rows.append("\n      ")
    for p in plots["published"]:
        year = f", {_shown(p['year'])}" if p["year"] else ""
        other = p["lane"] == "other_protocol"
        place = "reference" if other else (f"{_shown(p['rank'])} (paper)" if p["rank"] else "published")
        how = f"printed {_shown(p['printed'])} ({escape(p['printed_unit'])})"
        rows.append(f'<tr class="published{" other-protocol" if other else ""}"><td>{place}</td><td>'
                    f'{escape(p["model"])} <span class="meta">{escape(p["table"])}{year}</span></td><td class="num">'
                    f'{escape(num(p["value"], decimals))}</td><td class="num meta">{how}'
                    f'{"; another protocol: " + escape(p["differs"]) if other else ""}</td></tr>')
    return mark_safe("".join(rows))


@register.simple_tag
def best_rows(plots: dict[str, Any]) -> SafeString:
    """The best-over-time table's rows: date, model, value; then the papers' values by year (those measured
    as the column is: another protocol's are not a step of this column's state of the art)."""
    decimals = plots["column"]["decimals"]
    rows = [f"<tr><td>{escape(s['date'][:16].replace('T', ' '))}</td><td>{escape(s['model'])}</td><td class=\"num\">"
            f"{escape(num(s['value'], decimals))}</td></tr>" for s in plots["best_over_time"]]
    rows.append("\n      ")
    rows += [f'<tr class="published"><td>{_shown(p["year"])} (paper)</td><td>{escape(p["model"])}</td>'
             f'<td class="num">{escape(num(p["value"], decimals))}</td></tr>' for p in plots["published"]
             if p["year"] and p["lane"] != "other_protocol"]
    return mark_safe("".join(rows))
