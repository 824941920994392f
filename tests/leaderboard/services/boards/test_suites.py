"""CMI-Bench as one suite board: a column per task (its headline column, direction and scale), each cell the
task board's own value and rank, a suite rank by mean task rank over the models ranked on every task, no value
averaged across tasks; the page and the JSON agree."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from scoring.specs.cmi import CMI_TASKS
from tests.helpers.boards import make_entry

pytestmark = pytest.mark.django_db


def _refs(n: int, answer: str) -> list[dict[str, str]]:
    return [{"id": f"clip{i}", "question": "What is it?", "answer": answer, "audio": f"clip{i}.wav"} for i in range(n)]


@pytest.fixture
def suite(make_split, alice):
    gtzan = make_split("cmi-gtzan", "test", _refs(5, "blues"))
    dsing = make_split("cmi-dsing", "test", _refs(5, "la la la"))
    arousal = make_split("cmi-emo-arousal", "test", _refs(5, "5"))
    for name, values in (("Model A", (0.8, 30.0, 0.5)), ("Model B", (0.6, 20.0, 0.4)), ("Model C", (0.9, None, 0.7))):
        make_entry(gtzan, alice, name, {"accuracy": values[0]})
        if values[1] is not None:
            make_entry(dsing, alice, name, {"wer": values[1], "cer": values[1] / 2})
        make_entry(arousal, alice, name, {"r2": values[2]})
    return gtzan, dsing, arousal


def test_the_suite_ranks_by_mean_task_rank_and_names_each_task(suite):
    data = Client().get("/api/v1/suites/cmi-bench").json()
    assert [(t["benchmark"], t["task"], t["main_column"]["label"], t["main_column"]["higher_is_better"])
            for t in data["tasks"]] == [("cmi-gtzan", "GTZAN genre", "Accuracy", True),
                                       ("cmi-emo-arousal", "emotion regression (arousal)", "R²", True),
                                       ("cmi-dsing", "DSing lyrics transcription", "WER", False)]
    rows = {r["model"]: r for r in data["rows"]}
    ranks = {name: {key: (cell or {}).get("rank") for key, cell in row["tasks"].items()} for name, row in rows.items()}
    assert ranks["Model A"] == {"cmi-gtzan/test": 2, "cmi-dsing/test": 2, "cmi-emo-arousal/test": 2}
    assert ranks["Model B"] == {"cmi-gtzan/test": 3, "cmi-dsing/test": 1, "cmi-emo-arousal/test": 3}
    assert ranks["Model C"] == {"cmi-gtzan/test": 1, "cmi-dsing/test": None, "cmi-emo-arousal/test": 1}
    assert [(r["model"], r["rank"], r["mean_task_rank"], r["tasks_covered"]) for r in data["rows"]] == [
        ("Model A", 1, 2.0, 3), ("Model B", 2, round(7 / 3, 4), 3), ("Model C", None, 1.0, 2)]
    assert data["ranked_tasks"] == 3 and "never averaged" in data["ranking"]
    for name, row in rows.items():  # each cell is the task board's own rank
        for key, cell in row["tasks"].items():
            board = Client().get(f"/api/v1/benchmarks/{key}/leaderboard").json()
            on_board = next((r["rank"] for r in board["rows"] if r["entry"]["model_name"] == name), None)
            assert (cell or {}).get("rank") == on_board


def test_the_suite_page_shows_what_the_json_says_and_boards_link_to_it(suite):
    page = Client().get("/suites/cmi-bench/").content.decode()
    table = page.split('<table id="suite-table"', 1)[1].split("</table>", 1)[0]
    headers = re.findall(r'<th scope="col" class="num" data-board="([^"]+)"><a [^>]*>([^<]+)</a>', table)
    assert headers == [("cmi-gtzan/test", "GTZAN genre"), ("cmi-emo-arousal/test", "emotion regression (arousal)"),
                       ("cmi-dsing/test", "DSing lyrics transcription")]
    rows = re.findall(r'<tr data-model="([^"]+)">\s*<td class="rank num">([^<]*)<', table)
    assert rows[:2] == [("model-a", "1"), ("model-b", "2")] and rows[2][0] == "model-c"
    assert "no suite rank" in table.split('data-model="model-c"', 1)[1]
    board = Client().get("/b/cmi-gtzan/test/").content.decode()
    assert '<p class="meta" id="suite-link">A task of <a href="/suites/cmi-bench/">CMI-Bench</a>' in board
    tasks = len(CMI_TASKS)  # every CMI-Bench task registered, each a board of the suite
    assert f'href="/suites/cmi-bench/">CMI-Bench</a> ({tasks} tasks side by side)' in Client().get("/").content.decode()
    assert Client().get("/suites/nothing/").status_code == 404
    assert Client().get("/api/v1/suites/nothing").status_code == 404


def test_the_home_table_names_each_task_of_a_suite(suite):
    home = Client().get("/").content.decode().split('id="models-table"', 1)[1].split("</thead>", 1)[0]
    assert "GTZAN genre" in home and "DSing lyrics transcription" in home and "CMI-Bench · test" not in home
