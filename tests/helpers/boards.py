"""Helpers for the leaderboard, heatmap and access tests: controlled entries and page parsing."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import Any

from django.utils import timezone

from leaderboard.models import MetricValue, RunFile, Split, Status, Submission
from leaderboard.services.shared.cache import leaderboard_changed
from scoring.versions import SCORING_VERSION


def printed_columns(*columns: dict[str, Any], **protocol: str) -> list[dict[str, Any]]:
    """A published table's columns as ``load_baselines`` stores them: each with its protocol, the board's own
    (the official profile, no answer mapping, the split's gold) unless ``protocol`` says otherwise."""
    measured = {"implementation": "official", "parser": "none", "reference": "this split's", "embedding": "",
                **protocol}
    return [{**column, "protocol": measured} for column in columns]


def signature(split: Split, key: str, **fields: str) -> str:
    """A signature shaped like the engine's (``metric:..|profile:..|...``)."""
    spec = split.spec
    metric = spec.profile().metric(key)
    parts = {"metric": key, "profile": f"{spec.name}/{spec.official_profile}", "scale": f"{metric.scale:g}",
             "items": f"qa_type={metric.applies_to}" if metric.applies_to else "all", **fields}
    parts.setdefault("rules", "1")
    parts.setdefault("scoring", SCORING_VERSION)
    return "|".join(f"{k}:{v}" for k, v in parts.items())


def make_entry(split: Split, user: Any, model_name: str, values: dict[str, Any], *, organisation: str = "",
               settings: dict[str, str] | None = None, runs: int = 1, age_days: float = 0.0,
               private: bool = False, hidden: bool = False, signatures: dict[str, str] | None = None) -> Submission:
    """A scored submission with controlled MetricValue rows.

    ``values``: key -> value, or (value, ci_low, ci_high), or (value, ci_low, ci_high, std, per_run).
    """
    submission = Submission.objects.create(
        split=split, user=user, model_name=model_name, organisation=organisation, settings=settings or {},
        status=Status.SCORED, is_private=private, hidden=hidden, profile=split.spec.official_profile)
    Submission.objects.filter(pk=submission.pk).update(created_at=timezone.now() - timedelta(days=age_days))
    RunFile.objects.bulk_create(RunFile(submission=submission, number=n, sha256=f"{n:064x}",
                                        original_name=f"run{n}.jsonl", size=1) for n in range(1, runs + 1))
    for key, spec in values.items():
        value, low, high, std, per_run = (tuple(spec) + (None,) * 5)[:5] if isinstance(spec, tuple) else (
            spec, None, None, None, None)
        MetricValue.objects.create(
            submission=submission, key=key, value=value, ci_low=low, ci_high=high, std=std,
            per_run=per_run or [value], n_scored=10, current=True,
            signature=(signatures or {}).get(key) or signature(split, key))
    leaderboard_changed(split.pk)
    submission.refresh_from_db()
    return submission


ROW = re.compile(r'<tr class="(?P<cls>[^"]*)" data-model="(?P<model>[^"]*)">(?P<body>.*?)</tr>', re.S)
RANK = re.compile(r'<td class="rank">(?P<rank>\d+|–)(?P<tied> <span title="(?P<tie_title>[^"]*)">≈</span>)?')


def page_rows(content: bytes) -> list[dict[str, Any]]:
    """The leaderboard table's rows as rendered: model, rank (None for –), tied flag and the ≈'s title, css classes,
    cells."""
    text = content.decode()
    body = text.split('<table class="board" id="leaderboard">', 1)[1].split("</table>", 1)[0]
    rows = []
    for match in ROW.finditer(body):
        rank = RANK.search(match["body"])
        assert rank is not None, match["body"]
        cells = re.findall(r'<td class="num">(.*?)</td>', match["body"], re.S)
        rows.append({"model": html.unescape(match["model"]), "rank": None if rank["rank"] == "–" else int(rank["rank"]),
                     "tied": bool(rank["tied"]), "tie_title": html.unescape(rank["tie_title"] or ""),
                     "classes": match["cls"].split(), "cells": cells,
                     "html": match["body"]})
    return rows


def api_rows(data: dict[str, Any]) -> list[tuple[str, int | None, bool]]:
    return [(r["entry"]["model_name"], r["rank"], r["statistically_tied"]) for r in data["rows"]]
