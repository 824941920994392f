"""Per-split leaderboards: columns from the spec, one row per model, honest ranks.

* A column is a (metric key, signature) pair; values with another signature
  (another BERTScore model, another judge, other library versions) get their
  own column and are never ranked together.
* One row per model configuration (name, organisation, settings): its best
  entry by the sort column, or its latest; every entry is listed under it.
* Ranks: an entry that compare's paired bootstrap does not separate from the
  top entry of the current rank group on the sort column shares its rank
  (statistically tied, ``ties``: the board and compare give one verdict on that
  pair); entries without stored per-run arrays fall back to overlapping 95%
  intervals, and on hidden-label splits non-maintainers' ties are equal released
  values. Entries missing any metric come after complete ones; entries without
  the sort value are not ranked.
* The papers' published rows (``paper_rows``) measured under the sort column's
  protocol are ranked in the same order by the sort value, never tied (they have
  no interval); a model holds one rank in a view. Rows under another protocol, or
  of a model ranked already, follow unranked in lanes of their own; ``papers=hide``
  leaves them all out. A filter or search only hides rows: every row keeps its
  rank on the unfiltered board for the same sort.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count
from django.db.models.fields.json import KeyTransform
from django.urls import reverse

from leaderboard.models import MetricValue, PublishedResult, Split, Submission
from leaderboard.services.boards.field_plots import field_filters, field_match
from leaderboard.services.boards.labels import metric_unit, published_unit, signature_model
from leaderboard.services.boards.model_names import model_slug
from leaderboard.services.boards.paper_rows import (
    LANES,
    PAPERS_HIDDEN,
    RANKED,
    PaperRow,
    paper_footnotes,
    paper_rows,
)
from leaderboard.services.boards.parsing import parsing_rule, parsing_summary
from leaderboard.services.boards.provenance import provenance_source
from leaderboard.services.boards.ties import (
    INTERVALS,
    PAIRED,
    RELEASED,
    VALUES,
    Resampled,
    ties_p_value,
    ties_resampled,
    ties_sentence,
    ties_separated,
)
from leaderboard.services.policy.disclosure import disclosure_entries, disclosure_hidden
from leaderboard.services.shared.cache import cached_for_split
from scoring import MetricSpec
from scoring.metrics import get_family
from scoring.signature import Signature
from scoring.specs import split_column

ENTRY_POLICIES = ("best", "latest")


@dataclass(frozen=True)
class Column:
    id: str
    key: str
    signature: str
    label: str
    higher_is_better: bool
    decimals: int
    description: str
    variant: bool
    unit: str = ""  # the range its numbers live in ("0–1", "0–100", ...)
    model: str = ""  # the BERTScore model, for BERTScore columns

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "key": self.key, "label": self.label, "signature": self.signature,
                "higher_is_better": self.higher_is_better, "decimals": self.decimals,
                "description": self.description, "variant": self.variant, "unit": self.unit,
                "bertscore_model": self.model}


@dataclass
class Entry:
    submission_id: int
    uid: str
    user_id: int
    model_name: str
    organisation: str
    settings: dict[str, str]
    parameters: str
    open_weights: bool | None
    paper_url: str
    code_url: str
    private: bool
    runs: int
    created_at: str
    values: dict[str, dict[str, Any]] = field(default_factory=dict)  # column id -> value, std, ci95
    signatures: dict[str, str] = field(default_factory=dict)  # column id -> signature
    url: str = ""
    judge_flags: int = 0  # predictions that tried to address the judge
    judge_agreement: list[dict[str, Any]] = field(default_factory=list)
    verified: bool = False  # checked by a maintainer
    demo: bool = False  # made by the site's demo loader
    provenance: str = "submitted"  # or "released": a release's outputs, re-scored here (services.boards.provenance)
    source: dict[str, Any] | None = None  # a released entry's release, and the items its run answers
    parsing: dict[str, Any] | None = None  # answers the publisher's parser could not map (services.boards.parsing)

    def value(self, column_id: str) -> float | None:
        cell = self.values.get(column_id)
        return None if cell is None else cell["value"]

    def as_json(self) -> dict[str, Any]:
        return {"id": self.uid, "url": self.url or reverse("submission", args=[self.uid]),
                "model_name": self.model_name,
                "organisation": self.organisation, "settings": self.settings, "parameters": self.parameters,
                "open_weights": self.open_weights, "paper_url": self.paper_url, "code_url": self.code_url,
                "private": self.private, "runs": self.runs, "created_at": self.created_at, "metrics": self.values,
                "judge_flags": self.judge_flags, "judge_agreement": self.judge_agreement,
                "verified": self.verified, "demo": self.demo, "provenance": self.provenance,
                "source": provenance_source(self.source, warnings=False), "parsing": self.parsing}


@dataclass
class Row:
    entry: Entry
    entries: list[Entry]
    rank: int | None = None
    tied_with_above: bool = False
    complete: bool = True
    missing: list[str] = field(default_factory=list)
    mine: bool = False
    tie_rule: str | None = None  # what decided its tie, or not, with its rank group's top entry (``ties``)
    tie_p_value: float | None = None  # compare's p-value of that pair, where the paired test decided

    @property
    def public_entry_exists(self) -> bool:
        """The row shows a private entry while others see a public entry of the same model."""
        return self.entry.private and any(not e.private for e in self.entries)

    source = "site"

    @property
    def key(self) -> tuple[str, str]:
        return ("site", self.entry.uid)

    def value(self, column_id: str) -> float | None:
        return self.entry.value(column_id)

    def as_json(self) -> dict[str, Any]:
        return {"source": self.source, "rank": self.rank, "statistically_tied": self.tied_with_above,
                "complete": self.complete, "tie_rule": self.tie_rule, "tie_p_value": self.tie_p_value,
                "missing": self.missing, "mine": self.mine, "entry": self.entry.as_json(),
                "entry_count": len(self.entries), "entries": [e.as_json() for e in self.entries]}


@dataclass
class Leaderboard:
    split: Split
    columns: list[Column]
    rows: list[Row]
    sort: Column | None
    sort_is_default: bool
    entry_policy: str
    filters: dict[str, str]
    published: list[dict[str, Any]]
    not_judged: list[str] = field(default_factory=list)
    reversed: bool = False  # shown worst first (a second click on the sorted header)
    notices: list[str] = field(default_factory=list)  # parameters that were not understood
    papers: list[PaperRow] = field(default_factory=list)  # the papers' rows, ranked with the entries
    table: list[Row | PaperRow] = field(default_factory=list)  # both kinds, in the order shown
    papers_hidden: bool = False  # papers=hide
    rank_scope: str = "whole leaderboard"
    footnotes: list[str] = field(default_factory=list)  # the paper rows' notes, numbered
    released_only: bool = False  # hidden-label split, not a maintainer: released values decide ties
    parsing: str = ""  # what the board's parse column counts (the publisher's parser); empty: no such column

    @property
    def entry_count(self) -> int:
        return sum(len(r.entries) for r in self.rows)

    @property
    def ties(self) -> str:
        """What "tied" means on this board, in one sentence."""
        fallback = any(r.tie_rule in (INTERVALS, VALUES) for r in self.rows)
        return ties_sentence(released=self.released_only, fallback=fallback)

    def as_json(self) -> dict[str, Any]:
        spec = self.split.spec
        return {
            "benchmark": spec.name,
            "split": self.split.name,
            "profile": spec.official_profile,
            "hidden_labels": self.split.hidden_labels,
            "demo_data": self.split.demo,
            "sort": None if self.sort is None else {
                "column": self.sort.id, "key": self.sort.key, "label": self.sort.label,
                "direction": "descending" if self.sort.higher_is_better else "ascending",
                "default": self.sort_is_default},
            "entry_policy": self.entry_policy,
            "ranking": f"{self.ties}; entries missing a metric rank after complete ones",
            "filters": self.filters,
            "rank_scope": self.rank_scope,
            "columns": [c.as_json() for c in self.columns],
            "rows": [r.as_json() for r in self.rows],
            "papers": "hidden" if self.papers_hidden else "shown",
            "counts": {"entries": self.entry_count, "published": len(self.papers)},
            "published_rows": [r.as_json() for r in self.papers],
            "order": [list(r.key) for r in self.table],
            "published": self.published,
            "not_judged": self.not_judged,
            "reversed": self.reversed,
            "notices": self.notices,
            "parse_rule": self.parsing or None,
        }


def build(split: Split, user: Any, params: Mapping[str, str]) -> Leaderboard:
    """The leaderboard of ``split`` as ``user`` may see it, sorted and filtered by ``params``; under a
    filter or search each row keeps its rank on the unfiltered board."""
    board = _build(split, user, params)
    rule = parsing_rule(split.spec)
    board.parsing = rule.rule if rule is not None else ""
    if board.filters and board.sort is not None:
        # a column no shown entry has is a placeholder: the whole board's is the one of the same metric
        sort = board.sort.id if board.sort.signature else board.sort.key
        whole = _build(split, user, {"sort": sort, "entry": board.entry_policy,
                                     "papers": PAPERS_HIDDEN if board.papers_hidden else ""})
        if whole.sort is not None and sort in (whole.sort.id, whole.sort.key):
            _global_ranks(board, whole)
        else:  # the filtered rows' columns are another board's: their own ranks, said so
            board.rank_scope = "filtered view"
    return board


def _build(split: Split, user: Any, params: Mapping[str, str]) -> Leaderboard:
    spec = split.spec
    filters, notices = _filters(spec, params)
    metadata, _ = field_filters(params)
    entries = [e for e in _public_entries(split) if _matches(e, spec, filters) and field_match(e, metadata)]
    entries += [e for e in _own_hidden_entries(split, user) if _matches(e, spec, filters) and field_match(e, metadata)]
    released = disclosure_hidden(split=split, user=user)
    if released:
        entries = disclosure_entries(entries, split=split)
    columns, not_judged = _without_unjudged(spec, _columns(split, entries))
    wanted = params.get("sort", "")
    sort, is_default = _sort_column(columns, spec.default_sort, wanted)
    if wanted and (sort is None or wanted not in (sort.id, sort.key)):
        notices.append(f"sort={wanted} is not a column of this leaderboard; sorted by "
                       f"{sort.label if sort else 'nothing'} instead")
    policy = params.get("entry", "best") if params.get("entry") in ENTRY_POLICIES else "best"
    if params.get("entry") and params["entry"] not in ENTRY_POLICIES:
        notices.append(f"entry={params['entry']} is not understood (best or latest); showing best entries")
    rows = _rows(entries, sort, policy, columns)
    user_id = getattr(user, "pk", None)
    for row in rows:
        row.mine = user_id is not None and any(e.user_id == user_id for e in row.entries)
    _rank(rows, sort, {} if released else _tie_tests(split, rows, sort), released=released)
    hidden = params.get("papers") == PAPERS_HIDDEN
    papers = [] if hidden else paper_rows(split, columns, filters, metadata)
    table = _ranked_together(rows, papers, sort)
    backwards = params.get("dir") == "reverse" and sort is not None
    if backwards:
        rows = [r for r in rows if r.rank is not None][::-1] + [r for r in rows if r.rank is None]
        table = [r for r in table if r.rank is not None][::-1] + [r for r in table if r.rank is None]
    filters = {**filters, **metadata}
    return Leaderboard(split, columns, rows, sort, is_default, policy, filters, published_results(split),
                       not_judged, backwards, notices, papers, table, hidden, footnotes=paper_footnotes(papers),
                       released_only=released)


def _ranked_together(rows: list[Row], papers: list[PaperRow], sort: Column | None) -> list[Row | PaperRow]:
    """Entries and the paper rows measured under the sort column's protocol in one order by the sort value (a
    paper row places like a complete entry); each model (``model_names``) holds one rank: an entry's, else its
    best paper row's. An entry keeps its tie (``ties``): it takes the rank its tie group's top entry has in this
    order; a paper row takes its position, shared only with an equal paper value. The other paper rows follow
    in lanes of their own, unranked (:data:`LANES`)."""
    if not papers:
        return list(rows)

    def order(row: Row | PaperRow) -> tuple[int, bool, float]:
        if isinstance(row, Row):
            return _row_order(row, sort)
        return (0, False, _directed(row.value(sort.id) if sort else None, sort))

    ranked_models = {_identity(r.entry.model_name, r.entry.settings) for r in rows if r.rank is not None}
    candidates = sorted((p for p in papers if sort is not None and p.value(sort.id) is not None), key=order)
    for paper in candidates:
        identity = _identity(paper.model_name, paper.settings)
        paper.lane = "same_model" if identity in ranked_models else RANKED
        ranked_models.add(identity)
    for paper in papers:
        if not any(paper is c for c in candidates):
            paper.lane = "other_protocol" if sort is not None and sort.id in paper.other_protocol else "no_value"
    table: list[Row | PaperRow] = sorted([*rows, *(p for p in papers if p.lane == RANKED)], key=order)
    group_rank: dict[int, int] = {}  # an entry's rank among entries -> its group top's rank here
    above: Row | PaperRow | None = None
    for position, row in enumerate(table, start=1):
        if isinstance(row, Row):
            if row.rank is not None:
                row.rank = group_rank.setdefault(row.rank, position)
        elif sort is not None:
            same = isinstance(above, PaperRow) and above.value(sort.id) == row.value(sort.id)
            row.rank = above.rank if same and above is not None else position
        above = row
    for lane in list(LANES)[1:]:
        in_lane = sorted([p for p in papers if p.lane == lane], key=lambda p: _lane_order(p, sort))
        if in_lane:
            in_lane[0].lane_first = True
        table.extend(in_lane)
    return table


def _directed(value: float | None, sort: Column | None) -> float:
    return 0.0 if value is None else (-value if sort and sort.higher_is_better else value)


def _lane_order(row: PaperRow, sort: Column | None) -> tuple[int, float]:
    cell = (row.values.get(sort.id) or row.other_protocol.get(sort.id)) if sort else None
    return (0, _directed(cell["value"], sort)) if cell else (1, 0.0)


def _identity(name: str, settings: Mapping[str, Any]) -> tuple[str, str]:
    return model_slug(name), repr(sorted((str(k), str(v)) for k, v in settings.items()))


def _global_ranks(board: Leaderboard, whole: Leaderboard) -> None:
    """Each shown row's rank and tie as the unfiltered board has them (an entry not chosen there
    takes its model's row)."""
    by_key: dict[Any, Row | PaperRow] = {r.key: r for r in whole.table}
    by_model = {_model_key(r.entry): r for r in whole.rows}
    for row in board.table:
        found = by_key.get(row.key) or (by_model.get(_model_key(row.entry)) if isinstance(row, Row) else None)
        if found is not None:
            row.rank, row.tied_with_above = found.rank, found.tied_with_above
            if isinstance(row, Row) and isinstance(found, Row):
                row.tie_rule, row.tie_p_value = found.tie_rule, found.tie_p_value


