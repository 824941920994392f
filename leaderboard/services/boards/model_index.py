"""Models across benchmarks: every model's results on every board, as each board shows them.

The index is read off the boards themselves (``leaderboards.build`` per listed split, as the viewer
sees it: default sort, best entry, the papers' rows shown), so every number and rank on a model page, in
the home page's overview and in ``GET /api/v1/models`` is the board's own: hidden-label splits carry the
disclosure rules' released values (rounding and the Ladder) for everyone but maintainers, private
entries reach only their owner and maintainers, withdrawn, invalid and failed entries no one. A paper's
row is a result too (``source`` "paper"), with the rank the board gives it, or none and its lane.

A model is one identity (``model_names.model_slug``: case, spacing, punctuation and listed aliases folded);
a model with several configurations (settings) on a board has one result per board row. The index is cached
under the version of every split (one cache read for the versions), so a page with the index builds no board
until some split changes.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.urls import reverse

from leaderboard.models import Split, Submission
from leaderboard.services.boards import leaderboards
from leaderboard.services.boards.labels import settings_labelled
from leaderboard.services.boards.model_names import model_slug
from leaderboard.services.boards.paper_rows import LANES, PaperRow
from leaderboard.services.policy.access import is_maintainer
from leaderboard.services.shared.cache import split_tokens

_CACHE_FORMAT = 2
_CACHE_SECONDS = 3600


@dataclass(frozen=True)
class BoardRef:
    """One split's board as the index refers to it: where it is and its main (default sort) column."""

    benchmark: str
    split: str
    title: str
    short_title: str  # for a column header: the benchmark's short name and the split's
    url: str
    hidden_labels: bool
    demo: bool
    column_id: str
    column_label: str
    decimals: int
    higher_is_better: bool
    unit: str
    rows: int

    @property
    def key(self) -> str:
        return f"{self.benchmark}/{self.split}"

    def as_json(self) -> dict[str, Any]:
        return {"benchmark": self.benchmark, "split": self.split, "title": self.title,
                "short_title": self.short_title, "url": self.url,
                "hidden_labels": self.hidden_labels, "demo_data": self.demo, "rows": self.rows,
                "main_column": {"id": self.column_id, "label": self.column_label, "decimals": self.decimals,
                                "higher_is_better": self.higher_is_better, "unit": self.unit}}


@dataclass(frozen=True)
class Cell:
    """One metric cell of a board row: the board's value, or why it is withheld."""

    column_id: str
    key: str
    label: str
    decimals: int
    value: float | None
    withheld: str = ""
    std: float | None = None
    ci95: tuple[float, float] | None = None


@dataclass(frozen=True)
class ModelResult:
    """A model's row on one board: the board's chosen entry, rank and cells."""

    board: BoardRef
    model_name: str
    organisation: str
    settings: tuple[tuple[str, str], ...]  # (setting label, value label), in the benchmark's order
    settings_raw: dict[str, str]
    rank: int | None
    tied: bool
    entry_uid: str
    entry_url: str
    entries: int
    demo: bool
    verified: bool
    private: bool
    mine: bool
    main: Cell | None
    cells: tuple[Cell, ...]
    owners: frozenset[int] = field(default=frozenset(), repr=False)  # accounts of the row's entries: never shown
    source: str = "site"  # or "paper": a row of a paper's table, reported there, not re-scored here
    paper: str = ""
    lane: str = ""  # a paper row's lane on the board (paper_rows.LANES)
    not_ranked: str = ""  # why a paper row holds no rank (its protocol's difference from the column's)

    def as_json(self) -> dict[str, Any]:
        return {"benchmark": self.board.benchmark, "split": self.board.split, "board": self.board.as_json(),
                "source": self.source, "paper": self.paper, "lane": self.lane, "not_ranked": self.not_ranked,
                "model_name": self.model_name, "organisation": self.organisation, "settings": self.settings_raw,
                "rank": self.rank, "statistically_tied": self.tied, "entry": self.entry_uid,
                "entry_url": self.entry_url, "entry_count": self.entries, "demo": self.demo,
                "verified": self.verified, "private": self.private, "mine": self.mine,
                "main": None if self.main is None else _cell_json(self.main),
                "metrics": {c.column_id: _cell_json(c) for c in self.cells}}


