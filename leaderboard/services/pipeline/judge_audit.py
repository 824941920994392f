"""Audit of judged columns: judged/unjudged counts, parse-failure rate, score histogram,
injection flags, and agreement between two judges on the same items."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np

from scoring import RunScores, Scorer
from scoring.specs import split_column


def judge_audit(scorer: Scorer, runs: Sequence[RunScores]) -> dict[str, Any]:
    """Per judged column (run 1) and per pair of judges scoring the same metric."""
    first = runs[0]
    columns: dict[str, Any] = {}
    by_metric: dict[str, list[str]] = {}
    for key, (metric, _) in scorer.columns.items():
        if metric.family != "judge" or metric.descriptive:
            continue
        applicable = np.array([metric.applies_to in (None, r.qa_type) for r in scorer.references])
        values = first[key].values[applicable]
        judged = values[~np.isnan(values)]
        columns[key] = {
            "applicable": int(applicable.sum()),
            "judged": int(judged.size),
            "unjudged": int(applicable.sum() - judged.size),
            "parse_failure_rate": _rate(applicable.sum() - judged.size, applicable.sum()),
            "histogram": {f"{v:g}": n for v, n in sorted(Counter(np.round(judged, 1).tolist()).items())},
        }
        by_metric.setdefault(split_column(key)[0], []).append(key)
    return {"columns": columns, "agreement": _agreements(first, by_metric), "flags": _flags(runs),
            "usage": _usage(runs) if columns else {}}


USAGE = ("judge_requests", "judge_cache_hits", "judge_input_tokens", "judge_output_tokens", "judge_cost_usd",
         "judge_skipped_budget")


def _usage(runs: Sequence[RunScores]) -> dict[str, float]:
    """Requests, cache hits, tokens and estimated cost over every judge and run of the submission."""
    totals = dict.fromkeys(USAGE, 0.0)
    for run in runs:
        for key, scores in run.items():
            name = key.removeprefix("diag:").split("[", 1)[0]
            if name in totals:
                totals[name] += float(np.nansum(scores.values))
    return {name: round(value, 6) for name, value in totals.items()}


def _agreements(run: RunScores, by_metric: dict[str, list[str]]) -> list[dict[str, Any]]:
    from scoring.judge.agreement import judge_agreement

    out = []
    for base, keys in by_metric.items():
        for a, b in combinations(sorted(keys), 2):
            agreement = judge_agreement(run[a].values, run[b].values)
            out.append({"metric": base, "a": a, "b": b, "n": agreement.n, "pearson": _num(agreement.pearson),
                        "spearman": _num(agreement.spearman), "mean_abs_diff": _num(agreement.mean_abs_diff)})
    return out


def _flags(runs: Sequence[RunScores]) -> int:
    """Items whose prediction tried to address the judge (any run)."""
    flagged = 0
    for run in runs:
        for key, scores in run.items():
            if key.startswith("diag:judge_flagged"):
                flagged = max(flagged, int(np.nansum(scores.values)))
    return flagged


def _rate(part: float, whole: float) -> float | None:
    return None if not whole else round(float(part) / float(whole), 6)


def _num(value: float | None) -> float | None:
    return None if value is None or np.isnan(value) else round(float(value), 6)