def _filters(spec: Any, params: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """Valid setting filters, and a notice for each value that is not one of the setting's choices."""
    filters, notices = {}, []
    for setting in spec.settings:
        value = params.get(setting.key)
        if not value:
            continue
        if value in dict(setting.choices):
            filters[setting.key] = value
        else:
            valid = ", ".join(c for c, _ in setting.choices)
            notices.append(f"{setting.key}={value} is not a value of {setting.label} ({valid}); filter not applied")
    return filters, notices


def _without_unjudged(spec: Any, columns: list[Column]) -> tuple[list[Column], list[str]]:
    """Judged metrics (an LLM judge's scores, or answers it maps) no entry has, because no judge is configured,
    leave the table and are named instead."""
    judged = {m.key: m.label for m in spec.profile().metrics if get_family(m.family).needs == "judges"}
    empty = [c for c in columns if c.key in judged and not c.signature]
    return [c for c in columns if c not in empty], [judged[c.key] for c in empty]


@lru_cache(maxsize=4096)  # a page asks for every value's column: the same few pairs, thousands of times
def column_id(key: str, signature: str) -> str:
    return f"{key}@{hashlib.sha256(signature.encode()).hexdigest()[:8]}"


def _public_entries(split: Split) -> list[Entry]:
    return cached_for_split(split.pk, "entries:public:4", lambda: _load_entries(
        Submission.objects.filter(split=split).listed()))


def _own_hidden_entries(split: Split, user: Any) -> list[Entry]:
    if getattr(user, "is_staff", False):
        query = Submission.objects.filter(split=split).scored_unlisted()
    elif getattr(user, "is_authenticated", False):
        query = Submission.objects.filter(split=split, user=user).scored_unlisted()
    else:
        return []
    return _load_entries(query)


_ENTRY_FIELDS = ("uid", "user_id", "model_name", "organisation", "settings", "parameters", "open_weights",
                 "paper_url", "code_url", "is_private", "hidden", "created_at", "verified", "demo", "provenance",
                 "source")
_NO_UID = "00000000-0000-0000-0000-000000000000"
_VALUE_FIELDS = ("submission_id", "key", "signature", "value", "std", "ci_low", "ci_high", "per_run")


def _load_entries(query: Any) -> list[Entry]:
    """Two queries, only the listed fields (not the reports, problems or tracebacks)."""
    submissions = list(query.only(*_ENTRY_FIELDS).annotate(
        run_count=Count("runs"), judge_info=KeyTransform("judge", "report"),
        unparsed_counts=KeyTransform("unparsed", KeyTransform("diagnostics", "report")),
        report_items=KeyTransform("n_items", "report")))
    values: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for row in MetricValue.objects.filter(submission__in=[s.pk for s in submissions], current=True).values_list(
            *_VALUE_FIELDS):
        values[row[0]].append(row)
    entries = []
    url = reverse("submission", args=[_NO_UID])  # once, not once per entry (a fifth of this function)
    for sub in submissions:
        uid = str(sub.uid)
        entry = Entry(sub.pk, uid, sub.user_id, sub.model_name, sub.organisation, sub.settings,
                      sub.parameters, sub.open_weights, sub.paper_url, sub.code_url, sub.is_private or sub.hidden,
                      sub.run_count, sub.created_at.isoformat(), url=url.replace(_NO_UID, uid),
                      verified=sub.verified, demo=sub.demo, provenance=sub.provenance, source=sub.source or None)
        judge = sub.judge_info or {}
        entry.judge_flags = int(judge.get("flags") or 0)
        entry.judge_agreement = list(judge.get("agreement") or [])
        entry.parsing = parsing_summary(sub.unparsed_counts, sub.report_items)
        for _, key, signature, value, std, ci_low, ci_high, per_run in values[sub.pk]:
            cid = column_id(key, signature)
            entry.values[cid] = {"key": key, "value": value, "std": std,
                                 "ci95": [ci_low, ci_high] if ci_low is not None else None, "per_run": per_run}
            entry.signatures[cid] = signature
        entries.append(entry)
    return entries


def _matches(entry: Entry, spec: Any, params: Mapping[str, str]) -> bool:
    return all(entry.settings.get(s.key) == params[s.key] for s in spec.settings if params.get(s.key))


def _columns(split: Split, entries: list[Entry]) -> list[Column]:
    """Spec order; per key the most used signature first, others as variant columns."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    signature_of: dict[str, str] = {}
    for entry in entries:
        for cid, cell in entry.values.items():
            counts[cell["key"]][cid] += 1
        signature_of.update(entry.signatures)
    columns = []
    for metric in split.spec.profile().metrics:
        if metric.descriptive:  # breakdowns such as error-type shares are not ranked on
            continue
        per_judge = sorted(k for k in counts if split_column(k)[0] == metric.key and split_column(k)[1])
        keys = [metric.key, *per_judge] if counts[metric.key] or not per_judge else per_judge
        if not any(counts[k] for k in keys):
            columns.append(_column(metric, metric.key, f"{metric.key}@none", "", None))
        for key in keys:
            ranked = counts[key].most_common()
            main = signature_of.get(ranked[0][0], "") if ranked else ""
            for i, (cid, _) in enumerate(ranked):
                columns.append(_column(metric, key, cid, signature_of.get(cid, ""), main if i > 0 else None))
    return columns


def _column(metric: MetricSpec, key: str, cid: str, signature: str, main: str | None) -> Column:
    """A column; ``main`` is the signature of the key's main column when this one is a variant of it."""
    label = metric.label
    judge = split_column(key)[1]
    if judge:
        label += f" [{judge}]"
    if main is not None:
        label += f" [{_signature_hint(signature, main)}]"
    return Column(cid, key, signature, label, metric.higher_is_better, metric.decimals,
                  metric.description, main is not None, metric_unit(metric), signature_model(signature))


_MISSING_HINTS = {"rules": "earlier rules"}  # a field an earlier signature format did not have


def _signature_hint(signature: str, main: str) -> str:
    """What sets a variant column apart from the main one: its model, judge, tokenizer or gain when those
    differ, else the first field that differs."""
    fields, reference = _signature_fields(signature), _signature_fields(main)
    differing = [name for name in {**reference, **fields} if fields.get(name) != reference.get(name)]
    for name in ("model", "judge", "tok", "gain"):
        if name in differing and name in fields:
            return f"{name} {fields[name]}"
    for name in differing:
        return f"{name} {fields[name]}" if name in fields else _MISSING_HINTS.get(name, f"no {name}")
    return signature[-12:]


def _signature_fields(signature: str) -> dict[str, str]:
    return Signature.parse(signature).as_dict()


def _sort_column(columns: list[Column], default_key: str, wanted: str) -> tuple[Column | None, bool]:
    by_id = {c.id: c for c in columns}
    if wanted in by_id:  # a header link names the column by id; the default column is still the default
        return by_id[wanted], by_id[wanted].key == default_key and not by_id[wanted].variant
    for column in columns:
        if column.key == wanted and not column.variant:
            return column, wanted == default_key
    for column in columns:
        if column.key == default_key and not column.variant:
            return column, True
    return (columns[0] if columns else None), True


def _rows(entries: list[Entry], sort: Column | None, policy: str, columns: list[Column]) -> list[Row]:
    groups: dict[tuple[str, str, str], list[Entry]] = defaultdict(list)
    for entry in entries:
        groups[_model_key(entry)].append(entry)
    main_columns = [c for c in columns if not c.variant and c.signature]  # columns some entry has
    rows = []
    for group in groups.values():
        group.sort(key=lambda e: e.created_at, reverse=True)
        chosen = group[0] if policy == "latest" else min(group, key=lambda e: _sort_key(e, sort))
        missing = [c.label for c in main_columns  # a value withheld by the disclosure rules is not missing
                   if chosen.value(c.id) is None and "withheld" not in chosen.values.get(c.id, {})]
        rows.append(Row(chosen, group, complete=not missing, missing=missing))
    rows.sort(key=lambda r: _row_order(r, sort))
    return rows


def _model_key(entry: Entry) -> tuple[str, str, str]:
    """One model = one identity (``model_names``) and settings; the organisation is shown, not a second row."""
    return (model_slug(entry.model_name), "", repr(sorted(entry.settings.items())))


def _row_order(row: Row, sort: Column | None) -> tuple[int, bool, float]:
    """Rows with the sort value first (complete before incomplete), then those without it (unranked)."""
    missing_value, value = _sort_key(row.entry, sort)
    return (missing_value, not row.complete, value)


def _sort_key(entry: Entry, sort: Column | None) -> tuple[int, float]:
    value = entry.value(sort.id) if sort else None
    if value is None:
        return (1, 0.0)
    return (0, -value if sort and sort.higher_is_better else value)


def _tie_tests(split: Split, rows: list[Row], sort: Column | None) -> dict[int, Resampled]:
    """Compare's replicates of the sort column for each ranked row's entry that has per-run arrays."""
    if sort is None or not sort.signature:
        return {}
    ranked = {r.entry.submission_id: r.entry.runs for r in rows if r.entry.value(sort.id) is not None}
    if len(ranked) < 2:
        return {}
    return ties_resampled(split, key=sort.key, signature=sort.signature, column=sort.id, runs=ranked)


def _rank(rows: list[Row], sort: Column | None, tests: Mapping[int, Resampled], *, released: bool) -> None:
    if sort is None:
        return
    group_top: Row | None = None
    for position, row in enumerate(rows, start=1):
        if row.entry.value(sort.id) is None:
            continue
        if group_top is not None and group_top.complete == row.complete:
            tied, row.tie_rule, row.tie_p_value = _tie(group_top, row, sort, tests, released=released)
            if tied:
                row.rank, row.tied_with_above = group_top.rank, True
                continue
        row.rank, group_top = position, row


def _tie(top: Row, row: Row, sort: Column, tests: Mapping[int, Resampled], *,
         released: bool) -> tuple[bool, str, float | None]:
    """Whether ``row`` is tied with its group's ``top``, the rule that decided it, and compare's p-value."""
    a, b = tests.get(top.entry.submission_id), tests.get(row.entry.submission_id)
    if a is not None and b is not None:
        p_value = ties_p_value(a, b)
        return not ties_separated(p_value), PAIRED, p_value
    if released:  # the released cells have no interval: equal values
        return _overlap(top, row, sort), RELEASED, None
    intervals = all(r.entry.values.get(sort.id, {}).get("ci95") for r in (top, row))
    return _overlap(top, row, sort), INTERVALS if intervals else VALUES, None


def _overlap(a: Row, b: Row, sort: Column) -> bool:
    ci_a = a.entry.values.get(sort.id, {}).get("ci95")
    ci_b = b.entry.values.get(sort.id, {}).get("ci95")
    if not ci_a or not ci_b:
        return a.entry.value(sort.id) == b.entry.value(sort.id)
    return ci_a[0] <= ci_b[1] and ci_b[0] <= ci_a[1]


def published_results(split: Split) -> list[dict[str, Any]]:
    """Paper tables for this split, each as printed (their rows are ranked on the board as ``paper_rows``,
    on each column's scale)."""
    tables: dict[str, dict[str, Any]] = {}
    for result in PublishedResult.objects.filter(split=split).order_by("table", "order"):
        table = tables.setdefault(result.table, {
            "table": result.table, "paper": result.paper, "caption": result.caption, "kind": result.kind,
            "scale": result.scale, "columns": result.columns, "rows": [],
            "note": "reported in the paper, not re-scored here",
        })
        table["rows"].append({"model": result.model_name, "settings": result.settings,
                              "metrics": result.metrics, "notes": result.notes})
    site_units = {m.key: metric_unit(m) for m in split.spec.profile().metrics}
    for table in tables.values():
        _published_units(table, site_units)
        _published_footnotes(table)
    return list(tables.values())


def _published_units(table: dict[str, Any], site_units: dict[str, str]) -> None:
    """Each column's printed scale, and a warning where it is not this site's scale for that metric."""
    table["columns"] = [{**c, "unit": published_unit(c.get("scale", ""))} for c in table["columns"]]
    table["scale_differs"] = [
        f"{c['label']} is printed on {c['unit']}, this site's column on {site_units[c['key']]}"
        for c in table["columns"] if c["key"] in site_units and c["unit"]
        and not _same_unit(c["unit"], site_units[c["key"]])]


def _same_unit(printed: str, shown: str) -> bool:
    """Percent and 0–100 are one scale under two names."""
    return printed == shown or {printed, shown} <= {"%", "0–100"}


def _published_footnotes(table: dict[str, Any]) -> None:
    """Every note is a numbered footnote under the table, printed once however many rows point to it
    (a paragraph in a table cell would make its row as tall as the paragraph)."""
    footnotes = list(dict.fromkeys(r["notes"] for r in table["rows"] if r["notes"]))
    for row in table["rows"]:
        row["footnote"] = footnotes.index(row["notes"]) + 1 if row["notes"] else None
    table["footnotes"] = footnotes


def leaderboard_top_entries(splits: Sequence[Any]) -> dict[int, dict[str, Any]]:
    """Per split id: the public leaderboard's top entry (sort column, value) and its number of rows."""
    out = {}
    for split in splits:
        board = build(split, AnonymousUser(), {"papers": PAPERS_HIDDEN})  # the site's own top entry
        top = next((r for r in board.rows if r.rank == 1), None)
        if top is not None and board.sort is not None:
            out[split.pk] = {"model": top.entry.model_name, "url": top.entry.url, "label": board.sort.label,
                             "value": top.entry.value(board.sort.id), "decimals": board.sort.decimals,
                             "tied": sum(1 for r in board.rows if r.rank == 1) - 1, "rows": len(board.rows)}
    return out
