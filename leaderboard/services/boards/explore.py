"""The per-item explorer's filters and sorts, shared by the entry page and the items API.

``run``, ``page``, ``qa_type``, ``setting``, ``group`` (a metadata category such as
``task=music``), ``q`` (text in the id, inputs or prediction), ``correct=yes|no`` (accuracy
metrics), ``parsed=yes|no`` (the publisher's parser mapped the answer, or not: ``services.boards.parsing``),
``metric`` with ``min``/``max`` (report scale) and ``sort=<metric>`` / ``sort=-<metric>``.
A score filter or sort only sees the items its metric applies to (the metric's ``applies_to``
subset: a qa_type or a metadata group), whatever a row stores for the others. Anything that reads
per-item scores is refused on a hidden-label split to those who may not see them (it would reveal
correctness); so is ``parsed`` where the parse status reads the labels (CMI-Bench's label set), while an
answer's parse status that follows from it and the public inputs alone stays the owner's to filter by. A request
that cannot be answered (no such run, a page past the end, an unknown value) says why.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import F, FloatField, Q, QuerySet
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast

from leaderboard.models import ItemScore, ReferenceItem, Submission
from leaderboard.services.boards.parsing import NOT_COUNTED, parsing_rule, submission_parsing
from leaderboard.services.policy.refusals import Refused
from scoring import MetricSpec
from scoring.engine import UNPARSED_KEY

ACCURACY_OUTPUTS = ("accuracy", "hit_at_1", "correct")  # per item 1 (right) or 0 (wrong)
SCORE_PARAMS = ("correct", "metric", "min", "max", "sort")
EMPTY_SEARCH = ("(empty)", "empty")


@dataclass
class ExploreQuery:
    rows: QuerySet[ItemScore]
    run: int
    filters: dict[str, str]


def explore_metrics(submission: Submission) -> dict[str, MetricSpec]:
    """The entry's stored columns (judged ones included) with their metric specs."""
    profile = submission.split.spec.profile(submission.profile or None)
    out = {}
    for column in (submission.report or {}).get("metrics", {}):
        metric = profile.metric_for(column)
        if metric is not None:
            out[column] = metric
    return out


def explore_query(submission: Submission, params: Mapping[str, str], *, details: bool) -> ExploreQuery:
    """The filtered, sorted rows of one run; raises :class:`Refused` with the reason."""
    runs = list(submission.runs.values_list("number", flat=True))
    run = whole_number(params.get("run"), 1, "run")
    if run not in runs:
        listed = ", ".join(str(r) for r in runs) or "none"
        raise Refused("unknown_run", f"there is no run {run}: this entry has run(s) {listed}", "run", 404)
    used = {k: clean_text(params[k]) for k in SCORE_PARAMS if params.get(k)}
    if used and not details:
        raise Refused("withheld", "hidden-label split: filtering or sorting by per-item scores would reveal "
                      "the labels, so it is for maintainers only", next(iter(used)), 403)
    rows = submission.item_scores.filter(run=run)
    filters: dict[str, str] = {}
    rows = _by_reference(submission, rows, params, filters)
    query = clean_text(params.get("q", ""))
    if query:
        filters["q"] = query
        matching = ReferenceItem.objects.filter(split=submission.split, public__icontains=query).values("index")
        found = Q(item_id__icontains=query) | Q(prediction__icontains=query) | Q(index__in=matching)
        if query.casefold() in EMPTY_SEARCH:  # the explorer shows an empty prediction as "(empty)"
            found |= Q(prediction__prediction__regex=r"^\s*$")
        rows = rows.filter(found)
    rows = _by_parse(submission, rows, clean_text(params.get("parsed", "")), filters, details=details)
    metrics = explore_metrics(submission)
    rows = _by_score(submission, rows, used, metrics, filters)
    return ExploreQuery(_sorted(submission, rows, used.get("sort", ""), metrics, filters), run, filters)


def clean_text(value: str) -> str:
    """A parameter as PostgreSQL can take it: NUL characters dropped, length bounded."""
    return value.replace("\x00", "").strip()[:200]


MAX_NUMBER = 1_000_000_000


def whole_number(value: str | None, default: int, name: str) -> int:
    if not value:
        return default
    try:
        number = int(clean_text(value))
    except ValueError:
        raise Refused("not_a_number", f"{name} must be a whole number, not {clean_text(value)[:40]!r}",
                      name) from None
    if number < 1:
        raise Refused("not_a_number", f"{name} must be 1 or more, not {number}", name)
    if number > MAX_NUMBER:  # beyond the database's integer: a clear refusal, not a server error
        raise Refused("not_a_number", f"{name} must be at most {MAX_NUMBER:,}, not {number}", name)
    return number


def _by_reference(submission: Submission, rows: QuerySet[ItemScore], params: Mapping[str, str],
                  filters: dict[str, str]) -> QuerySet[ItemScore]:
    items = ReferenceItem.objects.filter(split=submission.split)
    for name, lookup in (("qa_type", "qa_type"), ("setting", "public__setting")):
        wanted = clean_text(params.get(name, ""))
        if not wanted:
            continue
        valid = sorted({str(v) for v in items.values_list(lookup, flat=True).distinct() if v})
        if wanted not in valid:
            raise Refused("unknown_value", f"{name} {wanted!r} is not one of this split's: "
                          f"{', '.join(valid) or 'none'}", name)
        filters[name] = wanted
        rows = rows.filter(index__in=items.filter(**{lookup: wanted}).values("index"))
    group = clean_text(params.get("group", ""))
    if group:
        valid = explore_groups(submission)
        if group not in valid:
            raise Refused("unknown_value", f"group {group!r} is not one of this split's: "
                          f"{', '.join(valid) or 'none'}", "group")
        filters["group"] = group
        rows = rows.filter(index__in=_subset(submission, group))
    return rows


