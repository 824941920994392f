"""What non-maintainers may learn on hidden-label splits: one precision bound for every number.

Every number derived from per-item scores of a hidden-label split (aggregates, per-run values,
differences and intervals in a comparison) reaches a non-maintainer only through
:func:`disclosure_round`, so that two submissions differing in one item cannot reveal that item's
score. Pages, the API, downloads and comparisons ask :func:`disclosure_hidden` first.
"""

from __future__ import annotations

import math
from typing import Any

from leaderboard.models import Split
from leaderboard.services.access import is_maintainer
from scoring.specs.base import MetricSpec


def disclosure_hidden(*, split: Split, user: Any) -> bool:
    """True when numbers of ``split`` shown to ``user`` must obey the hidden-label precision bound."""
    return bool(split.hidden_labels) and not is_maintainer(user)


def disclosure_step(*, split: Split, metric: MetricSpec | None = None) -> float:
    """The rounding step: a power of ten above twice one item's largest effect on a mean."""
    scale = metric.scale if metric is not None else 1.0
    n = max(int(split.n_items or 1), 1)
    return float(10.0 ** math.ceil(math.log10(2.0 * scale / n)))


def disclosure_round(value: float | None, *, split: Split, metric: MetricSpec | None = None) -> float | None:
    """``value`` as a non-maintainer may see it on a hidden-label split (``None`` stays ``None``)."""
    if value is None or not math.isfinite(value):
        return value
    step = disclosure_step(split=split, metric=metric)
    return round(round(value / step) * step, 12)
