"""The heatmaps' numbers as plain tables: what a page shows without JavaScript (and a screen reader reads)."""

from __future__ import annotations

import math
from typing import Any


def heatmap_tables(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """One table per heatmap that has numbers: ``id``, ``title``, ``note``, ``columns``, ``rows`` of
    ``(label, cells)`` where a cell is ``(text, title)``. Models are numbered in leaderboard order."""
    models = [f"{n}. {label}" for n, label in enumerate(payload.get("models", []), start=1)]
    tables = []
    agree = payload.get("model_agreement") or {}
    if agree.get("matrix"):
        counts = agree.get("items") or []
        measure = "Pearson r" if agree.get("metric") else "Kendall τb"
        tables.append(_table("models", "Inter-model agreement", f"{measure}; items both models scored in the tooltip",
                             [str(n) for n in range(1, len(models) + 1)], models, agree["matrix"],
                             lambda a, b: f"{_int(counts, a, b)} items" if counts else ""))
    metrics = payload.get("metric_agreement") or {}
    if metrics.get("matrix"):
        n = metrics.get("n_models", 0)
        tables.append(_table("metrics", "Agreement between metrics",
                             f"Spearman correlation of the order of n = {n} models",
                             metrics["metrics"], metrics["metrics"], metrics["matrix"], lambda a, b: f"n = {n}"))
    errors = payload.get("error_types") or {}
    if errors.get("matrix"):
        tables.append(_table("errors", "Error types per model", f"share of answers judged below 3 ({errors['judge']})",
                             errors["labels"], [f"{i}. {m}" for i, m in enumerate(errors["models"], start=1)],
                             errors["matrix"], lambda a, b: ""))
    return tables


def _table(key: str, title: str, note: str, columns: list[str], labels: list[str],
           matrix: list[list[float | None]], tip: Any) -> dict[str, Any]:
    rows = [(label, [("–" if v is None or not math.isfinite(v) else f"{v:.2f}", tip(a, b))
                     for b, v in enumerate(values)])
            for a, (label, values) in enumerate(zip(labels, matrix))]
    return {"id": key, "title": title, "note": note, "columns": columns, "rows": rows}


def _int(matrix: list[list[float | None]], a: int, b: int) -> int:
    try:
        value = matrix[a][b]
    except IndexError:
        return 0
    return 0 if value is None or not math.isfinite(value) else int(value)
