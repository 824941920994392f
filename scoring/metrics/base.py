"""The contract every metric family follows.

A *family* computes one or more named *outputs* from the same work (ROUGE-1/2/L
precision/recall/F from one tokenisation; the four ranking metrics from one
tie analysis). Each output gives a per-item value, and the aggregate comes
from the same per-item data through :meth:`MetricFamily.aggregate`, which
takes item weights so that the plain score (all weights 1) and every
bootstrap replicate share one code path.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import numpy as np

from scoring.exact import weighted_totals
from scoring.task_types import Prediction, Reference

UNPARSED = "unparsed"
"""The diagnostic of every family with an answer parser: per item 1 where the publisher's parser maps the answer
to no option or value (or to several options at once), else 0; its per-run sum is the entry's parse count."""


@dataclass(slots=True)
class ItemScores:
    """Per-item values of one output; ``nan`` where the output does not apply.

    ``stats`` holds per-item sufficient statistics (shape ``(n, d)``) for
    outputs whose aggregate is not a mean, such as corpus BLEU. ``notes`` holds
    per-item JSON-able annotations (a judge's raw reply, rationale, status),
    ``None`` for items the output does not apply to.
    """

    values: np.ndarray
    stats: np.ndarray | None = None
    notes: list[dict[str, Any] | None] | None = None

    @staticmethod
    def concat(parts: Sequence[ItemScores]) -> ItemScores:
        values = np.concatenate([p.values for p in parts]) if parts else np.empty(0)
        notes = None
        if any(p.notes is not None for p in parts):
            notes = [n for p in parts for n in (p.notes if p.notes is not None else [None] * len(p.values))]
        with_stats = [p.stats for p in parts if p.stats is not None]
        if not with_stats:
            return ItemScores(values, notes=notes)
        width, dtype = with_stats[0].shape[1], with_stats[0].dtype
        stats = np.concatenate([
            p.stats if p.stats is not None else np.zeros((len(p.values), width), dtype=dtype) for p in parts
        ])
        return ItemScores(values, stats, notes)

    def take(self, index: np.ndarray) -> ItemScores:
        notes = None
        if self.notes is not None:
            notes = [self.notes[i] for i in np.arange(len(self.values))[index].tolist()]
        return ItemScores(self.values[index], None if self.stats is None else self.stats[index], notes)


@dataclass(frozen=True)
class Totals:
    """An aggregate written as ``finish(weights @ columns)``: weighted totals over items, then
    a function of those totals (a mean is total value over total count; corpus BLEU is sacrebleu
    on total n-gram counts). ``columns`` has shape ``(n, k)``; ``finish`` maps the ``(b, k)``
    totals of ``b`` weight rows to ``b`` aggregates. Many statistics in this form share one
    matrix product per bootstrap block (:mod:`scoring.resample`)."""

    columns: np.ndarray
    finish: Callable[[np.ndarray], np.ndarray]

    def of(self, weights: np.ndarray) -> np.ndarray:
        """The aggregate under each row of ``weights``."""
        return self.finish(weighted_totals(weights, self.columns))


@dataclass
class ScoringContext:
    """Run-time resources a family may need (a model, a judge); never part of a spec."""

    bertscore: Any = None  # scoring.metrics.bertscore.BertScoreConfig
    judges: Mapping[str, Any] = field(default_factory=dict)  # name -> scoring.judge.Judge
    judge_serves: Mapping[str, Any] = field(default_factory=dict)  # name -> judge profiles (absent: all)
    # a secret keying digests of reference labels in signatures: set for hidden labels, whose unkeyed
    # digest over a small column could be matched against every guess of the labels
    label_key: bytes | None = None


