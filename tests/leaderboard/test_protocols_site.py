"""Like with like on the real boards: MusicQA and MMAU test-mini with their publishers' references and the papers'
tables. A MusicQA run scored here ranks above exactly the paper rows it beats on every column measured under
that column's protocol; no model holds two ranks in one view; model pages and the models API give the board's
rank; a model only the papers report is found by search."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from leaderboard.models import Split
from leaderboard.services.boards.model_names import model_slug
from leaderboard.services.references.baselines import baselines_load
from tests.helpers.shared import shared_file
from tests.helpers.site import upload_scored

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
SAME_PROTOCOL = ("bleu", "bleu1", "bleu4", "meteor", "rougeL_recall")  # the M2UGen evaluator's, as the papers'


def _board(benchmark: str, split: str, **params: str) -> dict[str, Any]:
    return Client().get(f"/api/v1/benchmarks/{benchmark}/{split}/leaderboard", params).json()


def _ranked(board: dict[str, Any]) -> list[tuple[str, int, float | None]]:
    """(model identity, rank, sort value) of every ranked row, entries and papers' rows."""
    column = board["sort"]["column"]
    rows = [(model_slug(r["entry"]["model_name"]), r["rank"], (r["entry"]["metrics"].get(column) or {}).get("value"))
            for r in board["rows"] if r["rank"] is not None]
    rows += [(model_slug(r["model_name"]), r["rank"], (r["metrics"].get(column) or {}).get("value"))
             for r in board["published_rows"] if r["rank"] is not None]
    return rows


def _half_right(references: list[dict[str, Any]]) -> list[dict[str, str]]:
    """40% of the answers equal to the gold, the rest the gold's first half."""
    run = []
    for i, item in enumerate(references):
        words = item["answer"].split()
        run.append({"id": item["id"], "prediction": item["answer"] if i % 5 < 2 else " ".join(words[:len(words) // 2])})
    return run


@pytest.fixture
def musicqa(tmp_path: Any, no_bertscore: Any) -> Split:
    call_command("import_references", "musicqa", "test", str(shared_file("data", "musicqa", "EvalMusicQA.json")),
                 "--format", "musicqa", stdout=io.StringIO())
    baselines_load()
    return Split.objects.get(benchmark__name="musicqa", name="test")


def test_a_musicqa_run_ranks_above_exactly_the_paper_rows_it_beats_on_each_same_protocol_column(
        musicqa, alice, django_capture_on_commit_callbacks):
    references = [{"id": item.item_id, "answer": item.labels["answers"][0]} for item in musicqa.items.order_by("index")]
    upload_scored(alice, musicqa, [_half_right(references)], django_capture_on_commit_callbacks,
                  model_name="Half-right run")
    for key in SAME_PROTOCOL:
        board = _board("musicqa", "test", sort=key)
        ranked = _ranked(board)
        ours = next(r for r in ranked if r[0] == "half-right-run")
        beaten = [r for r in ranked if r[0] != ours[0] and r[2] is not None and r[2] < ours[2]]
        better = [r for r in ranked if r[0] != ours[0] and r[2] is not None and r[2] > ours[2]]
        assert ours[1] == len(better) + 1, key
        assert all(r[1] > ours[1] for r in beaten), key
        identities = [r[0] for r in ranked]
        assert len(identities) == len(set(identities)), f"a model holds two ranks when sorted by {key}"
    for key in ("bleu", "bleu1", "rougeL_recall"):  # it beats every paper row there
        ranked = _ranked(_board("musicqa", "test", sort=key))
        assert [r[0] for r in ranked if r[1] == 1] == ["half-right-run"] and len(ranked) > 10, key

    default = _board("musicqa", "test")
    rank = next(r["rank"] for r in default["rows"] if r["entry"]["model_name"] == "Half-right run")
    models = Client().get("/api/v1/models", {"q": "half-right"}).json()["models"]
    assert [(r["benchmark"], r["rank"]) for m in models for r in m["results"]] == [("musicqa", rank)]
    page = Client().get("/models/half-right-run/").content.decode()
    assert f'<td class="rank num" data-label="Rank">{rank} <span class="meta">of ' in page


def test_mmau_ranks_no_paper_row_against_raw_string_match_and_search_finds_paper_models(alice):
    call_command("import_references", "--from", str(shared_file("data", "mmau", "mmau-test-mini.json").parent),
                 stdout=io.StringIO())
    baselines_load()
    board = _board("mmau", "test-mini")
    assert all(r["rank"] is None for r in board["published_rows"])
    lanes = {r["lane"] for r in board["published_rows"]}
    assert lanes == {"other_protocol"}
    qwen = Client().get("/api/v1/models", {"q": "Qwen"}).json()["models"]
    found = {m["name"]: m for m in qwen}
    assert "Qwen2-Audio-Instruct" in found
    results = [r for r in found["Qwen2-Audio-Instruct"]["results"] if r["benchmark"] == "mmau"]
    assert results and all(r["source"] == "paper" and r["rank"] is None and r["not_ranked"] for r in results)
    assert Client().get(f"/models/{found['Qwen2-Audio-Instruct']['slug']}/").status_code == 200
