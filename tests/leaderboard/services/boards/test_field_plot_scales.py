"""The field plots' numbers: the papers' values on the column's own scale (as printed kept beside), one
name for percent and 0–100, submission times with a day-wide axis, and a value axis within the unit."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from leaderboard.models import Submission
from leaderboard.services.references.baselines import BASELINES_DIR, baselines_load
from leaderboard.services.shared.cache import leaderboard_changed
from tests.helpers.boards import make_entry

pytestmark = pytest.mark.django_db


def _plots(path: str) -> dict:
    page = Client().get(path).content.decode()
    return json.loads(re.search(r'<script id="field-plots-data" type="application/json">(.*?)</script>',
                                page, re.S)[1])  # type: ignore[index]


def _printed(benchmark: str, split: str, key: str) -> list[tuple[str, float, str]]:
    """(model, value, scale) of every published row for ``key``, read from the baseline file itself."""
    document = json.loads((Path(BASELINES_DIR) / f"{benchmark}.json").read_text(encoding="utf-8"))
    out = []
    for table in document["tables"]:
        if table["benchmark"] != benchmark or table["split"] != split:
            continue
        scale = next((c["scale"] for c in table["columns"] if c["key"] == key), table["scale"])
        out += [(r["model"], r["metrics"][key], scale) for r in table["rows"]
                if isinstance(r["metrics"].get(key), int | float)]
    return out


def test_published_percentages_are_drawn_on_a_0_to_1_column(alice, jamendo_split):
    for name, value in (("A", 0.55), ("B", 0.62), ("C", 0.71)):
        make_entry(jamendo_split, alice, name, {"yes_no_accuracy": value, "bleu": 4.0})
    baselines_load()
    data = _plots("/b/jamendo-mt-qa/full/")
    assert data["column"]["unit"] == "0–1" and data["column"]["bounds"] == [0.0, 1.0]
    printed = _printed("jamendo-mt-qa", "full", "yes_no_accuracy")
    assert printed and {scale for _, _, scale in printed} == {"percent"}
    assert [(p["model"], p["value"], p["printed"], p["printed_unit"]) for p in data["published"]] == [
        (model, round(value / 100, 10), value, "%") for model, value, _ in printed]  # as the table shows it
    assert all(0 <= p["value"] <= 1 for p in data["published"])
    bleu = _plots("/b/jamendo-mt-qa/full/?sort=bleu")  # 0–100 printed, 0–100 here: as printed
    assert [(p["model"], p["value"]) for p in bleu["published"]] == [
        (model, value) for model, value, _ in _printed("jamendo-mt-qa", "full", "bleu")]


def test_percent_and_0_to_100_are_one_scale(make_split):
    from tests.leaderboard.test_mcq_site import mmau_like

    make_split("mmau", "test-mini", mmau_like(6))
    baselines_load()
    page = Client().get("/b/mmau/test-mini/").content.decode()
    published = page.split('<section id="published"', 1)[1]
    assert "is printed on %, this site&#x27;s column on 0–100" not in published
    api = Client().get("/api/v1/benchmarks/mmau/test-mini/leaderboard").json()
    assert all(not t["scale_differs"] for t in api["published"])


def test_best_over_time_keeps_submission_times_and_a_day_wide_axis(alice, dialbgm_split):
    made = [make_entry(dialbgm_split, alice, name, {"hit_at_1": value})
            for name, value in (("Morning", 0.40), ("Noon", 0.45), ("Evening", 0.52))]
    start = timezone.now().replace(hour=8, minute=0, second=0, microsecond=0) - timedelta(days=1)
    for n, entry in enumerate(made):
        Submission.objects.filter(pk=entry.pk).update(created_at=start + timedelta(hours=4 * n, minutes=7))
    leaderboard_changed(dialbgm_split.pk)
    data = _plots("/b/dialbgm/test/")
    times = [(start + timedelta(hours=4 * n, minutes=7)).strftime("%Y-%m-%d %H:%M:%S") for n in range(3)]
    assert [(s["model"], s["date"]) for s in data["best_over_time"]] == list(zip(["Morning", "Noon", "Evening"],
                                                                               times))
    day = start.date()
    assert data["time_range"] == [str(day - timedelta(days=1)), str(day + timedelta(days=1))]
    assert data["column"]["bounds"] == [0.0, 1.0]
    table = Client().get("/b/dialbgm/test/").content.decode().split('id="best-over-time-table"', 1)[1]
    assert f"<td>{times[1][:16]}</td><td>Noon</td>" in table
