"""Reports as aligned plain text for a terminal: ``--format table`` of ``score``, ``compare``, ``status`` and
``leaderboard``. Every value keeps its column's decimals (``MetricSpec.decimals``); the JSON report stays the
one that scripts read (``--format json``, the default when standard output is not a terminal)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from scoring.specs import BENCHMARKS
from scoring.specs.base import MetricSpec

FORMATS = ("table", "json")
DEFAULT_DECIMALS = 4


def chosen_format(value: str | None, out: TextIO | None = None) -> str:
    """``value`` when given, else ``table`` on a terminal and ``json`` when the output is piped or a file."""
    if value:
        return value
    return "table" if (out or sys.stdout).isatty() else "json"


def aligned(rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    """``rows`` as lines of columns two spaces apart: the first ``left`` columns left-aligned, the rest right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) if i < left else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
            .rstrip() for row in rows]


def number(value: Any, decimals: int) -> str:
    """``value`` with ``decimals`` decimals; ``-`` when there is none."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return "-"
    return f"{value:.{decimals}f}"


def _metric(benchmark: str, profile: str, key: str) -> MetricSpec | None:
    spec = BENCHMARKS.get(benchmark)
    if spec is None:
        return None
    try:
        found = spec.profile(profile or None)
    except KeyError:
        return None
    return found.metric_for(key)


def _label(metric: MetricSpec | None, key: str) -> str:
    if metric is None:
        return key
    suffix = key[len(metric.key):] if key.startswith(metric.key) else ""  # a judged column's ":judge"
    return metric.label + suffix + ("" if metric.higher_is_better else " (lower)")


def _interval(pair: Any, decimals: int) -> str:
    if not isinstance(pair, (list, tuple)) or len(pair) != 2 or None in pair:
        return "-"
    return f"[{number(pair[0], decimals)}, {number(pair[1], decimals)}]"


def score_table(report: Mapping[str, Any]) -> str:
    """A ``score`` report (or a scored submission's): one row per column with its value, the std over runs, the
    bootstrap interval, the items it covers and each run's value; then what was not computed and the warnings."""
    runs = int(report.get("runs") or 0)
    header = ["metric", "value", "std", "95% interval", "items", *(f"run {n}" for n in range(1, runs + 1))]
    rows = [header]
    for key, value in (report.get("metrics") or {}).items():
        metric = _metric(report["benchmark"], report.get("profile", ""), key)
        decimals = metric.decimals if metric else DEFAULT_DECIMALS
        per_run = list((report.get("per_run") or {}).get(key) or [])
        scored = (report.get("n_scored") or {}).get(key)
        rows.append([_label(metric, key), number(value, decimals), number((report.get("std") or {}).get(key), decimals),
                     _interval((report.get("ci95") or {}).get(key), decimals),
                     f"{scored:,}" if isinstance(scored, int) else "-",
                     *(number(per_run[n] if n < len(per_run) else None, decimals) for n in range(runs))])
    boot = report.get("bootstrap") or {}
    lines = [f"{report['benchmark']} ({report.get('profile', '')}): {int(report.get('n_items') or 0):,} items, "
             f"{runs} run(s); 95% interval: {boot.get('method', 'bootstrap')}, {boot.get('replicates', '?')} "
             f"replicates, seed {boot.get('seed', '?')}", *aligned(rows)]
    for key, values in (report.get("diagnostics") or {}).items():
        shown = values if isinstance(values, list) else [values]
        lines.append(f"{key.replace('_', ' ')} (per run): {', '.join(str(v) for v in shown)}")
    for key, why in (report.get("not_computed") or {}).items():
        lines.append(f"not computed: {key}: {why}")
    lines.extend(_warning_lines(report.get("warnings") or {}))
    if report.get("missing_as_empty"):
        lines.append(f"{report['missing_as_empty']:,} missing item(s) scored as empty predictions (--missing-as-empty)")
    return "\n".join(lines)


def _warning_lines(warnings: Mapping[str, Any]) -> list[str]:
    return [f"warning: {line}" for line in warnings.get("summary") or []]


def compare_table(result: Mapping[str, Any]) -> str:
    """A ``compare`` result: per column A, B, A - B, its paired bootstrap interval, p-value and which is better."""
    rows = [["metric", "A", "B", "A - B", "95% interval", "p", "better"]]
    for key, row in (result.get("metrics") or {}).items():
        metric = _metric(result["benchmark"], result.get("profile", ""), key)
        decimals = metric.decimals if metric else DEFAULT_DECIMALS
        rows.append([_label(metric, key), number(row.get("a"), decimals), number(row.get("b"), decimals),
                     number(row.get("difference"), decimals), _interval(row.get("ci95"), decimals),
                     number(row.get("p_value"), 3), str(row.get("better") or "-")])
    lines = [f"{result['benchmark']}: A = {result['a']}, B = {result['b']} ({result.get('test', '')})", *aligned(rows)]
    lines.extend(_warning_lines(result.get("warnings") or {}))
    return "\n".join(lines)


def status_table(submission: Mapping[str, Any]) -> str:
    """A submission that is not finished: its id, status, what it is doing and how far it is."""
    progress = submission.get("progress") or {}
    done, total = progress.get("done"), progress.get("total")
    rows = [["id", str(submission.get("id", ""))], ["status", str(submission.get("status", ""))],
            ["detail", str(submission.get("status_detail") or "")], ["url", str(submission.get("url") or "")]]
    if isinstance(done, int) and isinstance(total, int) and total:
        rows.append(["progress", f"{done:,} of {total:,} items ({done / total:.0%})"])
    return "\n".join(aligned(rows, left=2))
