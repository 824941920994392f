"""What non-maintainers may learn on hidden-label splits: one precision bound for every number.

Every number derived from per-item scores of a hidden-label split reaches a non-maintainer only
through this module. The mechanism (docs/hidden-labels.md):

* **No per-run values, std, intervals, histories, judge audits or diagnostics**: only one
  aggregate per (entry, column), the mean over the entry's runs. Runs of one submission are
  therefore not separate probes.
* **Rounding** (:func:`disclosure_round`): the aggregate is rounded to a step of at least twice
  one item's largest effect on it (:func:`disclosure_step`), so changing one item moves the
  released value by at most one step.
* **Ladder** (Blum and Hardt 2015, :func:`disclosure_released`): per account and column, an
  entry's rounded value is released only when it beats the account's best released value
  (by at least one step, since both lie on the step grid); otherwise the entry shows "not above
  this account's best". A probe differing from a released entry in one item can therefore only
  answer "not better" or "one step better": at most one bit per column and counted submission.

Pages, the API, downloads and comparisons ask :func:`disclosure_hidden` first.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from django.db.models import Count

from leaderboard.models import MetricValue, Split
from leaderboard.services.policy.access import is_maintainer
from leaderboard.services.shared.cache import cached_for_split
from scoring.metrics.ranges import metric_label_gated, metric_magnitude
from scoring.specs.base import MetricSpec

NOT_ABOVE_BEST = "not above this account's best released value (hidden-label split)"
WITHHELD = ("hidden-label split: released at a bounded precision; per-run values, std, intervals and "
            "per-item data are for maintainers only")
DIAGNOSTICS_WITHHELD = "hidden-label split: diagnostics (the parse count among them) are for maintainers only"
# one item may move a mean over n items by (range / n) <= (2 x magnitude / n) (a range may span [-m, m]);
# the step is at least twice that effect: rounding then moves one step at most
_EFFECT_FACTOR = 4.0


def disclosure_hidden(*, split: Split, user: Any) -> bool:
    """True when numbers of ``split`` shown to ``user`` must obey the hidden-label precision bound."""
    return bool(split.hidden_labels) and not is_maintainer(user)


def disclosure_step(
    *, split: Split, metric: MetricSpec | None = None, counts: Mapping[str, int] | None = None
) -> float:
    """The rounding step: a power of ten of at least twice one item's largest effect on the mean.

    The effect is sized by the column's true range (:func:`scoring.metrics.ranges.metric_range`:
    sacrebleu's 0-100, a judge's 0-5, Kendall's -1 to 1, times the spec's scale). ``counts``: items per
    subset already read for the split (what :class:`_Steps` holds)."""
    scale = metric_magnitude(metric) if metric is not None else 1.0
    if not math.isfinite(scale):
        return math.inf  # an unbounded column (R², WER): one item can move it anywhere, so nothing is released
    # a gated column may average over one item: sized for that, it releases (almost) nothing
    gated = metric is not None and metric_label_gated(metric)
    n = 1 if gated else max(_items_counted(split, metric.applies_to if metric is not None else None, counts), 1)
    return float(10.0 ** math.ceil(math.log10(_EFFECT_FACTOR * scale / n)))


def disclosure_round(value: float | None, *, split: Split, metric: MetricSpec | None = None) -> float | None:
    """``value`` as a non-maintainer may see it on a hidden-label split (``None`` stays ``None``)."""
    if value is None or not math.isfinite(value):
        return value
    step = disclosure_step(split=split, metric=metric)
    if not math.isfinite(step):
        return None
    return round(round(value / step) * step, 12)


def disclosure_released(*, split: Split) -> dict[tuple[int, str, str], float | None]:
    """The Ladder over every scored entry of ``split``: (submission id, key, signature) -> released value.

    Per account and column (key, signature), in the order the values were stored: the rounded value is released
    when it is the account's first or beats its best released value; ``None`` otherwise. Cached per split version.
    """
    steps = _Steps(split, split.spec.profile())
    definition = repr({metric.key: steps(metric.key) for metric in steps.profile.metrics})
    # keyed by the steps too: a deploy that resizes a column re-rounds at once, not when the split next changes
    return cached_for_split(split.pk, f"disclosure:ladder:{_cache_name(definition)}", lambda: _ladder(split, steps))


def disclosure_cell(cell: dict[str, Any], *, released: float | None, step: float) -> dict[str, Any]:
    """A leaderboard/API metric cell reduced to what a non-maintainer may see."""
    out = {**cell, "value": released, "std": None, "ci95": None, "per_run": [], "precision": step}
    if "n_scored" in cell:  # the items with a value: a judge's gated column counts the items judged wrong
        out["n_scored"] = None
    if released is None and cell.get("value") is not None:
        out["withheld"] = NOT_ABOVE_BEST
    return out


def disclosure_entries(entries: Iterable[Any], *, split: Split) -> list[Any]:
    """Leaderboard entries (``leaderboards.Entry``) with every value released, as copies, without their judge
    agreement and with their parse count withheld (diagnostics are for maintainers)."""
    released = disclosure_released(split=split)
    steps = _Steps(split, split.spec.profile())
    out = []
    for entry in entries:
        values = {}
        for cid, cell in entry.values.items():
            signature = entry.signatures.get(cid, "")
            value = released.get((entry.submission_id, cell["key"], signature))
            values[cid] = disclosure_cell(cell, released=value, step=steps(cell["key"]))
        parsing = None if entry.parsing is None else {"withheld": DIAGNOSTICS_WITHHELD}
        out.append(replace(entry, values=values, judge_agreement=[], parsing=parsing))
    return out


def disclosure_metrics(*, submission: Any, metrics: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """An entry's ``{key: {"value", "std", "ci95", "per_run", "signature", ...}}`` as released."""
    split = submission.split
    released = disclosure_released(split=split)
    steps = _Steps(split, split.spec.profile(submission.profile or None))
    return {key: disclosure_cell(cell, released=released.get((submission.pk, key, cell.get("signature", ""))),
                                 step=steps(key))
            for key, cell in metrics.items()}


