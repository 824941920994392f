"""Each run's per-item values and sufficient statistics as stored arrays (``EntryVector`` rows).

The comparison of two entries needs the engine's per-item arrays; rebuilding them from 36,519
JSON rows per run takes seconds, reading two binary arrays per metric takes milliseconds. Values
are kept in the engine's native scale, bit for bit, so the numbers equal the CLI's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from leaderboard.models import EntryVector, Submission
from scoring import RunScores
from scoring.metrics import ItemScores

PREFIX = "run"


def _value_key(run: int, key: str) -> str:
    return f"{PREFIX}{run}:values:{key}"


def _stats_key(run: int, key: str) -> str:
    return f"{PREFIX}{run}:stats:{key}"


def run_vectors(runs: Sequence[RunScores], keys: Sequence[str]) -> dict[str, np.ndarray]:
    """Arrays to store at aggregation: per run and metric, values (float) and statistics (as float)."""
    out = {}
    for number, run in enumerate(runs, start=1):
        for key in keys:
            out[_value_key(number, key)] = np.asarray(run[key].values, dtype=np.float64)
            if run[key].stats is not None:
                out[_stats_key(number, key)] = np.asarray(run[key].stats, dtype=np.float64)
    return out


def stored_run_vectors(submission: Submission, keys: Sequence[str], runs: int) -> list[RunScores] | None:
    """The runs rebuilt from stored arrays, or None when the entry was aggregated before they were kept."""
    wanted = [_value_key(n, k) for n in range(1, runs + 1) for k in keys]
    wanted += [_stats_key(n, k) for n in range(1, runs + 1) for k in keys]
    arrays = {}
    for vector in EntryVector.objects.filter(submission=submission, key__in=wanted):
        array = np.frombuffer(bytes(vector.data), dtype=np.float64)
        arrays[vector.key] = array.reshape(vector.rows, vector.cols) if vector.cols > 1 else array
    if not all(_value_key(n, k) in arrays for n in range(1, runs + 1) for k in keys):
        return None
    out = []
    for n in range(1, runs + 1):
        run: RunScores = {}
        for key in keys:
            stats = arrays.get(_stats_key(n, key))
            if stats is not None and stats.ndim == 1:
                stats = stats.reshape(-1, 1)
            run[key] = ItemScores(arrays[_value_key(n, key)].copy(),
                                  None if stats is None else np.rint(stats).astype(np.int64))
        out.append(run)
    return out
