"""An entry's per-item arrays built and stored at aggregation (their keys: ``services.shared.entry_runs``).

Rebuilding the engine's arrays from 36,519 JSON rows per run takes seconds; reading two binary arrays
per metric takes milliseconds, so aggregation stores them once for compare, the boards' ties and the heatmaps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from leaderboard.models import EntryVector, Submission
from leaderboard.services.shared.entry_runs import CANDIDATE_SCORES, item_means, run_stats_key, run_values_key
from scoring import RunScores, Scorer


def entry_vectors_build(scorer: Scorer, runs: Sequence[RunScores],
                        candidate_scores: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The arrays to store at aggregation: each column's per-item mean over runs (report scale), each
    run's values and statistics per metric, and a ranking entry's candidate scores when given."""
    vectors = {key: item_means(runs, key) * metric.scale for key, (metric, _) in scorer.columns.items()}
    for number, run in enumerate(runs, start=1):
        for key in scorer.metric_keys:
            vectors[run_values_key(number, key)] = np.asarray(run[key].values, dtype=np.float64)
            if run[key].stats is not None:
                vectors[run_stats_key(number, key)] = np.asarray(run[key].stats, dtype=np.float64)
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