def explore_groups(submission: Submission) -> list[str]:
    """The split's metadata categories (``key=value``) an item can be filtered by, sorted."""
    found: set[str] = set()
    for _, metadata in _metadata(submission, None):
        for key, value in metadata.items():
            found.update(f"{key}={v}" for v in _as_list(value))
    return sorted(found)


def _metadata(submission: Submission, key: str | None) -> Iterable[tuple[int, dict[str, Any]]]:
    items = ReferenceItem.objects.filter(split=submission.split, public__has_key="metadata")
    if key is not None:
        items = items.filter(public__metadata__has_key=key)
    for index, metadata in items.values_list("index", "public__metadata"):
        if isinstance(metadata, dict):
            yield index, metadata


def _as_list(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [str(v) for v in values if isinstance(v, str) and v]


def _subset(submission: Submission, applies_to: str) -> Any:
    """The indices of the split's items in a metric's subset, by the rule of ``Reference.in_subset``:
    the item's qa_type, or a metadata group ``key=value`` (``key=*``: a non-empty list under key)."""
    if "=" not in applies_to:
        return ReferenceItem.objects.filter(split=submission.split, qa_type=applies_to).values("index")
    key, _, value = applies_to.partition("=")
    return [index for index, metadata in _metadata(submission, key)
            if (value == "*" and isinstance(metadata[key], list) and _as_list(metadata[key]))
            or value in _as_list(metadata[key])]


def _applies(submission: Submission, metric: MetricSpec) -> Q:
    """Rows of the items ``metric`` applies to (every row for a metric of all items)."""
    return Q() if metric.applies_to is None else Q(index__in=_subset(submission, metric.applies_to))


def _score(key: str) -> Cast:
    return Cast(KeyTextTransform(key, "values"), FloatField())


def parse_status_visible(submission: Submission, *, details: bool) -> bool:
    """Whether the viewer (one who may see the entry's predictions) may see each answer's parse status: with the
    item details, or where it follows from the answer and the public inputs alone."""
    rule = parsing_rule(submission.split.spec, submission.profile or None)
    return rule is not None and (details or not rule.reads_labels)


def _by_parse(submission: Submission, rows: QuerySet[ItemScore], wanted: str, filters: dict[str, str], *,
              details: bool) -> QuerySet[ItemScore]:
    if not wanted:
        return rows
    rule = parsing_rule(submission.split.spec, submission.profile or None)
    if rule is None or wanted not in ("yes", "no"):
        raise Refused("unknown_value", "parsed is yes or no" if rule else "this benchmark's publisher parses no "
                      "answers (its metrics read the text as it is)", "parsed")
    if not parse_status_visible(submission, details=details):
        raise Refused("withheld", "hidden-label split: whether an answer was parsed here depends on the labels, so "
                      "filtering by it is for maintainers only", "parsed", 403)
    if submission_parsing(submission) is None:
        raise Refused("not_counted", f"this entry was {NOT_COUNTED}", "parsed")
    filters["parsed"] = wanted
    return rows.annotate(_unparsed=_score(UNPARSED_KEY)).filter(_unparsed=0.0 if wanted == "yes" else 1.0)


def _by_score(submission: Submission, rows: QuerySet[ItemScore], used: dict[str, str],
              metrics: dict[str, MetricSpec], filters: dict[str, str]) -> QuerySet[ItemScore]:
    if "correct" in used:
        keys = [k for k, m in metrics.items() if m.output in ACCURACY_OUTPUTS]
        if used["correct"] not in ("yes", "no") or not keys:
            raise Refused("unknown_value", "correct is yes or no, for entries with an accuracy metric"
                          if keys else "this benchmark has no accuracy metric", "correct")
        target = 1.0 if used["correct"] == "yes" else 0.0
        condition = Q()
        for i, key in enumerate(keys):
            rows = rows.annotate(**{f"_acc{i}": _score(key)})
            condition |= Q(**{f"_acc{i}": target}) & _applies(submission, metrics[key])
        rows = rows.filter(condition)
        filters["correct"] = used["correct"]
    if "min" in used or "max" in used:
        key = used.get("metric", "")
        if key not in metrics:
            raise Refused("unknown_metric", f"a score range needs metric=<one of {', '.join(metrics)}>",
                          "metric")
        rows = rows.annotate(_range=_score(key)).filter(_applies(submission, metrics[key]))
        scale = metrics[key].scale
        for name, lookup in (("min", "_range__gte"), ("max", "_range__lte")):
            if name in used:
                rows = rows.filter(**{lookup: _number(used[name], name) / scale})
                filters[name] = used[name]
        filters["metric"] = key
    return rows


def _number(value: str, name: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise Refused("not_a_number", f"{name} must be a number, not {value[:40]!r}", name)
    return number


def _sorted(submission: Submission, rows: QuerySet[ItemScore], sort: str, metrics: dict[str, MetricSpec],
            filters: dict[str, str]) -> QuerySet[ItemScore]:
    if not sort:
        return rows.order_by("index")
    key = sort.removeprefix("-")
    if key not in metrics:
        raise Refused("unknown_metric", f"cannot sort by {key!r}: one of {', '.join(metrics)}", "sort")
    filters["sort"] = sort
    value = F("_sort")
    order = value.desc(nulls_last=True) if sort.startswith("-") else value.asc(nulls_last=True)
    rows = rows.filter(_applies(submission, metrics[key]))  # a sort lists the items its metric scores
    return rows.annotate(_sort=_score(key)).order_by(order, "index")
