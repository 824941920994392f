"""SongFormBench's published rows (leaderboard/baselines/songformbench.json) against a second transcription made
here from the SongFormer README's tables, the benchmark's spec and the protocols each table declares.

The excerpt below is the README's two SongFormBench tables as the code index stores them: the Chinese README
(README_ZH.md; file id 54597081826, a fork's copy whose commit the index does not name; the English README.md's
tables are in no stored copy). rhythmatician/SongFormer README_ZH.md @ 461b9001 prints the same values with the
training sets named HX+P+H(+G). Pure Python.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from scoring.specs import get_benchmark
from scoring.specs.protocols import protocol_difference, site_protocol, table_protocol, table_protocol_problems
from tests.helpers.shared import shared_file

BASELINE = Path(__file__).resolve().parents[2] / "leaderboard" / "baselines" / "songformbench.json"
README_SOURCE = "code index file 54597081826 (README_ZH.md); values = rhythmatician/SongFormer@461b9001 README_ZH.md"
README_EXCERPT = """\
#### SongFormBench-HarmonixSet

| 方法                   | ACC       | HR.5F     | HR3F      |
| ----------------------- | --------- | --------- | --------- |
| **基线方法**            |           |           |           |
| Harmonic-CNN*           | 0.680     | 0.559     | —         |
| SpecTNT (24s)*          | 0.701     | 0.570     | —         |
| SpecTNT (36s)*          | 0.723     | 0.558     | —         |
| All-In-One              | 0.740     | 0.596     | 0.730     |
| MERT (5s)*              | 0.574     | 0.626     | —         |
| MusicFM-Zhang 等人*     | 0.725     | 0.640     | 0.729     |
| MuQ_iter*               | 0.772     | —         | —         |
| LinkSeg-7Labels         | 0.780     | 0.630     | 0.762     |
| TA (Zhang 等人，2025)* | 0.787     | 0.610     | 0.801     |
| Gemini 2.5 Pro          | 0.748     | 0.423     | **0.813** |
| **SongFormer**    |           |           |           |
| SongFormer (HX)         | 0.795     | **0.703** | 0.784     |
| SongFormer (HX+E+H)      | 0.806     | 0.697     | 0.780     |
| SongFormer (HX+E+H+G)    | **0.807** | 0.696     | 0.780     |

#### SongFormBench-CN

| 方法                   | ACC       | HR.5F     | HR3F      |
| ----------------------- | --------- | --------- | --------- |
| **基线方法**            |           |           |           |
| All-In-One              | 0.834     | 0.563     | 0.771     |
| LinkSeg-7Labels         | 0.828     | 0.518     | 0.757     |
| Gemini 2.5 Pro          | 0.806     | 0.412     | 0.833     |
| **SongFormer**    |           |           |           |
| SongFormer (HX)         | 0.848     | 0.675     | **0.856** |
| SongFormer (HX+E+H)   | 0.890     | **0.690** | 0.852     |
| SongFormer (HX+E+H+G) | **0.891** | 0.688     | 0.851     |

