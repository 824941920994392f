"""The range of a leaderboard column's values, in the scale it is reported in."""

from __future__ import annotations

from scoring.metrics import get_family
from scoring.specs.base import MetricSpec


def metric_range(metric: MetricSpec) -> tuple[float, float]:
    """Least and greatest value ``metric`` can report: its family's range times the spec's ``scale``."""
    low, high = get_family(metric.family).value_range(metric.params, metric.output)
    return (low * metric.scale, high * metric.scale)


def metric_label_gated(metric: MetricSpec) -> bool:
    """True when the items ``metric`` averages over depend on the labels (see ``MetricFamily.label_gated``)."""
    return get_family(metric.family).label_gated(metric.params, metric.output)


def metric_magnitude(metric: MetricSpec) -> float:
    """The largest absolute value ``metric`` can report (the size hidden-label rounding is based on)."""
    return max(abs(end) for end in metric_range(metric))
