"""CLI = site, as the project defines it: every column bit for bit, BERTScore columns to 1e-6.

BERTScore columns are defined as bert-score on each pair alone to 1e-6, so the site's token-budget chunks
and the CLI's whole run may differ below that; every other metric is exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

BERTSCORE_TOLERANCE = 1e-6
ROW_FIELDS = ("id", "run", "qa_type")


def is_bertscore(key: str) -> bool:
    return key.startswith("bertscore")


def assert_same_values(site: Mapping[str, Any], cli: Mapping[str, Any]) -> None:
    """Two ``{column: value or [low, high] or None}`` maps: equal keys, exact values, BERTScore to 1e-6."""
    assert list(site) == list(cli) or set(site) == set(cli), (sorted(site), sorted(cli))
    for key, expected in cli.items():
        got = site[key]
        if expected is None or got is None or not is_bertscore(key):
            assert got == expected, key
        else:
            assert got == pytest.approx(expected, abs=BERTSCORE_TOLERANCE), key


def assert_same_item_rows(site_rows: list[dict[str, Any]], cli_rows: list[dict[str, Any]]) -> None:
    """Per-item downloads (``scores`` per row) against the CLI's ``--per-item`` rows, column by column."""
    assert len(site_rows) == len(cli_rows)
    for site_row, cli_row in zip(site_rows, cli_rows):
        assert site_row["id"] == cli_row["id"]
        for key, expected in cli_row.items():
            if key in ROW_FIELDS:
                continue
            got = site_row["scores"][key]
            if expected is None:
                assert got is None, key
            elif is_bertscore(key):
                assert got == pytest.approx(expected, abs=BERTSCORE_TOLERANCE), key
            else:
                assert got == pytest.approx(expected, rel=1e-12), key
