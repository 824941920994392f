"""Files people open in spreadsheets: the leaderboard as CSV rows, and cells a spreadsheet cannot run."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from leaderboard.services.boards.paper_rows import LANES

# A cell starting with one of these is a formula to Excel, LibreOffice and Google Sheets
# (tab and carriage return too, since some strip them first); OWASP's CSV-injection advice.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: Any) -> Any:
    """``value`` as a cell no spreadsheet executes: text starting like a formula gets a leading ``'``."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def leaderboard_csv(board: Any, entry_url: Callable[[str], str]) -> Iterator[list[Any]]:
    """Header, then one row per leaderboard row: one column per setting, value, std, interval bounds
    and signature per metric column, the submission date and the entry's URL; then the model's
    parameters, open weights (blank: not said), paper and code URLs and whether the site's demo loader made it; last,
    its provenance, ``source`` (site or paper: the papers' rows are lines too, in the board's order, values as the
    board places them) and, for a paper's row without a rank, its lane and why. On a board whose publisher parses
    answers, two more: the answers its parser could not map and all answers (over the runs), as the board's
    *Parsed* column counts them (``withheld`` where the viewer may not see them)."""
    settings = board.split.spec.settings
    columns = board.columns
    parsed = ["unparsed_answers", "answers"] if board.parsing else []
    yield ["rank", "statistically_tied", "model_name", "organisation",
           *[f"setting_{s.key}" for s in settings], "verified", "entry_id", "entry_url", "submitted_at",
           "runs", "complete",
           *[name for c in columns for name in (f"{c.label} ({c.key})", f"{c.label} std",
                                                 f"{c.label} ci_low", f"{c.label} ci_high")],
           *[f"{c.label} signature" for c in columns],
           "parameters", "open_weights", "paper_url", "code_url", "demo", "provenance", "source", "lane",
           "not_ranked", *parsed]
    for row in board.table:
        if getattr(row, "source", "site") == "paper":
            yield _paper_line(row, board.sort, settings, columns) + ["" for _ in parsed]
            continue
        entry = row.entry
        cells = [entry.values.get(c.id) or {} for c in columns]
        yield [csv_safe(v) for v in (
            row.rank or "", row.tied_with_above, entry.model_name, entry.organisation,
            *[entry.settings.get(s.key, "") for s in settings], entry.verified, entry.uid, entry_url(entry.url),
            entry.created_at, entry.runs, row.complete,
            *[v for cell in cells for v in (_blank(cell.get("value")), _blank(cell.get("std")),
                                            *(cell.get("ci95") or ("", "")))],
            *[c.signature for c in columns],
            entry.parameters, _blank(entry.open_weights), entry.paper_url, entry.code_url, entry.demo,
            entry.provenance, "site", "", "", *(_parse_counts(entry.parsing) if parsed else ()))]


def _parse_counts(parsing: Any) -> tuple[Any, Any]:
    """(answers not parsed, answers) of an entry's parse summary; blank before counts were kept."""
    if not parsing:
        return "", ""
    if "withheld" in parsing:
        return "withheld", "withheld"
    return parsing["unparsed"], parsing["answers"]


def _paper_line(row: Any, sort: Any, settings: Any, columns: Any) -> list[Any]:
    """A paper's row: its printed values on the columns' scales, no interval or signature; ``lane`` and
    ``not_ranked`` say why a row holds no rank (another protocol than the sort column's, a model ranked above)."""
    printed = {**row.other_protocol, **row.values}
    differs = row.other_protocol.get(sort.id, {}).get("differs", "") if sort is not None else ""
    why = "" if row.rank is not None else differs or LANES.get(row.lane, "")
    return [csv_safe(v) for v in (
        row.rank or "", False, row.model_name, "", *[row.settings.get(s.key, "") for s in settings], "", "", "",
        "", "", "",
        *[v for c in columns for v in (_blank((printed.get(c.id) or {}).get("value")), "", "", "")],
        *["" for _ in columns], "", "", "", "", "", f"paper: {row.paper}, {row.table}", "paper", row.lane, why)]


def _blank(value: Any) -> Any:
    return "" if value is None else value
