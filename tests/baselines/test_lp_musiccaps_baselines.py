"""LP-MusicCaps's published rows (leaderboard/baselines/lp-musiccaps.json) against the shared data's record of its
results.json files (../shared/data/musiccaps/LP-MUSICCAPS.md, 4 decimals) and the benchmark's spec. Pure Python."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from scoring.specs import get_benchmark
from scoring.specs.protocols import Protocol, site_protocol, table_protocol, table_protocol_problems
from tests.helpers.shared import shared_file

BASELINE = Path(__file__).resolve().parents[2] / "leaderboard" / "baselines" / "lp-musiccaps.json"
KEYS = ("bleu1", "bleu2", "bleu3", "bleu4", "meteor", "rougeL_f1", "bertscore_f1")
# the .md's row labels -> the rows' model names
MODELS = {"supervised (MusicCaps only)": "LP-MusicCaps BART (supervised on MusicCaps)",
          "pretrain (LP-MusicCaps-MSD, zero-shot)": "LP-MusicCaps BART (LP-MusicCaps-MSD pretraining, zero-shot)",
          "transfer (pretrain + MusicCaps fine-tune)":
              "LP-MusicCaps BART (LP-MusicCaps-MSD pretraining, MusicCaps fine-tuning)"}


@pytest.fixture(scope="module")
def table() -> dict[str, Any]:
    tables = json.loads(BASELINE.read_text(encoding="utf-8"))["tables"]
    assert len(tables) == 1
    return tables[0]


def _recorded() -> dict[str, list[float]]:
    text = shared_file("data", "musiccaps", "LP-MUSICCAPS.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] in MODELS:
            rows[MODELS[cells[0]]] = [float(c) for c in cells[1:]]
    return rows


def test_rows_are_the_results_json_values(table: dict[str, Any]) -> None:
    recorded = _recorded()
    assert [row["model"] for row in table["rows"]] == list(recorded)
    for row in table["rows"]:
        assert list(row["metrics"]) == list(KEYS)
        assert [round(v, 4) for v in row["metrics"].values()] == recorded[row["model"]], row["model"]


def test_columns_are_the_benchmarks_and_protocols_say_what_ranks(table: dict[str, Any]) -> None:
    spec = get_benchmark("lp-musiccaps")
    assert table["benchmark"] == spec.name and table["split"] == "test"
    assert len(table["table"]) <= 50 and all(len(row["model"]) <= 200 for row in table["rows"])  # the stored fields
    assert [c["key"] for c in table["columns"]] == list(spec.profile().keys) == list(KEYS)
    assert table_protocol_problems(table) == []
    ours = site_protocol(spec, "bleu1", "", None)
    for key in ("bleu1", "bleu2", "bleu3", "bleu4", "meteor"):
        assert table_protocol(table, key) == ours, key  # evaluate's numbers on the same references: ranked
    assert table_protocol(table, "rougeL_f1").implementation != ours.implementation  # a bootstrap median
    assert table_protocol(table, "bertscore_f1") == Protocol("lp-musiccaps", embedding="roberta-large L17")
    assert re.search(r"@ 12fcb31d", json.loads(BASELINE.read_text(encoding="utf-8"))["source_file"])
