"""Agreement heatmaps, vectorised with numpy over the entries' stored arrays (``entry_vectors``), cached per split.

* ranking tasks: Kendall tau-b between two models' candidate scores on each item,
  averaged over the items where both define it (DialBGM Fig. 5);
* other tasks: Pearson correlation of two models' per-item scores of one metric;
* metrics: Spearman correlation of the leaderboard's order under two metrics;
* error types: each model's share of judge error labels (Jamendo-MT-QA Fig. 4).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from leaderboard.models import Split
from leaderboard.services.boards import leaderboards
from leaderboard.services.boards.entry_vectors import entry_vectors_read
from leaderboard.services.policy.access import is_maintainer
from leaderboard.services.policy.disclosure import disclosure_hidden
from leaderboard.services.shared.cache import cached_for_split
from leaderboard.services.shared.entry_runs import CANDIDATE_SCORES
from scoring.specs import split_column

ERROR_PREFIX = "error_"


# --- computing -----------------------------------------------------------------------


def pairwise_tau_b(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean over items of tau-b between every pair of models.

    ``scores``: (models, items, candidates). Returns (mean tau matrix, items counted matrix);
    an item where either model tied every candidate is left out of that pair's mean.
    """
    models, _, k = scores.shape
    i, j = np.triu_indices(k, 1)
    signs = np.sign(scores[:, :, i] - scores[:, :, j])  # (m, n, pairs)
    untied = (signs != 0).sum(axis=2)  # (m, n); 0 where the model tied every candidate
    defined = (untied > 0).astype(float)
    # tau-b(a, b) on an item = sum_p s_a s_b / sqrt(untied_a untied_b). Scaling each model's signs
    # by 1/sqrt(untied) once makes the sum over items and pairs one matrix product; an undefined
    # item has all-zero signs, so it adds nothing, and the counts leave it out of the mean.
    scaled = (signs / np.sqrt(np.maximum(untied, 1))[:, :, None]).reshape(models, -1)
    total = scaled @ scaled.T
    counts = np.rint(defined @ defined.T).astype(np.int64)
    mean = np.where(counts > 0, total / np.maximum(counts, 1), np.nan)
    return mean, counts


