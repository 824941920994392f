"""An entry's per-item arrays (``EntryVector`` rows): built and stored at aggregation, read by compare,
the boards' ties and the heatmaps; and the engine's per-run arrays, from those arrays or from the stored per-item rows.

Arrays kept per entry (float64, row-major):

* ``<metric key>``: each item's value in report scale, the mean over the runs that define it (heatmaps);
* ``run<n>:values:<key>``, ``run<n>:stats:<key>``: each run's per-item values and sufficient statistics
  in the engine's native scale, bit for bit, so a comparison's numbers equal the CLI's;
* ``candidate_scores``: a ranking entry's predicted scores, items x candidates (run 1).

Rebuilding the engine's arrays from 36,519 JSON rows per run takes seconds; reading two binary arrays
per metric takes milliseconds. An entry without stored per-run arrays is read from its rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from leaderboard.models import EntryVector, Submission
from scoring import RunScores, Scorer
from scoring.metrics import ItemScores

CANDIDATE_SCORES = "candidate_scores"
RUN_PREFIX = "run"


def item_means(runs: Sequence[RunScores], key: str) -> np.ndarray:
    """Each item's mean of ``key`` over the runs that define it (NaN where none does), engine scale."""
    stacked = np.stack([run[key].values for run in runs])
    defined = (~np.isnan(stacked)).sum(axis=0)
    return np.where(defined > 0, np.nansum(stacked, axis=0) / np.maximum(defined, 1), np.nan)


def entry_vectors_build(scorer: Scorer, runs: Sequence[RunScores],
                        candidate_scores: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The arrays to store at aggregation: each column's per-item mean over runs (report scale), each
    run's values and statistics per metric, and a ranking entry's candidate scores when given."""
    vectors = {key: item_means(runs, key) * metric.scale for key, (metric, _) in scorer.columns.items()}
    for number, run in enumerate(runs, start=1):
        for key in scorer.metric_keys:
            vectors[_value_key(number, key)] = np.asarray(run[key].values, dtype=np.float64)
            if run[key].stats is not None:
                vectors[_stats_key(number, key)] = np.asarray(run[key].stats, dtype=np.float64)
    if candidate_scores is not None:
        vectors[CANDIDATE_SCORES] = candidate_scores
    return vectors


def entry_vectors_store(submission: Submission, arrays: Mapping[str, np.ndarray]) -> None:
    """Replace the entry's stored arrays with ``arrays``."""
    EntryVector.objects.filter(submission=submission).delete()
    EntryVector.objects.bulk_create(
        EntryVector(submission=submission, key=key, rows=array.shape[0],
                    cols=array.shape[1] if array.ndim == 2 else 1,
                    data=np.ascontiguousarray(array, dtype=np.float64).tobytes())
        for key, array in arrays.items()
    )


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
    wanted = [_value_key(n, k) for n in range(1, runs + 1) for k in keys]
    return wanted + [_stats_key(n, k) for n in range(1, runs + 1) for k in keys]


def _runs_from_arrays(arrays: Mapping[str, np.ndarray], keys: Sequence[str], runs: int) -> list[RunScores] | None:
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


def _array(vector: EntryVector) -> np.ndarray:
    array = np.frombuffer(bytes(vector.data), dtype=np.float64)
    return array.reshape(vector.rows, vector.cols) if vector.cols > 1 else array


def _value_key(run: int, key: str) -> str:
    return f"{RUN_PREFIX}{run}:values:{key}"


def _stats_key(run: int, key: str) -> str:
    return f"{RUN_PREFIX}{run}:stats:{key}"
