"""The MMAU and MuChoMusic published numbers (leaderboard/baselines/{mmau,muchomusic}.json).

Pure Python. Checks the schema ``services.references.baselines`` loads, that every key and split exists in the
specs, that each table is marked raw or parsed (never both in one table), and -- when the design
notes are present -- that every number is printed there on the line naming the model.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from scoring.specs import BENCHMARKS

REPO_ROOT = Path(__file__).resolve().parents[2]
NOTES = Path(os.environ.get("SHARED_DIR", REPO_ROOT.parent / "shared")) / "design" / "mcq-benchmarks.md"
FILES = ("mmau", "muchomusic")


def _tables() -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    return [(name, table) for name in FILES
            for table in json.loads((REPO_ROOT / "leaderboard" / "baselines" / f"{name}.json").read_text())["tables"]]


TABLES = _tables()


@pytest.mark.parametrize(("name", "table"), TABLES, ids=lambda v: v if isinstance(v, str) else v["table"])
def test_table_is_loadable_marked_and_known(name: str, table: dict) -> None:  # type: ignore[type-arg]
    spec = BENCHMARKS[table["benchmark"]]
    assert table["split"] in {s.name for s in spec.splits}
    assert len(table["table"]) <= 50  # PublishedResult.table
    keys = [c["key"] for c in table["columns"]]
    assert set(keys) <= set(spec.profile().keys)
    marks = {mark for mark in ("raw", "parsed") if mark in table["table"]}
    assert len(marks) == 1, "each table is exactly one of raw / parsed"
    mark = marks.pop()
    assert table["note"].startswith(f"{mark.capitalize()} answers: ")  # a sentence saying which
    for row in table["rows"]:
        assert list(row["metrics"]) == keys
        assert row["notes"].startswith(mark)


def test_raw_and_parsed_never_share_a_table() -> None:
    names = {(t["benchmark"], t["split"], t["table"]) for _, t in TABLES}
    assert len(names) == len(TABLES)
    assert {t["table"] for _, t in TABLES if t["benchmark"] == "mmau"} == {
        "MMAU leaderboard v05.15.25, parsed", "MMAU paper v1, raw string_match"}


def test_numbers_are_the_ones_in_the_design_notes() -> None:
    if not NOTES.is_file():
        pytest.skip(f"{NOTES} is absent (set SHARED_DIR)")
    text = NOTES.read_text(encoding="utf-8")
    for _, table in TABLES:
        for row in table["rows"]:
            model = {"Random guess": "Random", "Most frequent choice": "Most-frequent"}.get(row["model"], row["model"])
            values = list(row["metrics"].values())
            found = False
            for match in re.finditer(re.escape(model), text):
                window = text[match.end(): match.end() + 60]
                numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", window)]
                if all(any(abs(n - v) < 1e-9 for n in numbers) for v in values):
                    found = True
            assert found, f"{table['table']} {table['split']}: {row['model']} {values}"
