"""MMAR's published numbers (leaderboard/baselines/mmar.json, the README leaderboard of ddlBoJack/MMAR).

Checks the schema ``services.references.baselines`` loads, that every key exists in the spec, that the table is
marked raw, that the numbers the design notes quote are there, and -- with MMAR-meta.jsonl -- that
each row's Avg is the item-weighted mean of its seven modality columns to the printed rounding
(a mistyped number shows up as a row whose columns no longer add up).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from scoring.specs import BENCHMARKS
from tests.helpers.shared import shared_file

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = json.loads((REPO_ROOT / "leaderboard" / "baselines" / "mmar.json").read_text(encoding="utf-8"))
(TABLE,) = DOCUMENT["tables"]
MODALITY_KEYS = {"sound": "sound_accuracy", "music": "music_accuracy", "speech": "speech_accuracy",
                 "mix-sound-music": "mix_sound_music_accuracy", "mix-sound-speech": "mix_sound_speech_accuracy",
                 "mix-music-speech": "mix_music_speech_accuracy",
                 "mix-sound-music-speech": "mix_sound_music_speech_accuracy"}


def test_mmar_table_is_loadable_marked_raw_and_known() -> None:
    spec = BENCHMARKS[TABLE["benchmark"]]
    assert TABLE["split"] in {s.name for s in spec.splits}
    assert len(TABLE["table"]) <= 50 and len(DOCUMENT["paper"]) <= 200  # PublishedResult.table, .paper
    keys = [c["key"] for c in TABLE["columns"]]
    assert keys == ["accuracy", *MODALITY_KEYS.values()] and set(keys) <= set(spec.profile().keys)
    assert "raw" in TABLE["table"] and "parsed" not in TABLE["table"] and TABLE["note"].startswith("Raw answers: ")
    assert len({row["model"] for row in TABLE["rows"]}) == len(TABLE["rows"]) == 36
    for row in TABLE["rows"]:
        assert list(row["metrics"]) == keys and row["notes"].startswith("raw")
        assert all(0 <= v <= 100 for v in row["metrics"].values())


@pytest.mark.parametrize(("model", "music"), [
    ("Random Guess", 25.9), ("GPT-4o Audio", 51.0), ("Gemini 2.5 Pro", 56.8), ("Qwen2.5-Omni (10.7B)", 40.8),
    ("Qwen2-Audio-Instruct", 24.3), ("MusiLingo", 7.3),
])
def test_mmar_music_numbers_quoted_in_the_design_notes(model: str, music: float) -> None:
    (row,) = [r for r in TABLE["rows"] if r["model"] == model]
    assert row["metrics"]["music_accuracy"] == music


def test_mmar_avg_is_the_item_weighted_mean_of_the_modality_columns() -> None:
    meta = shared_file("data", "mmar", "MMAR-meta.jsonl")
    counts = Counter(json.loads(line)["modality"] for line in meta.read_text(encoding="utf-8").splitlines() if line)
    assert sum(counts.values()) == 1000
    for row in TABLE["rows"]:
        weighted = sum(row["metrics"][key] * counts[modality] for modality, key in MODALITY_KEYS.items()) / 1000
        assert abs(weighted - row["metrics"]["accuracy"]) <= 0.05, row["model"]