class MetricFamily:
    """Base class of the metric registry's entries.

    Subclasses set ``name``, ``outputs`` and ``task_types``, implement
    :meth:`score` and, when an output is not a mean of per-item values,
    override :meth:`aggregate`.
    """

    name: ClassVar[str]
    outputs: ClassVar[tuple[str, ...]]
    task_types: ClassVar[tuple[str, ...]]
    diagnostic_outputs: ClassVar[tuple[str, ...]] = ()
    needs: ClassVar[str | None] = None  # a ScoringContext resource; absent -> not computed
    heavy: ClassVar[bool] = False  # model-heavy: a deployment may score it on its own (GPU) worker queue
    rules: ClassVar[int] = 1  # bumped when a change to this family could move one of its numbers (signature "rules")
    # True where the ``unparsed`` diagnostic depends on the references (CMI-Bench's label set), not only on an
    # answer and its public inputs: it is then gold on a hidden-label split
    parse_reads_labels: ClassVar[bool] = False

    def __init__(self, params: Mapping[str, Any], context: ScoringContext) -> None:
        self.params = dict(params)
        self.context = context

    @classmethod
    def value_range(cls, params: Mapping[str, Any], output: str) -> tuple[float, float]:
        """The least and greatest value ``output`` can take, per item and aggregated, before a spec's scale.

        Rounding of hidden-label values is sized by it (one item moves a mean by at most range / n).
        """
        return (0.0, 1.0)

    @classmethod
    def label_gated(cls, params: Mapping[str, Any], output: str) -> bool:
        """True when which items ``output`` is averaged over depends on the labels (a judge's gate on
        answers judged wrong): the count, and so one item's effect, is then unknown from the outside."""
        return False

    def prepare(self, references: Sequence[Reference]) -> None:
        """See every reference once before scoring (e.g. BERTScore idf weights)."""

    def warm(self, references: Sequence[Reference]) -> int:
        """Compute ahead, where a family keeps it between runs, what every run against these references reuses
        (BERTScore: the references' embeddings); returns how many things were computed. Values never depend on it."""
        return 0

    def needs_whole_run(self) -> bool:
        """True when an item's value depends on the other items of the run (bert-score's own
        batching): :meth:`begin_run` then sees the whole run before any chunk is scored."""
        return False

    def begin_run(self, references: Sequence[Reference], predictions: Sequence[Prediction]) -> None:
        """See a whole run (the items this family applies to, in file order) before its chunks."""

    def score(
        self,
        references: Sequence[Reference],
        predictions: Sequence[Prediction],
        outputs: Collection[str],
    ) -> dict[str, ItemScores]:
        raise NotImplementedError

    def aggregate(self, output: str, scores: ItemScores, weights: np.ndarray) -> np.ndarray:
        """Aggregate for each row of ``weights`` (shape ``(b, n)``); default: weighted mean
        over the items where the value is defined."""
        return weighted_nanmean(scores.values, weights)

    def totals(self, output: str, scores: ItemScores) -> Totals | None:
        """:meth:`aggregate` as :class:`Totals` (equal to it up to the order of summation), or
        None when a subclass's aggregate is not of that form and must be called per weight block."""
        if type(self).aggregate is not MetricFamily.aggregate:
            return None
        return mean_totals(scores.values)

    @classmethod
    def item_mean_is_value(cls, output: str) -> bool:
        """True when ``output``'s value is the mean of its per-item values (over the items where defined);
        False for a corpus statistic (summed counts, a ratio of sums, R²), whose items do not average to it."""
        return cls.aggregate is MetricFamily.aggregate

    @classmethod
    def item_column(cls, key: str, output: str) -> str:
        """Per-item downloads' name for column ``key``: ``key`` itself where the items' mean is the column's
        value, otherwise ``<key>_item`` (the item's own score, not a share of the column's value)."""
        return key if cls.item_mean_is_value(output) else f"{key}_item"

    def signature_fields(self, output: str) -> dict[str, str]:
        """Parameters and library versions that fix this output's value."""
        return {}

    def unavailable_reason(self) -> str | None:
        """Why this family cannot run in the given context, or None."""
        return None

    @classmethod
    def parse_rule(cls, params: Mapping[str, Any]) -> str | None:
        """What the :data:`UNPARSED` diagnostic counts, in one sentence (the publisher's parser's decision);
        None for a family without an answer parser."""
        return None

    @classmethod
    def answer_warning(cls, text: str) -> str | None:
        """Why the publisher's reader cannot read this answer (it is still scored, by the publisher's
        rule for such answers), for a validation warning on its line; None when it can."""
        return None


METRIC_FAMILIES: dict[str, type[MetricFamily]] = {}
"""Family name -> class: each family registers itself with :func:`register_family` in its own module."""

F = TypeVar("F", bound=type[MetricFamily])


def register_family(family: F) -> F:
    """Add a family to the registry (a class decorator); a second class under a taken name is refused."""
    if family.name in METRIC_FAMILIES and METRIC_FAMILIES[family.name] is not family:
        raise ValueError(f"metric family {family.name!r} is already registered")
    METRIC_FAMILIES[family.name] = family
    return family


def get_family(name: str) -> type[MetricFamily]:
    """The registered family, or a ``KeyError`` listing the valid names."""
    try:
        return METRIC_FAMILIES[name]
    except KeyError:
        valid = ", ".join(sorted(METRIC_FAMILIES))
        raise KeyError(f"unknown metric family {name!r}; valid: {valid}") from None


def mean_totals(values: np.ndarray) -> Totals:
    """:func:`weighted_nanmean` as totals: value and count of the defined items."""
    defined = ~np.isnan(values)
    return Totals(np.column_stack([np.where(defined, values, 0.0), defined.astype(float)]), _ratio)


def sum_totals(values: np.ndarray) -> Totals:
    """The weighted sum of ``values`` (NaN counted as 0) as totals."""
    return Totals(np.nan_to_num(values)[:, None], lambda totals: totals[:, 0])


def _ratio(totals: np.ndarray) -> np.ndarray:
    value, count = totals[:, 0], totals[:, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, value / np.where(count > 0, count, 1.0), np.nan)


def weighted_nanmean(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Mean of the defined values under each row of ``weights`` (exact totals: see :mod:`scoring.exact`)."""
    return mean_totals(values).of(weights)
