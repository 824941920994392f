"""A model's rows in the papers' published tables: reported there, never re-scored or ranked here.

Matched to a model page by the model's slug (``model_names.model_slug``), shown beside, never
merged with, the boards' numbers, each value as printed with its table's scale.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from leaderboard.models import PublishedResult
from leaderboard.services.boards.labels import published_unit
from leaderboard.services.boards.model_names import model_slug


@dataclass(frozen=True)
class PublishedRow:
    board_key: str
    board_title: str
    board_url: str
    paper: str
    table: str
    model_name: str
    settings: dict[str, Any]
    values: tuple[tuple[str, Any, str], ...]  # (column label, value as printed, its scale)
    notes: str


def model_published(slug: str) -> list[PublishedRow]:
    """Every published row whose model name has this slug, by benchmark, split, table and printed order."""
    found = (PublishedResult.objects.filter(split__benchmark__listed=True).select_related("split__benchmark")
             .order_by("split__benchmark__name", "split_id", "table", "order"))
    return [_row(result) for result in found if model_slug(result.model_name) == slug]


def _row(result: PublishedResult) -> PublishedRow:
    split = result.split
    table_scale = result.scale if len(result.scale) <= 12 else ""  # a long one describes mixed scales: see the board
    values = tuple((str(c.get("label") or c.get("key")), result.metrics[c["key"]],
                    published_unit(str(c.get("scale") or table_scale)))
                   for c in result.columns if c.get("key") in result.metrics)
    return PublishedRow(f"{split.benchmark.name}/{split.name}", f"{split.spec.title.split(':', 1)[0]} · {split.name}",
                        reverse("leaderboard", args=[split.benchmark.name, split.name]), result.paper, result.table,
                        result.model_name, dict(result.settings), values, result.notes)
