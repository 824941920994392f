"""The papers' published results as rows of a board: each value in the column of its metric, on that
column's scale, or left out with the reason.

A paper row is a public number, reported in the paper and not re-scored here: it has no entry, no
interval, no per-item data and no signature, so it is never tied, compared, drawn as an entry or
downloaded as per-item data. It is shown in the column of the same metric (the main one). Where the value was
measured under the column's protocol (``scoring.specs.protocols``: implementation, answer parser, gold,
embedding model) it is ranked with the entries; under another protocol it is shown as a reference value that
says how it differs, and never ranked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from leaderboard.models import PublishedResult, Split
from leaderboard.services.boards.field_plots import field_match, on_scale
from leaderboard.services.boards.labels import configured_bertscore, published_unit
from scoring.specs import split_column
from scoring.specs.protocols import Protocol, protocol_difference, site_protocol

PAPER_BADGE = "reported in paper, not re-scored here"
PAPERS_HIDDEN = "hide"  # ``papers=hide``: the board without the papers' rows
RANKED = "ranked"
LANES = {  # where a paper row stands on a board sorted by a column, and what the lane's heading says
    RANKED: "",
    "same_model": "Also reported for models ranked above: a model holds one rank",
    "other_protocol": "Published under another protocol than the sorted column's: shown for reference, not ranked",
    "no_value": "Published without the sorted column's metric",
}


@dataclass
class PaperRow:
    """One row of a paper's table, placed on a board."""

    model_name: str
    settings: dict[str, Any]
    paper: str
    table: str
    notes: str
    order: int
    values: dict[str, dict[str, Any]] = field(default_factory=dict)  # column id -> value on the column's scale
    left_out: dict[str, str] = field(default_factory=dict)  # column id -> why the printed value is not shown
    other_protocol: dict[str, dict[str, Any]] = field(default_factory=dict)  # column id -> value, never ranked
    rank: int | None = None
    lane: str = RANKED  # a key of LANES, set when the board is ordered
    lane_first: bool = False  # the first row of its lane in the board's order (where its heading goes)
    tied_with_above: bool = False  # always False: a tie is a paired test over items, which a paper row has none of
    footnote: int | None = None  # the number of its note under the board
    source: str = "paper"
    organisation: str = ""  # what the model search reads; a paper row has neither size nor licence
    parameters: str = ""
    open_weights: bool | None = None

    @property
    def key(self) -> tuple[str, str, str, int]:
        return ("paper", self.paper, self.table, self.order)

    def value(self, column_id: str) -> float | None:
        """The value ranked in the column: one measured under the column's protocol."""
        cell = self.values.get(column_id)
        return None if cell is None else cell["value"]

    def as_json(self) -> dict[str, Any]:
        return {"source": self.source, "rank": self.rank, "lane": self.lane, "order": self.order,
                "statistically_tied": False,
                "model_name": self.model_name, "settings": self.settings, "paper": self.paper,
                "table": self.table, "notes": self.notes, "note": PAPER_BADGE, "metrics": self.values,
                "other_protocol": self.other_protocol, "left_out": self.left_out}


def paper_rows(split: Split, columns: Sequence[Any], settings: Mapping[str, str],
               metadata: Mapping[str, str]) -> list[PaperRow]:
    """The split's published rows of ranked tables that pass the board's filters, in printed order."""
    main = {c.key: c for c in columns if not c.variant}
    protocols = {c.key: site_protocol(split.spec, c.key, c.signature, configured_bertscore()) for c in main.values()}
    quantity = {m.key: m.quantity for m in split.spec.profile().metrics if m.quantity}
    mapped = ("mapped onto an option" if split.spec.task_type == "multiple_choice"
              else "converted into the scorer's input")
    shown_in = {key: [c for c in main.values() if key in (c.key, quantity.get(split_column(c.key)[0]))]
                for key in {c.key for c in main.values()} | set(quantity.values())}
    rows = []
    for result in PublishedResult.objects.filter(split=split, kind="leaderboard").order_by("paper", "table", "order"):
        row = PaperRow(result.model_name, dict(result.settings), result.paper, result.table, result.notes,
                       result.order)
        if not all(str(row.settings.get(k)) == v for k, v in settings.items()) or not field_match(row, metadata):
            continue
        table_unit = published_unit(result.scale)
        for printed_column in result.columns:
            value = (result.metrics or {}).get(printed_column.get("key"))
            if not isinstance(value, int | float) or isinstance(value, bool):
                continue
            unit = published_unit(str(printed_column.get("scale") or "")) or table_unit
            for column in shown_in.get(printed_column.get("key"), ()):  # its own column, and those of its quantity
                _place(row, column, float(value), unit, _difference(printed_column, protocols[column.key], mapped))
        rows.append(row)
    return rows


def _difference(printed_column: Mapping[str, Any], column: Protocol, mapped: str) -> str:
    """How the printed column's protocol differs from the board column's (empty: the same protocol)."""
    declared = printed_column.get("protocol")
    if not isinstance(declared, Mapping):
        return "its protocol is not recorded (load the papers' tables again)"
    return protocol_difference(Protocol(**declared), column, mapped=mapped)


def _place(row: PaperRow, column: Any, printed: float, unit: str, difference: str) -> None:
    """The printed value in ``column`` on its scale (ranked only under the column's protocol), or the reason it
    is left out."""
    moved = on_scale(printed, unit, column.unit)
    source = f"{row.paper.split(',', 1)[0]}, {row.table}"  # the authors and year; the full title is below
    if moved is None:
        row.left_out[column.id] = (f"printed {printed:g} on {unit or 'an unstated scale'}; this column is on "
                                   f"{column.unit}: not comparable, left out ({source})")
        return
    moved = round(moved, 10)  # 73.95 / 100 is 0.7395, not 0.7395000000000001
    how = "as printed" if moved == printed else f"printed {printed:g} on {unit}, shown on {column.unit}"
    cell = {"key": column.key, "value": moved, "printed": printed, "printed_unit": unit}
    if difference:
        row.other_protocol[column.id] = {
            **cell, "differs": difference,
            "note": f"{PAPER_BADGE}, another protocol, not ranked: {difference} ({how}; {source})"}
        return
    row.values[column.id] = {**cell, "note": f"{PAPER_BADGE}: {how} ({source}); measured as this column is "
                                             "(same implementation, parser, gold and model)"}


def paper_footnotes(rows: Sequence[PaperRow]) -> list[str]:
    """Every distinct note of the rows, numbered once each (a row points to its number)."""
    notes = list(dict.fromkeys(r.notes for r in rows if r.notes))
    for row in rows:
        row.footnote = notes.index(row.notes) + 1 if row.notes else None
    return notes
