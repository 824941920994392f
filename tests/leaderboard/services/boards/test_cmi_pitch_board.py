"""The NSynth pitch board: the publisher's accuracy sorts it, this site's exact-pitch column is shown beside it with
its own label and protocol, and the board's parse count stays the publisher's."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.helpers.site import upload_scored

pytestmark = pytest.mark.django_db

# gold, answer, publisher's accuracy (the file's labels are 9, 19, 60, 100, 61), exact pitch
ITEMS = [("19", "19", 0, 1), ("9", "9", 1, 1), ("60", "C4 (60)", 1, 1), ("100", "E7", 0, 1), ("61", "60 or 61", 0, 0)]


def test_the_board_shows_the_exact_pitch_column_beside_the_publishers(
        make_split: Any, alice: Any, django_capture_on_commit_callbacks: Any) -> None:
    refs = [{"id": f"note{i}", "question": "Which pitch?", "answer": gold, "audio": f"note{i}.wav"}
            for i, (gold, *_) in enumerate(ITEMS)]
    split = make_split("cmi-nsynth-pitch", "test", refs)
    run = [{"id": r["id"], "prediction": answer} for r, (_, answer, *_) in zip(refs, ITEMS)]
    entry = upload_scored(alice, split, [run], django_capture_on_commit_callbacks, model_name="Pitchy")
    assert entry.report["diagnostics"]["unparsed"] == [3]  # "19" holds "9"; "E7" holds no label; "60 or 61" two
    assert entry.report["diagnostics"]["pitch_unparsed"] == [1]

    board = Client().get("/api/v1/benchmarks/cmi-nsynth-pitch/test/leaderboard").json()
    columns = {c["key"]: c for c in board["columns"]}
    assert list(columns) == ["accuracy", "pitch_accuracy"]
    assert board["sort"]["column"] == columns["accuracy"]["id"]
    assert columns["pitch_accuracy"]["label"] == "Exact pitch (site)"
    assert columns["pitch_accuracy"]["description"].startswith("This site's exact-pitch protocol, not CMI-Bench's")
    values = board["rows"][0]["entry"]["metrics"]
    assert values[columns["accuracy"]["id"]]["value"] == pytest.approx(sum(i[2] for i in ITEMS) / len(ITEMS))
    assert values[columns["pitch_accuracy"]["id"]]["value"] == pytest.approx(sum(i[3] for i in ITEMS) / len(ITEMS))
    assert board["rows"][0]["entry"]["parsing"]["unparsed"] == 3

    page = Client().get("/b/cmi-nsynth-pitch/test/", follow_redirects=True)
    assert page.status_code == 200 and "Exact pitch (site)" in page.content.decode()
