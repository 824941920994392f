"""How the field looks: model search, metadata filters, the column chooser, the interval and
state-of-the-art-over-time plots' data, and each split's top entry for the home page.

Filters round-trip through the URL: ``q`` (model or organisation contains), ``open=yes|no``,
``params_min`` / ``params_max`` (``7B``, ``350M``), ``provenance=submitted|released`` (uploaded by their
owners, or a release's outputs re-scored here), ``cols`` (column ids or keys, comma-separated).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from leaderboard.models import Provenance
from leaderboard.services.boards.explore import clean_text

_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([kmbt]?)\s*$", re.I)
_UNITS = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}
_YEAR = re.compile(r"\((\d{4})[a-z]?\)")


def parameter_count(text: str) -> float | None:
    """``"7B"`` -> 7e9, ``"350M"`` -> 3.5e8; None when the text is not a size."""
    match = _SIZE.match(text or "")
    return float(match[1]) * _UNITS[match[2].lower()] if match else None


def field_filters(params: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """The metadata filters set in ``params`` (cleaned), and a message for each value not applied."""
    out = {k: clean_text(params[k]) for k in ("q", "open", "params_min", "params_max", "provenance") if params.get(k)}
    problems = []
    if out.get("open") not in (None, "yes", "no"):
        problems.append(f"open is yes or no, not {out.pop('open')[:20]!r}: not applied")
    if out.get("provenance") not in (None, *Provenance.values):
        problems.append(f"provenance is submitted or released, not {out.pop('provenance')[:20]!r}: not applied")
    for name in ("params_min", "params_max"):
        if name in out and parameter_count(out[name]) is None:
            problems.append(f"{name} is a size such as 7B or 350M, not {out.pop(name)[:20]!r}: not applied")
    return {k: v for k, v in out.items() if v}, problems


def field_match(entry: Any, filters: Mapping[str, str]) -> bool:
    """Whether a leaderboard entry passes the metadata filters."""
    query = filters.get("q", "").casefold()
    if query and query not in entry.model_name.casefold() and query not in entry.organisation.casefold():
        return False
    if "open" in filters and entry.open_weights is not (filters["open"] == "yes"):
        return False
    if "provenance" in filters and getattr(entry, "provenance", None) != filters["provenance"]:
        return False  # a paper's row is neither: reported in the paper, not re-scored here
    size = parameter_count(entry.parameters)
    low, high = parameter_count(filters.get("params_min", "")), parameter_count(filters.get("params_max", ""))
    if (low is not None or high is not None) and size is None:
        return False
    return (low is None or size >= low) and (high is None or size <= high)  # type: ignore[operator]


def field_columns(columns: Sequence[Any], params: Mapping[str, str]) -> tuple[list[Any], list[str]]:
    """The columns chosen with ``cols`` (ids or keys; all when absent) and the names not found."""
    listed = params.getlist("col") if hasattr(params, "getlist") else []
    wanted = [c.strip() for c in [*clean_text(params.get("cols", "")).split(","), *map(clean_text, listed)]
              if c.strip()]
    if not wanted:
        return list(columns), []
    shown = [c for c in columns if c.id in wanted or c.key in wanted]
    unknown = [w for w in wanted if not any(w in (c.id, c.key) for c in columns)]
    return shown or list(columns), unknown


def field_plots(board: Any) -> dict[str, Any]:
    """Data of the interval plot (rank order, ties, the papers' values in their lanes) and the best value over
    time. A paper's value measured under another protocol than the column's is drawn apart, never among the
    ranked points."""
    sort = board.sort
    if sort is None:
        return {"column": None, "entries": [], "best_over_time": [], "published": []}
    entries, every = [], []
    for row in board.rows:
        for other in row.entries:
            cell = other.values.get(sort.id)
            if cell and cell.get("value") is not None:  # the full time (UTC): same-day entries keep their order
                every.append({"model": other.model_name, "value": cell["value"],
                              "date": other.created_at[:19].replace("T", " ")})
        cell = row.entry.values.get(sort.id)
        if not cell or cell.get("value") is None:
            continue
        ci = cell.get("ci95") or [None, None]
        entries.append({"model": row.entry.model_name, "rank": row.rank, "tied": row.tied_with_above,
                        "value": cell["value"], "low": ci[0], "high": ci[1],
                        "date": row.entry.created_at[:10], "url": row.entry.url})
    published, not_drawn = _published_points(board.papers, sort)
    best = _best_over_time(every, sort.higher_is_better)
    return {"column": {"id": sort.id, "label": sort.label, "higher_is_better": sort.higher_is_better,
                       "decimals": sort.decimals, "unit": sort.unit, "bounds": UNIT_BOUNDS.get(sort.unit)},
            "entries": entries, "best_over_time": best, "time_range": _time_range(best, published),
            "published": published, "not_drawn": not_drawn}


def _time_range(steps: list[dict[str, Any]], published: list[dict[str, Any]]) -> list[str] | None:
    """The time axis when every point lies within a week: a day either side, so its ticks are days
    (plotly would otherwise zoom a single day down to milliseconds). None: plotly's own range."""
    times = [datetime.fromisoformat(s["date"]) for s in steps]
    times += [datetime(p["year"], 7, 1) for p in published if p["year"]]
    if not times or max(times) - min(times) >= timedelta(days=7):
        return None
    day = timedelta(days=1)
    return [(min(times) - day).strftime("%Y-%m-%d"), (max(times) + day).strftime("%Y-%m-%d")]


UNIT_FACTOR = {"0–1": 1.0, "0–100": 100.0, "%": 100.0}  # units that are one quantity at another factor
UNIT_BOUNDS = {"0–1": [0.0, 1.0], "0–100": [0.0, 100.0], "%": [0.0, 100.0], "−1 to 1": [-1.0, 1.0],
               "1–5": [1.0, 5.0], "0–5": [0.0, 5.0], "share 0–1": [0.0, 1.0]}


def on_scale(value: float, printed: str, shown: str) -> float | None:
    """A published value moved from its printed unit to a column's unit (``%`` = 0–100 = 100 × 0–1);
    None when the two units are not one quantity at two factors."""
    if printed == shown:
        return value
    if printed in UNIT_FACTOR and shown in UNIT_FACTOR:
        return value * UNIT_FACTOR[shown] / UNIT_FACTOR[printed]
    return None


def _published_points(papers: Sequence[Any], sort: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """The papers' values of the sort column as the board places them (in printed order): each with its lane,
    its rank where it is ranked, and how its protocol differs where it is another; a line for each value that
    cannot be put on the column's scale."""
    points, not_drawn = [], []
    for row in sorted(papers, key=lambda r: r.key):
        cell = row.values.get(sort.id) or row.other_protocol.get(sort.id)
        if sort.id in row.left_out:
            not_drawn.append(f"{row.model_name} ({row.table}): {row.left_out[sort.id]}")
        if cell is None:
            continue
        year = _YEAR.search(row.paper)
        points.append({"model": row.model_name, "value": cell["value"], "printed": cell["printed"],
                       "printed_unit": cell["printed_unit"], "paper": row.paper, "table": row.table,
                       "year": int(year[1]) if year else None, "lane": row.lane, "rank": row.rank,
                       "differs": cell.get("differs", "")})
    return points, not_drawn


def _best_over_time(entries: list[dict[str, Any]], higher_is_better: bool) -> list[dict[str, Any]]:
    """Each entry that improved on every earlier one (by submission date): the state of the art."""
    best: float | None = None
    steps = []
    for entry in sorted(entries, key=lambda e: (e["date"], e["model"])):
        value = entry["value"]
        if best is None or (value > best if higher_is_better else value < best):
            best = value
            steps.append({"date": entry["date"], "value": value, "model": entry["model"]})
    return steps


def field_context(board: Any, params: Mapping[str, str]) -> dict[str, Any]:
    """What the leaderboard page adds for the field: chosen columns, filters, notices, plot data."""
    shown, unknown = field_columns(board.columns, params)
    if board.sort is not None and board.sort not in shown:  # the caption's "Sorted by" names a shown column
        shown = [c for c in board.columns if c in shown or c == board.sort]
    filters, problems = field_filters(params)
    if unknown:
        problems.append(f"no column {', '.join(repr(u[:40]) for u in unknown)}: not shown")
    return {"shown_columns": shown, "field_filters": filters, "field_problems": problems,
            "field_plots": field_plots(board), "chosen_columns": {c.id for c in shown},
            "all_columns_shown": len(shown) == len(board.columns)}
