"""Published results from the papers (leaderboard/baselines/*.json), shown as printed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.db import transaction

from leaderboard.models import PublishedResult, Split
from leaderboard.services.cache import leaderboard_changed
from leaderboard.services.references.benchmarks import benchmark_create_from_spec

BASELINES_DIR = Path(__file__).resolve().parents[2] / "baselines"


def baselines_load(directory: Path = BASELINES_DIR) -> int:
    """Replace every published table found in ``directory``; returns the number of rows."""
    total = 0
    for path in sorted(directory.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        for table in document["tables"]:
            total += _load_table(document["paper"], table)
    return total


@transaction.atomic
def _load_table(paper: str, table: dict[str, Any]) -> int:
    benchmark = benchmark_create_from_spec(name=table["benchmark"])
    split, _ = Split.objects.get_or_create(
        benchmark=benchmark, name=table["split"], defaults={"title": table["split"]})
    PublishedResult.objects.filter(split=split, paper=paper, table=table["table"]).delete()
    note = table.get("note", "")
    rows = [
        PublishedResult(
            split=split, paper=paper, table=table["table"], caption=table.get("caption", ""),
            kind=table.get("kind", "leaderboard"), model_name=row["model"], settings=row.get("settings", {}),
            metrics=row.get("metrics", {}), columns=table.get("columns", []), scale=table.get("scale", ""),
            notes=" ".join(part for part in (row.get("notes", ""), note if order == 0 else "") if part),
            order=order,
        )
        for order, row in enumerate(table["rows"])
    ]
    PublishedResult.objects.bulk_create(rows)
    leaderboard_changed(split.pk)  # bulk_create sends no signal
    return len(rows)
