"""An entry's per-item arrays as scoring stores them and the boards read them (``EntryVector`` rows, float64,
row-major), and the engine's per-run arrays rebuilt from the stored per-item rows.

Arrays kept per entry, by key:

* ``<metric key>``: each item's value in report scale, the mean over the runs that define it (heatmaps);
* ``run<n>:values:<key>``, ``run<n>:stats:<key>``: each run's per-item values and sufficient statistics
  in the engine's native scale, bit for bit, so a comparison's numbers equal the CLI's;
* ``candidate_scores``: a ranking entry's predicted scores, items x candidates (run 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from leaderboard.models import Submission
from scoring import RunScores
from scoring.metrics import ItemScores

CANDIDATE_SCORES = "candidate_scores"
RUN_PREFIX = "run"


def item_means(runs: Sequence[RunScores], key: str) -> np.ndarray:
    """Each item's mean of ``key`` over the runs that define it (NaN where none does), engine scale."""
    stacked = np.stack([run[key].values for run in runs])
    defined = (~np.isnan(stacked)).sum(axis=0)
    return np.where(defined > 0, np.nansum(stacked, axis=0) / np.maximum(defined, 1), np.nan)


def run_values_key(run: int, key: str) -> str:
    return f"{RUN_PREFIX}{run}:values:{key}"


def run_stats_key(run: int, key: str) -> str:
    return f"{RUN_PREFIX}{run}:stats:{key}"


def entry_runs_from_rows(submission: Submission, keys: Sequence[str], n_items: int) -> list[RunScores]:
    """The engine's per-item arrays rebuilt from the stored per-item rows, in item order."""
    runs = []
    for number in submission.runs.values_list("number", flat=True):
        rows = list(
            submission.item_scores.filter(run=number).order_by("index").values_list("index", "values", "stats")
        )
        if len(rows) != n_items or any(row[0] != i for i, row in enumerate(rows)):
            raise RuntimeError(f"run {number} has {len(rows)} of {n_items} items stored")
        run: RunScores = {}
        for key in keys:
            values = np.array([np.nan if v.get(key) is None else v[key] for _, v, _ in rows], dtype=float)
            run[key] = ItemScores(values, _stored_stats(rows, key))
        runs.append(run)
    return runs


def _stored_stats(rows: Sequence[tuple[int, Any, Any]], key: str) -> np.ndarray | None:
    """Sufficient statistics of one key; zeros for items whose chunk had none to apply to
    (a chunk without sentence items stores no BLEU statistics), as ``ItemScores.concat`` does.
    Counts (BLEU's n-gram statistics) come back as integers, real-valued statistics as floats."""
    width = next((len(s[key]) for _, _, s in rows if key in s), None)
    if width is None:
        return None
    zeros = [0] * width
    table = [s.get(key, zeros) for _, _, s in rows]
    counts = all(isinstance(v, int) for row in table for v in row)
    return np.array(table, dtype=np.int64 if counts else np.float64)
