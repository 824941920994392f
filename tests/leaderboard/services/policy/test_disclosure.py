"""Hidden-label precision: what non-maintainers learn from a hidden split's numbers.

The five-run probe: five runs of one submission, each differing from a baseline in one item,
read through every route a non-maintainer has (submission API and page, leaderboard API, page,
CSV and JSON). Then the Ladder: submissions that differ in one item answer at most one yes/no
question per column, whatever the hidden truth.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import random
from typing import Any

import pytest
from django.test import Client

from leaderboard.models import MetricValue, Split, Submission
from leaderboard.services.policy.disclosure import disclosure_released, disclosure_step
from tests.helpers.boards import make_entry
from tests.helpers.site import upload

pytestmark = pytest.mark.django_db
N_ITEMS = 60
KEYS = ("hit_at_1", "mrr", "ndcg_at_4", "kendall_tau_b")


@pytest.fixture
def hidden_split(make_split: Any, dialbgm_refs: list[dict[str, Any]]) -> Split:
    return make_split("dialbgm", "hidden-test", dialbgm_refs, hidden=True)


def _perfect(ref: dict[str, Any]) -> dict[str, Any]:
    return {"id": ref["id"], "scores": {c: 4 - ref["gold_ranking"].index(c) for c in ref["candidates"]}}


def _worst(ref: dict[str, Any]) -> dict[str, Any]:
    return {"id": ref["id"], "scores": {c: ref["gold_ranking"].index(c) for c in ref["candidates"]}}


def _numbers(value: Any) -> list[float]:
    """Every number anywhere in a JSON value."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return []


def test_five_runs_each_one_item_better_than_a_baseline_yield_no_per_item_score(
        alice, maintainer, hidden_split, dialbgm_refs, django_capture_on_commit_callbacks):
    baseline = [_worst(r) for r in dialbgm_refs]
    runs = [[_perfect(r) if n == i else p for n, (r, p) in enumerate(zip(dialbgm_refs, baseline))]
            for i in range(5)]  # run i = the baseline with item i answered perfectly
    with django_capture_on_commit_callbacks(execute=True):
        created = upload(alice, hidden_split, runs, model_name="Prober").json()
    entry = Submission.objects.get(uid=created["id"])
    assert entry.status == "scored", entry.status_detail
    # what the attack needs, and a maintainer still sees: per-run values one item apart
    staff = Client()
    staff.force_login(maintainer)
    full = staff.get(f"/api/v1/submissions/{created['id']}").json()["metrics"]
    assert len(set(full["hit_at_1"]["per_run"])) == 1 and full["hit_at_1"]["per_run"][0] == pytest.approx(1 / 60)
    secrets = {round(v, 4) for key in KEYS for v in [*full[key]["per_run"], full[key]["std"] or 0,
                                                      *(full[key]["ci95"] or [])]
               if abs(v * 10 - round(v * 10)) > 1e-6}  # values off the released grid (step 0.1)
    assert secrets
    owner = Client()
    owner.force_login(alice)
    for client in (owner, Client()):
        api = client.get(f"/api/v1/submissions/{created['id']}").json()
        for key in KEYS:
            cell = api["metrics"][key]
            assert cell["per_run"] == [] and cell["std"] is None and cell["ci95"] is None
            step = cell["precision"]
            assert step >= 4 / N_ITEMS and cell["value"] == pytest.approx(round(full[key]["value"] / step) * step)
        assert api["diagnostics"] == {} and "disclosure" in api
        board = client.get("/api/v1/benchmarks/dialbgm/hidden-test/leaderboard").json()
        leaked = set(_numbers(api["metrics"])) | set(_numbers(board["rows"]))
        assert not {round(n, 4) for n in leaked} & secrets, "a per-run value, std or interval leaked"
        page = client.get(f"/s/{entry.uid}/").content.decode()
        board_page = client.get("/b/dialbgm/hidden-test/").content.decode()
        table = list(csv.reader(io.StringIO(client.get("/b/dialbgm/hidden-test/leaderboard.csv").content.decode())))
        as_json = json.dumps(client.get("/b/dialbgm/hidden-test/leaderboard.json").json())
        for text in (page, board_page, json.dumps(table), as_json):
            for secret in secrets:
                assert f"{secret:.4f}" not in text and f"{secret:.3f}" not in text