@dataclass
class Model:
    """Every result of one model (one slug) the viewer may see, in board order."""

    slug: str
    results: list[ModelResult] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The name most of its results use (the first such, in board order)."""
        return Counter(r.model_name for r in self.results).most_common(1)[0][0]

    @property
    def names(self) -> list[str]:
        return list(dict.fromkeys(r.model_name for r in self.results))

    @property
    def organisations(self) -> list[str]:
        return sorted({r.organisation for r in self.results if r.organisation}, key=str.casefold)

    @property
    def url(self) -> str:
        return reverse("model", args=[self.slug])

    @property
    def demo(self) -> bool:
        return all(r.demo or r.board.demo for r in self.results)

    def best_on(self, board_key: str) -> ModelResult | None:
        """Its highest row on a board (results keep each board's row order)."""
        return next((r for r in self.results if r.board.key == board_key), None)

    def as_json(self) -> dict[str, Any]:
        return {"slug": self.slug, "name": self.name, "names": self.names, "organisations": self.organisations,
                "url": self.url, "demo": self.demo, "results": [r.as_json() for r in self.results]}


@dataclass
class ModelIndex:
    """Boards with at least one row the viewer sees, and the models on them, by name."""

    boards: list[BoardRef]
    models: list[Model]

    def find(self, slug: str) -> Model | None:
        return next((m for m in self.models if m.slug == slug), None)

    def search(self, query: str) -> list[Model]:
        """Models whose name (any of its spellings) or organisation contains ``query``, case-insensitively."""
        wanted = " ".join(query.split()).casefold()
        if not wanted:
            return list(self.models)
        return [m for m in self.models
                if any(wanted in n.casefold() for n in (*m.names, *m.organisations))]


def model_index_build(user: Any) -> ModelIndex:
    """The index as ``user`` may see it, from the cache while no split changed.

    An account with no private or hidden entry sees exactly the anonymous boards but for its own
    rows' *yours* marks, so it shares the anonymous index (one query to know that); maintainers
    share one index; an account with private entries has its own.
    """
    audience = _audience(user)
    key = f"{_cache_prefix()}:{audience}"
    found: ModelIndex | None = cache.get(key)
    if found is None:
        found = model_index_compute(user if audience != "anonymous" else AnonymousUser())
        cache.set(key, found, timeout=_CACHE_SECONDS)
    return _marked_mine(found, getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None)


def model_index_compute(user: Any) -> ModelIndex:
    """The index as ``user`` may see it: every listed split's board, built now."""
    splits = Split.objects.filter(benchmark__listed=True).select_related("benchmark").order_by(
        "benchmark__name", "pk")
    boards: list[BoardRef] = []
    models: dict[str, Model] = {}
    for split in splits:
        board = leaderboards.build(split, user, {})  # the board's default view: the ranks it shows
        if not board.table or board.sort is None:
            continue
        ref = _board_ref(split, board)
        boards.append(ref)
        for row in board.table:
            result = (_paper_result(ref, split, row, board.columns) if isinstance(row, PaperRow)
                      else _result(ref, split, row, board.columns))
            slug = model_slug(result.model_name)
            models.setdefault(slug, Model(slug)).results.append(result)
    ordered = sorted(models.values(), key=lambda m: (m.name.casefold(), m.slug))
    return ModelIndex(boards, ordered)


OverviewRow = tuple[Model, list[tuple[BoardRef, ModelResult | None]]]


def model_overview_rows(index: ModelIndex, sort: str = "") -> tuple[list[OverviewRow], BoardRef | None]:
    """Overview rows (a model and, per board, its highest result there or ``None``), sorted by the
    main column of the board named ``sort`` (``benchmark/split``; missing values last), else by name."""
    by_board = next((b for b in index.boards if b.key == sort), None)
    rows = [(m, [(b, m.best_on(b.key)) for b in index.boards]) for m in index.models]
    if by_board is not None:
        position = index.boards.index(by_board)
        rows.sort(key=lambda row: _overview_order(row[1][position][1], by_board))
    return rows, by_board


def _overview_order(result: ModelResult | None, board: BoardRef) -> tuple[int, float]:
    value = None if result is None or result.main is None else result.main.value
    if value is None:
        return (1 if result is not None else 2, 0.0)  # withheld before absent
    return (0, -value if board.higher_is_better else value)


def _cache_prefix() -> str:
    tokens = sorted((f"{b}/{s}", token) for (b, s), (_, token) in split_tokens().items())
    return f"models:index:{_CACHE_FORMAT}:{hashlib.sha256(repr(tokens).encode()).hexdigest()[:24]}"


def _audience(user: Any) -> str:
    """Whose boards the viewer sees: maintainers', an account's own (it has private or hidden entries), or
    everyone's."""
    if is_maintainer(user):
        return "staff"
    if not getattr(user, "is_authenticated", False):
        return "anonymous"
    own = Submission.objects.filter(user=user, split__benchmark__listed=True).scored_unlisted()
    return f"user-{user.pk}" if own.exists() else "anonymous"


def _marked_mine(index: ModelIndex, user_id: int | None) -> ModelIndex:
    """The index with each row's *yours* mark for this viewer (the cached index is shared)."""
    models = [Model(m.slug, [r if r.mine == (user_id in r.owners) else replace(r, mine=not r.mine)
                             for r in m.results]) for m in index.models]
    return ModelIndex(index.boards, models)


def _board_ref(split: Split, board: leaderboards.Leaderboard) -> BoardRef:
    sort = board.sort
    assert sort is not None
    short = split.spec.short_title
    return BoardRef(split.benchmark.name, split.name, f"{split.spec.title} · {split.title}", f"{short} · {split.name}",
                    reverse("leaderboard", args=[split.benchmark.name, split.name]), bool(split.hidden_labels),
                    bool(split.demo), sort.id, sort.label, sort.decimals, sort.higher_is_better, sort.unit,
                    sum(1 for row in board.table if row.rank is not None))


def _result(ref: BoardRef, split: Split, row: leaderboards.Row, columns: Sequence[leaderboards.Column]) -> ModelResult:
    entry = row.entry
    cells = tuple(_cell(entry, c) for c in columns if c.signature and c.id in entry.values)
    main = next((c for c in cells if c.column_id == ref.column_id), None)
    labelled = tuple((label, value) for _, label, value in settings_labelled(split.spec, entry.settings))
    return ModelResult(ref, entry.model_name, entry.organisation, labelled, dict(entry.settings), row.rank,
                       row.tied_with_above, entry.uid, entry.url, len(row.entries), entry.demo, entry.verified,
                       entry.private, row.mine, main, cells, frozenset(e.user_id for e in row.entries))


def _paper_result(ref: BoardRef, split: Split, row: PaperRow, columns: Sequence[leaderboards.Column]) -> ModelResult:
    printed = {**row.other_protocol, **row.values}
    cells = tuple(Cell(c.id, c.key, c.label, c.decimals, printed[c.id]["value"]) for c in columns if c.id in printed)
    main = next((c for c in cells if c.column_id == ref.column_id), None)
    labelled = tuple((label, value) for _, label, value in settings_labelled(split.spec, row.settings))
    not_ranked = row.other_protocol.get(ref.column_id, {}).get("differs", "") or LANES.get(row.lane, "")
    return ModelResult(ref, row.model_name, "", labelled, dict(row.settings), row.rank, False, "",
                       f"{ref.url}#published", 0, False, False, False, False, main, cells, source="paper",
                       paper=f"{row.paper} · {row.table}", lane=row.lane,
                       not_ranked="" if row.rank is not None else not_ranked)


def _cell(entry: leaderboards.Entry, column: leaderboards.Column) -> Cell:
    raw = entry.values[column.id]
    ci = raw.get("ci95")
    return Cell(column.id, column.key, column.label, column.decimals, raw.get("value"), raw.get("withheld", ""),
                raw.get("std"), (ci[0], ci[1]) if ci else None)


def _cell_json(cell: Cell) -> dict[str, Any]:
    out: dict[str, Any] = {"key": cell.key, "label": cell.label, "value": cell.value, "decimals": cell.decimals,
                           "std": cell.std, "ci95": list(cell.ci95) if cell.ci95 else None}
    if cell.withheld:
        out["withheld"] = cell.withheld
    return out