class _Steps:
    """disclosure_step per column key, computed once per key, from the item counts of the profile's subsets
    read once per split version (a page rounds entries x columns cells; MMAU alone has 25 subset columns)."""

    def __init__(self, split: Split, profile: Any) -> None:
        self.split, self.profile = split, profile
        self.counts = _subset_counts(split, profile)
        self.known: dict[str, float] = {}

    def __call__(self, key: str) -> float:
        if key not in self.known:
            metric = self.profile.metric_for(key)
            self.known[key] = disclosure_step(split=self.split, metric=metric, counts=self.counts)
        return self.known[key]


def _ladder(split: Split, steps: _Steps) -> dict[tuple[int, str, str], float | None]:
    profile = steps.profile
    # in the order the values were first stored, whatever the entry's state now: a value released once is never
    # re-judged (an earlier upload scored later, or a re-score taking an entry off the board, would otherwise
    # release and withdraw values of one account around it, which tells "one step worse")
    rows = (MetricValue.objects.filter(submission__split=split, current=True)
            .order_by("created_at", "id")
            .values_list("submission__user_id", "submission_id", "key", "signature", "value"))
    best: dict[tuple[int, str, str], float] = {}
    released: dict[tuple[int, str, str], float | None] = {}
    for user_id, submission_id, key, signature, value in rows:
        metric = profile.metric_for(key)
        step = steps(key)
        rounded = None if value is None or not math.isfinite(value) else round(round(value / step) * step, 12)
        column = (user_id, key, signature)
        previous = best.get(column)
        higher = metric.higher_is_better if metric is not None else True
        if rounded is None:
            released[(submission_id, key, signature)] = None
        elif previous is None or (rounded > previous if higher else rounded < previous):
            best[column] = rounded
            released[(submission_id, key, signature)] = rounded
        else:
            released[(submission_id, key, signature)] = None
    return released


def _items_counted(split: Split, subset: str | None, counts: Mapping[str, int] | None = None) -> int:
    """Items a column is computed on: all, one qa_type, or one group (an MMAU task, a difficulty...)."""
    if not subset:
        return int(split.n_items or 0)
    if counts is not None and subset in counts:
        count = counts[subset]
    else:
        count = cached_for_split(split.pk, f"disclosure:subset:{_cache_name(subset)}",
                                 lambda: _subset_count(split, subset))
    return int(count) or int(split.n_items or 0)


def _subset_counts(split: Split, profile: Any) -> dict[str, int]:
    """Items per subset of the profile's columns: data, so one cache entry per split version."""
    subsets = sorted({metric.applies_to for metric in profile.metrics if metric.applies_to})
    if not subsets:
        return {}
    return cached_for_split(split.pk, f"disclosure:subsets:{_cache_name(chr(10).join(subsets))}",
                            lambda: {subset: _subset_count(split, subset) for subset in subsets})


def _cache_name(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]  # subsets hold spaces: not a portable cache key


def _subset_count(split: Split, subset: str) -> int:
    by_type = dict(split.items.values_list("qa_type").annotate(n=Count("id")).values_list("qa_type", "n"))
    if subset in by_type:
        return int(by_type[subset])
    if not split.references_sha256:
        return 0
    from leaderboard.services.shared.split_references import split_references

    return sum(1 for reference in split_references(split).references if reference.in_subset(subset))
