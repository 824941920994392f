"""MMAU on the site with a configured judge: each entry's raw string_match accuracy and its LLM-mapped accuracy
side by side, each ranked only with its own kind; the official board's GPT-4o-parsed rows never share a ranking
with either (its prompt is unreleased). Without a judge the mapped columns are named as not judged."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from leaderboard.models import Split
from leaderboard.services.references.baselines import baselines_load
from leaderboard.services.shared.judges import judge_settings
from tests.helpers.fake_llm import FakeLLM, fake_choice
from tests.helpers.shared import shared_file
from tests.helpers.site import upload_scored
from tests.scoring.metrics.test_unparsed import string_match

pytestmark = pytest.mark.django_db
KEY = "sk-test-mapping-0123456789"
MAPPED = "mapped_music_accuracy:mapper"


@pytest.fixture
def mapper(tmp_path: Path, settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        path = tmp_path / "judges.toml"
        path.write_text(f'[judges.mapper]\nprofiles = ["mmau-answer-mapping"]\nkind = "openai"\n'
                        f'base_url = "{fake.base_url}"\nmodel = "gpt-4o-mini"\napi_key_env = "MAPPER_KEY"\n')
        monkeypatch.setenv("MAPPER_KEY", KEY)
        settings.LEADERBOARD = {**settings.LEADERBOARD, "JUDGES_FILE": str(path)}
        judge_settings.cache_clear()
        yield fake
    judge_settings.cache_clear()


def _items() -> list[dict[str, Any]]:
    return json.loads(shared_file("data", "mmau", "mmau-test-mini.json").read_text(encoding="utf-8"))


def _answers(items: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Letters for most music items (raw string_match never credits a bare letter), option texts elsewhere."""
    rng = random.Random(5)
    out = []
    for item in items:
        k = item["choices"].index(item["answer"]) if rng.random() < 0.8 else rng.randrange(len(item["choices"]))
        out.append({"id": item["id"], "prediction": f"({'ABCDEFGH'[k]})" if item["task"] == "music"
                    else item["choices"][k]})
    return out


def _board(**params: str) -> dict[str, Any]:
    return Client().get("/api/v1/benchmarks/mmau/test-mini/leaderboard", params).json()


def test_raw_and_mapped_accuracy_side_by_side_each_ranked_with_its_own_kind(alice, mapper, tmp_path,
                                                                         django_capture_on_commit_callbacks):
    call_command("import_references", "--from", str(shared_file("data", "mmau", "mmau-test-mini.json").parent),
                 stdout=io.StringIO())
    baselines_load()
    items, split = _items(), Split.objects.get(benchmark__name="mmau", name="test-mini")
    answers = _answers(items)
    entry = upload_scored(alice, split, [answers], django_capture_on_commit_callbacks, model_name="Letters")
    music = [(i, a["prediction"]) for i, a in zip(items, answers) if i["task"] == "music"]
    mapped = [string_match(i["answer"], i["choices"][c - 1] if (c := fake_choice(p, i["choices"])) else p,
                           i["choices"]) for i, p in music]
    raw = [string_match(i["answer"], p, i["choices"]) for i, p in music]
    assert entry.report["metrics"][MAPPED] == pytest.approx(100 * sum(mapped) / len(music), abs=1e-9)
    assert entry.report["metrics"]["music_accuracy"] == pytest.approx(100 * sum(raw) / len(music), abs=1e-9)
    assert sum(raw) < sum(mapped)  # the letters count once mapped

    by_mapped = _board(sort=MAPPED)
    assert by_mapped["rows"][0]["rank"] == 1 and by_mapped["sort"]["key"] == MAPPED
    assert all(r["rank"] is None for r in by_mapped["published_rows"])
    column = by_mapped["sort"]["column"]
    differs = {r["table"]: r["other_protocol"][column]["differs"] for r in by_mapped["published_rows"]
               if column in r["other_protocol"]}
    template = entry.report["signatures"][MAPPED].split("judge_template:", 1)[1].split("|", 1)[0]
    ours = f"gpt-4o-mini with this site's prompt ({template})"
    assert differs["MMAU leaderboard v05.15.25, parsed"] == (
        f"answers first mapped onto an option by GPT-4o (prompt unreleased); this column maps them by {ours}")
    assert differs["MMAU paper v1, raw string_match"].startswith(
        f"raw answers, not mapped onto an option; this column maps them by {ours}; gold MMAU v1")

    raw_board = _board()  # the default sort: raw music accuracy, its own ranking
    assert raw_board["sort"]["key"] == "music_accuracy" and raw_board["rows"][0]["rank"] == 1
    labels = [c["label"] for c in raw_board["columns"]]
    assert "Music acc." in labels and "Music acc. (LLM-mapped) [mapper]" in labels
    page = Client().get(f"/s/{entry.uid}/").content.decode()
    assert f'data-key="{MAPPED}"><td>Music acc. (LLM-mapped)' in page  # beside the raw one
    assert 'data-key="music_accuracy"><td>Music acc.' in page
    assert KEY not in json.dumps(raw_board) and KEY not in page


def test_without_a_judge_the_mapped_columns_are_named_not_judged(alice, make_split,
                                                                  django_capture_on_commit_callbacks):
    from tests.leaderboard.test_mcq_site import mmau_like

    refs = mmau_like(9)
    split = make_split("mmau", "test-mini", refs)
    upload_scored(alice, split, [[{"id": r["id"], "prediction": r["answer"]} for r in refs]],
                  django_capture_on_commit_callbacks, model_name="Raw only")
    board = _board()
    assert not any(c["key"].startswith("mapped_") for c in board["columns"])
    assert "Music acc. (LLM-mapped)" in board["not_judged"]
