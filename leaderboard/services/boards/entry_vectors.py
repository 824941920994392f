"""An entry's stored per-item arrays read back (their keys: ``services.shared.entry_runs``): for compare, the
boards' ties and the heatmaps, and the engine's per-run arrays from those arrays or, for an entry without them,
from its per-item rows. Aggregation stores them (``services.pipeline.entry_vectors``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from leaderboard.models import EntryVector, Submission
from leaderboard.services.shared.entry_runs import entry_runs_from_rows, run_stats_key, run_values_key
from scoring import RunScores
from scoring.metrics import ItemScores


def entry_vectors_read(submission_ids: Sequence[int], key: str) -> dict[int, np.ndarray]:
    """The array ``key`` of each of the entries that has it, by submission id."""
    return {vector.submission_id: _array(vector)
            for vector in EntryVector.objects.filter(submission_id__in=submission_ids, key=key)}


def entry_runs_read(submission: Submission, keys: Sequence[str], n_items: int) -> list[RunScores]:
    """The engine's per-run arrays of ``keys``: from the stored arrays when the entry has them (fast),
    else from its per-item rows."""
    runs = entry_runs_from_vectors(submission, keys, submission.runs.count())
    return runs if runs is not None else entry_runs_from_rows(submission, keys, n_items)


def entry_runs_from_vectors(submission: Submission, keys: Sequence[str], runs: int) -> list[RunScores] | None:
    """The runs rebuilt from stored arrays, or None when the entry has no per-run arrays of ``keys``."""
    arrays = {vector.key: _array(vector)
              for vector in EntryVector.objects.filter(submission=submission, key__in=_run_keys(keys, runs))}
    return _runs_from_arrays(arrays, keys, runs)


def entry_runs_many(runs: Mapping[int, int], keys: Sequence[str]) -> dict[int, list[RunScores]]:
    """:func:`entry_runs_from_vectors` of several entries in one query (``runs``: submission id -> its number
    of runs), by submission id; entries without per-run arrays of ``keys`` are left out."""
    arrays: dict[int, dict[str, np.ndarray]] = {sid: {} for sid in runs}
    wanted = _run_keys(keys, max(runs.values(), default=0))
    for vector in EntryVector.objects.filter(submission_id__in=list(runs), key__in=wanted):
        arrays[vector.submission_id][vector.key] = _array(vector)
    built = {sid: _runs_from_arrays(arrays[sid], keys, count) for sid, count in runs.items() if count > 0}
    return {sid: found for sid, found in built.items() if found is not None}


def _run_keys(keys: Sequence[str], runs: int) -> list[str]:
    wanted = [run_values_key(n, k) for n in range(1, runs + 1) for k in keys]
    return wanted + [run_stats_key(n, k) for n in range(1, runs + 1) for k in keys]


def _runs_from_arrays(arrays: Mapping[str, np.ndarray], keys: Sequence[str], runs: int) -> list[RunScores] | None:
    if not all(run_values_key(n, k) in arrays for n in range(1, runs + 1) for k in keys):
        return None
    out = []
    for n in range(1, runs + 1):
        run: RunScores = {}
        for key in keys:
            stats = arrays.get(run_stats_key(n, key))
            if stats is not None and stats.ndim == 1:
                stats = stats.reshape(-1, 1)
            run[key] = ItemScores(arrays[run_values_key(n, key)].copy(),
                                  None if stats is None else np.rint(stats).astype(np.int64))
        out.append(run)
    return out


def _array(vector: EntryVector) -> np.ndarray:
    array = np.frombuffer(bytes(vector.data), dtype=np.float64)
    return array.reshape(vector.rows, vector.cols) if vector.cols > 1 else array