- 标记 * 的结果因无法获取实现而引自原论文
"""
SUBSETS = {"SongFormBench-HarmonixSet": "hx", "SongFormBench-CN": "cn"}
METRICS = ("acc", "hr05_f", "hr3_f")  # the README's ACC, HR.5F, HR3F
# the table each README row belongs in: starred rows were quoted from other papers, Gemini's answers were text
GROUPS = {"quoted": ", quoted (*)", "gemini": ", Gemini", "run": ""}

Transcribed = dict[str, list[tuple[str, dict[str, float | None], list[str]]]]


def _readme_tables() -> Transcribed:
    """{json table name: [(model, {column: value}, bold columns)]}, read from the excerpt: section rows (no
    values) skipped, ``*`` moved out of the name, 等人 read as "et al.", ``—`` as no value."""
    tables: Transcribed = {}
    subset = ""
    for line in README_EXCERPT.splitlines():
        if line.startswith("#### "):
            subset = line[5:].strip()
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[1] or cells[1] in ("ACC",) or cells[1].startswith("-"):
            continue
        name = cells[0]
        starred = name.endswith("*")
        name = name.rstrip("*").replace(" 等人，", " et al., ").replace(" 等人", " et al.").strip()
        keys = [f"{SUBSETS[subset]}_{m}" for m in METRICS]
        values = {k: None if c == "—" else float(c.strip("*")) for k, c in zip(keys, cells[1:], strict=True)}
        bold = [k for k, c in zip(keys, cells[1:], strict=True) if c.startswith("**")]
        group = "quoted" if starred else "gemini" if name.startswith("Gemini") else "run"
        tables.setdefault(f"README: {subset}{GROUPS[group]}", []).append((name, values, bold))
    return tables


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return json.loads(BASELINE.read_text(encoding="utf-8"))


def test_the_second_transcription_reads_every_row_of_the_excerpt() -> None:
    tables = _readme_tables()
    assert sum(len(rows) for rows in tables.values()) == 13 + 6  # the model lines of the two tables
    assert [name for name, _, _ in tables["README: SongFormBench-HarmonixSet, quoted (*)"]] == [
        "Harmonic-CNN", "SpecTNT (24s)", "SpecTNT (36s)", "MERT (5s)", "MusicFM-Zhang et al.", "MuQ_iter",
        "TA (Zhang et al., 2025)"]


def test_rows_are_the_readmes_values_in_its_order(document: dict[str, Any]) -> None:
    expected = _readme_tables()
    assert [t["table"] for t in document["tables"]] == [
        "README: SongFormBench-HarmonixSet", "README: SongFormBench-HarmonixSet, Gemini",
        "README: SongFormBench-HarmonixSet, quoted (*)", "README: SongFormBench-CN", "README: SongFormBench-CN, Gemini"]
    assert {t["table"] for t in document["tables"]} == set(expected)
    for table in document["tables"]:
        rows = [(row["model"], {k: v for k, v in row["metrics"].items()}, row.get("bold", []))
                for row in table["rows"]]
        assert rows == expected[table["table"]], table["table"]


def test_every_value_is_on_its_columns_scale(document: dict[str, Any]) -> None:
    spec = get_benchmark("songformbench")
    metrics = {m.key: m for m in spec.profile().metrics}
    for table in document["tables"]:
        assert table["benchmark"] == spec.name and table["split"] == "test" and table["scale"] == "0-1"
        keys = [c["key"] for c in table["columns"]]
        assert keys in ([f"{p}_{m}" for m in METRICS] for p in SUBSETS.values())
        for column in table["columns"]:
            assert column["scale"] == "0-1" and metrics[column["key"]].scale == 1.0  # the family's native 0-1
            assert not metrics[column["key"]].descriptive
        for row in table["rows"]:
            assert list(row["metrics"]) == keys, row["model"]
            values = [v for v in row["metrics"].values() if v is not None]
            assert values and all(isinstance(v, float) and 0.0 <= v <= 1.0 for v in values), row["model"]
            assert all(round(v, 3) == v for v in values), row["model"]  # printed to 3 decimals


def test_protocols_rank_only_the_authors_own_runs_of_segment_outputs(document: dict[str, Any]) -> None:
    spec = get_benchmark("songformbench")
    ranked = {"README: SongFormBench-HarmonixSet", "README: SongFormBench-CN"}
    for table in document["tables"]:
        assert table_protocol_problems(table) == []
        for column in table["columns"]:
            ours = site_protocol(spec, column["key"], "", None)
            difference = protocol_difference(table_protocol(table, column["key"]), ours)
            assert (difference == "") == (table["table"] in ranked), (table["table"], difference)
        assert table["note"].startswith("RANKED WITH ENTRIES" if table["table"] in ranked else "ANOTHER PROTOCOL")
    by_name = {t["table"]: t for t in document["tables"]}
    gemini = table_protocol(by_name["README: SongFormBench-CN, Gemini"], "cn_acc")
    assert gemini.parser != "none"
    assert gemini.parser in protocol_difference(gemini, site_protocol(spec, "cn_acc", "", None))
    quoted = protocol_difference(table_protocol(by_name["README: SongFormBench-HarmonixSet, quoted (*)"], "hx_acc"),
                                 site_protocol(spec, "hx_acc", "", None))
    assert "scored by" in quoted and "gold" in quoted


def test_stored_fields_fit_and_the_source_is_named(document: dict[str, Any]) -> None:
    assert len(document["paper"]) <= 200 and "2510.02797" in document["paper"]  # PublishedResult.paper
    assert "54597081826" in document["source_file"] and "461b9001" in document["source_file"]
    assert "54597081826" in README_SOURCE
    for table in document["tables"]:
        assert len(table["table"]) <= 50 and table["kind"] == "leaderboard"
        assert "2510.02797" in table["caption"]
        assert all(len(row["model"]) <= 200 and row["settings"] == {} and row["notes"] for row in table["rows"])


def test_the_data_readme_quotes_the_same_numbers(document: dict[str, Any]) -> None:
    text = shared_file("data", "songformbench", "README.md").read_text(encoding="utf-8")
    number = r"\s*(\d\.\d+)\s*"
    quoted = re.findall(rf"(SongFormer \([^)]*\)|All-In-One|Gemini 2\.5 Pro){number}/{number}/{number}", text)
    assert len(quoted) == 4
    printed = {(t["table"].split(",")[0], row["model"]): list(row["metrics"].values())
               for t in document["tables"] for row in t["rows"]}
    for (model, *values), table in zip(quoted, ["HarmonixSet"] * 3 + ["CN"], strict=True):
        assert printed[(f"README: SongFormBench-{table}", model)] == [float(v) for v in values], model


def test_the_file_passes_the_loaders_checks_and_keeps_its_protocols(document: dict[str, Any]) -> None:
    """What ``baselines_load`` refuses (a table without a complete protocol) and what it stores per column (the
    column's protocol), without the database: tests/leaderboard/services/references loads every file."""
    assert set(document) == {"paper", "source_file", "tables"}
    for table in document["tables"]:
        assert table_protocol_problems(table) == []
        assert {"table", "caption", "kind", "benchmark", "split", "scale", "columns", "note", "rows"} <= set(table)
        protocols = {c["key"]: table_protocol(table, c["key"]).as_json() for c in table["columns"]}
        assert {p["implementation"] for p in protocols.values()} == {table["protocol"]["implementation"]}
        assert all(p["embedding"] == "" for p in protocols.values())
