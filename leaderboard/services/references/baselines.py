"""Published results from the papers (leaderboard/baselines/*.json), shown as printed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.db import transaction

from leaderboard.models import PublishedResult, Split
from leaderboard.services.references.benchmarks import benchmark_create_from_spec
from leaderboard.services.shared.cache import leaderboard_changed
from scoring.specs.protocols import table_protocol, table_protocol_problems

BASELINES_DIR = Path(__file__).resolve().parents[2] / "baselines"


def baselines_load(directory: Path = BASELINES_DIR) -> int:
    """Replace every published table found in ``directory``; returns the number of rows. A table without a
    complete protocol (``scoring.specs.protocols``) is refused, naming the file and table, before any is loaded."""
    documents = [(path, json.loads(path.read_text(encoding="utf-8"))) for path in sorted(directory.glob("*.json"))]
    for path, document in documents:
        for table in document["tables"]:
            if problems := table_protocol_problems(table):
                raise ValueError(f"{path.name}: {table.get('table')} ({table.get('benchmark')}): {'; '.join(problems)}")
    return sum(_load_table(document["paper"], table) for _, document in documents for table in document["tables"])


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
            metrics=row.get("metrics", {}), columns=_with_protocols(table), scale=table.get("scale", ""),
            notes=" ".join(part for part in (row.get("notes", ""), note if order == 0 else "") if part),
            order=order,
        )
        for order, row in enumerate(table["rows"])
    ]
    PublishedResult.objects.bulk_create(rows)
    leaderboard_changed(split.pk)  # bulk_create sends no signal
    return len(rows)


def _with_protocols(table: dict[str, Any]) -> list[dict[str, Any]]:
    """The table's columns, each with the protocol its numbers were measured under."""
    return [{**column, "protocol": table_protocol(table, column["key"]).as_json()} for column in table["columns"]]