def pairwise_pearson(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pearson correlation of per-item values between every pair of models, on items both define."""
    m = values.shape[0]
    result, counts = np.full((m, m), np.nan), np.zeros((m, m), dtype=int)
    defined = ~np.isnan(values)
    for a in range(m):
        both = defined[a][None, :] & defined  # (m, n)
        counts[a] = both.sum(axis=1)
        for b in range(a, m):
            mask = both[b]
            x, y = values[a, mask], values[b, mask]
            if mask.sum() > 1 and x.std() > 0 and y.std() > 0:
                result[a, b] = result[b, a] = float(np.corrcoef(x, y)[0, 1])
            elif mask.sum() > 1 and np.array_equal(x, y):
                result[a, b] = result[b, a] = 1.0
    return result, counts


def metric_agreement(table: np.ndarray) -> np.ndarray:
    """Spearman correlation between columns (metrics) of a models x metrics table."""
    k = table.shape[1]
    result = np.full((k, k), np.nan)
    for a in range(k):
        for b in range(a, k):
            mask = ~np.isnan(table[:, a]) & ~np.isnan(table[:, b])
            x, y = table[mask, a], table[mask, b]
            if mask.sum() > 2 and np.ptp(x) > 0 and np.ptp(y) > 0:  # constant: undefined (nan), no warning
                rho = spearmanr(x, y).statistic
                result[a, b] = result[b, a] = float(rho)
    return result


# --- the endpoint's payload ----------------------------------------------------------------


def heatmaps(split: Split, user: Any, params: Mapping[str, str], *,
             board: leaderboards.Leaderboard | None = None) -> dict[str, Any]:
    """All heatmaps for the leaderboard the viewer sees (same filters), cached per split version;
    ``board``: that leaderboard when the caller has built it already."""
    board = board if board is not None else leaderboards.build(split, user, params)
    rows = [r for r in board.rows if r.rank is not None or r.entry.values]
    ids = [r.entry.submission_id for r in rows]
    columns = {c.key for c in board.columns}
    wanted = params.get("metric", "")
    metric = wanted if wanted in columns else (board.sort.key if board.sort else "")
    # per-item score correlations between entries would reveal hidden labels far faster than aggregates;
    # so would candidate-score agreement (ranking) with a strong entry, whose predictions are near the gold
    withheld = split.hidden_labels and not is_maintainer(user)
    released = disclosure_hidden(split=split, user=user)  # metric agreement then uses released values
    fingerprint = hashlib.sha256(repr((ids, metric, withheld, released)).encode()).hexdigest()[:16]
    return cached_for_split(split.pk, f"heatmaps:{fingerprint}",
                            lambda: _compute(split, board, rows, metric, withheld))


def _compute(split: Split, board: Any, rows: list[Any], metric: str, withheld: bool) -> dict[str, Any]:
    labels = [_label(r.entry) for r in rows]
    ids = [r.entry.submission_id for r in rows]
    result: dict[str, Any] = {"models": labels, "entries": [r.entry.uid for r in rows]}
    if withheld:
        result["model_agreement"] = {"measure": "withheld", "matrix": [], "items": [],
                                     "withheld": "per-item agreement between entries of a hidden-label split "
                                                 "is for maintainers only"}
    elif split.spec.task_type == "ranking":
        result["model_agreement"] = _ranking_agreement(ids)
    else:
        result["model_agreement"] = _score_agreement(ids, metric)
    columns = [c for c in board.columns if not c.variant]
    table = np.array([[_value(r.entry, c.id) for c in columns] for r in rows], dtype=float).reshape(
        len(rows), len(columns))
    result["metric_agreement"] = {
        "measure": "Spearman correlation of model order", "metrics": [c.label for c in columns],
        "matrix": _clean(metric_agreement(table)) if len(rows) > 2 else [],
        "n_models": len(rows),
    }
    result["error_types"] = _error_types(rows)
    return result


def _ranking_agreement(ids: list[int]) -> dict[str, Any]:
    vectors = entry_vectors_read(ids, CANDIDATE_SCORES)
    present = [i for i in ids if i in vectors]
    if len(present) < 2:
        return {"measure": "mean Kendall tau-b over shared items", "matrix": [], "items": []}
    mean, counts = pairwise_tau_b(np.stack([vectors[i] for i in present]))
    return {"measure": "mean Kendall tau-b over shared items", "matrix": _clean(_expand(mean, ids, present)),
            "items": _item_counts(counts, ids, present)}


def _score_agreement(ids: list[int], metric: str) -> dict[str, Any]:
    vectors = entry_vectors_read(ids, metric)
    present = [i for i in ids if i in vectors and len(vectors[i]) == len(next(iter(vectors.values())))]
    measure = f"Pearson correlation of per-item {metric}"
    if len(present) < 2:
        return {"measure": measure, "matrix": [], "items": []}
    matrix, counts = pairwise_pearson(np.stack([vectors[i] for i in present]))
    return {"measure": measure, "metric": metric, "matrix": _clean(_expand(matrix, ids, present)),
            "items": _item_counts(counts, ids, present)}


def _error_types(rows: list[Any]) -> dict[str, Any]:
    keys = sorted({cell["key"] for r in rows for cell in r.entry.values.values()
                   if cell["key"].startswith(ERROR_PREFIX)})
    judge = split_column(keys[0])[1] if keys else ""
    keys = [k for k in keys if split_column(k)[1] == judge]  # one judge's labels (the first by name)
    if not keys:
        return {}
    shares = [[_first_value(r.entry, key) for key in keys] for r in rows]
    return {"labels": [split_column(k)[0].removeprefix(ERROR_PREFIX).replace("_", " ") for k in keys],
            "judge": judge, "models": [_label(r.entry) for r in rows],
            "matrix": _clean(np.array(shares, dtype=float))}


def _first_value(entry: Any, key: str) -> float | None:
    for cell in entry.values.values():
        if cell["key"] == key:
            return float(cell["value"]) if cell["value"] is not None else None
    return None


def _value(entry: Any, column_id: str) -> float:
    value = entry.value(column_id)
    return np.nan if value is None else value


def _expand(matrix: np.ndarray, ids: list[int], present: list[int]) -> np.ndarray:
    index = {sid: n for n, sid in enumerate(present)}
    full = np.full((len(ids), len(ids)), np.nan)
    for a, ia in enumerate(ids):
        for b, ib in enumerate(ids):
            if ia in index and ib in index:
                full[a, b] = matrix[index[ia], index[ib]]
    return full


def _clean(matrix: np.ndarray) -> list[list[float | None]]:
    return [[None if np.isnan(v) else round(float(v), 4) for v in row] for row in matrix]


def _label(entry: Any) -> str:
    settings = "/".join(str(v) for v in entry.settings.values())
    return f"{entry.model_name} ({settings})" if settings else entry.model_name


def _item_counts(counts: np.ndarray, ids: list[int], present: list[int]) -> list[list[float]]:
    """Items both models scored; 0 (not NaN, which is no JSON) for an entry without stored vectors."""
    return np.nan_to_num(_expand(counts.astype(float), ids, present), nan=0.0).tolist()