def test_submissions_differing_in_one_item_answer_at_most_one_bit_per_column(alice, bob, hidden_split):
    """Whatever the hidden truth of each probed item, a probe's released value is one of two outcomes."""
    step = disclosure_step(split=hidden_split, metric=hidden_split.spec.profile().metric("hit_at_1"))
    assert step == 0.1  # 4 x (1 / 60 items), up to a power of ten
    rng = random.Random(5)
    truth = [rng.random() < 0.5 for _ in range(20)]  # is the attacker's guess for item i right?
    base = 0.55 - 0.5 / N_ITEMS  # just below a rounding boundary: the best place for an attacker
    make_entry(hidden_split, alice, "Baseline", {"hit_at_1": base}, age_days=1.0)
    probes = [make_entry(hidden_split, alice, f"Probe {i}", {"hit_at_1": base + (1 if right else -1) / N_ITEMS},
                         age_days=0.9 - i / 100) for i, right in enumerate(truth)]
    make_entry(hidden_split, bob, "Bob", {"hit_at_1": 0.7}, age_days=0.5)
    released = disclosure_released(split=hidden_split)

    def shown(submission: Submission) -> float | None:
        value = MetricValue.objects.get(submission=submission, key="hit_at_1")
        return released[(submission.pk, "hit_at_1", value.signature)]

    outcomes = [shown(p) for p in probes]
    baseline_shown = 0.5
    assert set(outcomes) <= {None, baseline_shown + step}  # "not better" or "one step better": one bit
    first_release = next((i for i, o in enumerate(outcomes) if o is not None), None)
    assert first_release == truth.index(True)  # the first right guess is the one thing learned
    if first_release is not None:
        assert all(o is None for o in outcomes[first_release + 1:])  # the ladder moved: no second bit on it
    # the public leaderboard shows exactly the released values
    board = Client().get("/api/v1/benchmarks/dialbgm/hidden-test/leaderboard").json()
    values = {e["model_name"]: e["metrics"] for r in board["rows"] for e in r["entries"]}
    assert all(r["complete"] and r["missing"] == [] for r in board["rows"])  # withheld is not "incomplete"
    for probe, outcome in zip(probes, outcomes):
        cell = next(iter(values[probe.model_name].values()))
        assert cell["value"] == outcome and cell["per_run"] == [] and cell["ci95"] is None
        assert ("withheld" in cell) == (outcome is None)
    assert next(iter(values["Bob"].values()))["value"] == pytest.approx(0.7)  # each account has its own ladder


@pytest.mark.parametrize("truth", list(itertools.product([False, True], repeat=3)))
def test_the_transcript_of_n_probes_has_at_most_n_plus_one_values(alice, hidden_split, truth):
    """Many hidden truths, few transcripts: n one-item probes distinguish at most n + 1 truths (not 2^n)."""
    base = 0.55 - 0.5 / N_ITEMS
    make_entry(hidden_split, alice, "Baseline", {"hit_at_1": base}, age_days=1.0)
    probes = [make_entry(hidden_split, alice, f"P{i}", {"hit_at_1": base + (1 if right else -1) / N_ITEMS},
                         age_days=0.9 - i / 100) for i, right in enumerate(truth)]
    released = disclosure_released(split=hidden_split)
    transcript = tuple(released[(p.pk, "hit_at_1", MetricValue.objects.get(submission=p).signature)] for p in probes)
    # the transcript is "released at the first right guess, nothing after": it names only that position
    first = next((i for i, right in enumerate(truth) if right), None)
    expected = tuple(0.6 if i == first else None for i in range(len(truth)))
    assert transcript == expected


def test_maintainers_see_full_precision(maintainer, alice, hidden_split):
    make_entry(hidden_split, alice, "Exact", {"hit_at_1": (0.51234, 0.4, 0.6, 0.01, [0.50234, 0.52234])}, runs=2)
    staff = Client()
    staff.force_login(maintainer)
    cell = staff.get("/api/v1/benchmarks/dialbgm/hidden-test/leaderboard").json()["rows"][0]["entry"]["metrics"]
    value = next(iter(cell.values()))
    assert value["value"] == 0.51234 and value["per_run"] == [0.50234, 0.52234] and value["ci95"] == [0.4, 0.6]
    public = Client().get("/api/v1/benchmarks/dialbgm/hidden-test/leaderboard").json()["rows"][0]["entry"]["metrics"]
    assert next(iter(public.values()))["value"] == 0.5


def test_a_column_resized_by_a_deploy_is_rounded_at_its_new_step_at_once(alice, hidden_split, monkeypatch):
    """Steps and the Ladder are cached per split version; a wider range in the code (the split unchanged)
    must not keep serving the finer step."""
    from scoring.metrics import get_family

    entry = make_entry(hidden_split, alice, "Entry", {"kendall_tau_b": 0.4567})
    metric = hidden_split.spec.profile().metric_for("kendall_tau_b")
    n = hidden_split.n_items
    assert disclosure_step(split=hidden_split, metric=metric) == 10.0 ** math.ceil(math.log10(4 * 1.0 / n))
    value = entry.metric_values.get(key="kendall_tau_b")
    key = (entry.pk, "kendall_tau_b", value.signature)
    before = disclosure_released(split=hidden_split)[key]
    assert before == round(round(0.4567 / 0.1) * 0.1, 12) == 0.5  # n = 60: step 0.1
    monkeypatch.setattr(get_family(metric.family), "value_range",
                        classmethod(lambda cls, params, output: (-100.0, 100.0)))
    assert disclosure_step(split=hidden_split, metric=metric) == 10.0  # 4 x 100 / 60 -> 10
    assert disclosure_released(split=hidden_split)[key] == 0.0
