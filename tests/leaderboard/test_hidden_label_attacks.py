"""The hidden-label attacks played end to end on a hidden MMAU split, as an outsider would play them.

A victim's public entry answers every item right; the attacker uploads a base entry (option A
everywhere) and probes that differ from it in one item (option B), then: compares each probe with
the base without logging in, brute-forces the smallest column's gold digest from the public inputs,
and asks for the victim's predictions. With full precision (a maintainer's view) the comparisons
give every probed label: the attack is real. Anyone else learns nothing beyond the released values
(README: one bit per column and counted submission, here none since nothing beats the base).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from leaderboard.models import Split, Submission
from scoring import ScoringOptions, build_scorer, get_benchmark
from scoring.metrics.gold_digests import KEYED_PREFIX
from scoring.reading.validation import load_references
from tests.helpers.site import upload_scored
from tests.leaderboard.test_mcq_site import mmau_like

pytestmark = pytest.mark.django_db
N_ITEMS = 12
PROBED = range(6)
UNKEYED = re.compile(r"gold:[0-9a-f]{16}(?![0-9a-f])")


@dataclass
class World:
    split: Split
    refs: list[dict[str, Any]]
    victim: Submission
    base: Submission
    probes: list[Submission]


def _scored(user: Any, split: Split, run: list[dict[str, Any]], name: str, capture: Any) -> Submission:
    return upload_scored(user, split, [run], capture, model_name=name)


@pytest.fixture
def world(make_split: Any, alice: Any, bob: Any, settings: Any, django_capture_on_commit_callbacks: Any) -> World:
    settings.LEADERBOARD = {**settings.LEADERBOARD, "DAILY_QUOTA": 20}
    refs = mmau_like(N_ITEMS)
    split = make_split("mmau", "test", refs, hidden=True)
    capture = django_capture_on_commit_callbacks
    victim = _scored(alice, split, [{"id": r["id"], "prediction": r["answer"]} for r in refs], "Victim", capture)
    base_run = [{"id": r["id"], "prediction": r["options"][0]} for r in refs]
    base = _scored(bob, split, base_run, "Base", capture)
    probes = []
    for i in PROBED:
        run = [dict(p) for p in base_run]
        run[i]["prediction"] = refs[i]["options"][1]
        probes.append(_scored(bob, split, run, f"Probe {i}", capture))
    return World(split, refs, victim, base, probes)


def _truth(ref: dict[str, Any]) -> str | None:
    """What comparing 'option B at this item' with 'option A everywhere' would reveal at full precision."""
    return "a" if ref["answer"] == ref["options"][1] else "b" if ref["answer"] == ref["options"][0] else None


def _session(user: Any | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.slow
def test_full_precision_comparisons_give_every_probed_label(world: World, maintainer: Any) -> None:
    """The one-item probe attack works on unrounded values: here, as a maintainer may see them."""
    staff = _session(maintainer)
    for i, probe in zip(PROBED, world.probes):
        row = next(m for m in staff.get(f"/api/v1/compare?a={probe.uid}&b={world.base.uid}").json()["metrics"]
                   if m["key"] == "accuracy")
        assert row["better"] == _truth(world.refs[i]), i


@pytest.mark.slow
@pytest.mark.parametrize("viewer", ["anonymous", "other", "owner"])
def test_compare_probes_reveal_nothing_beyond_the_released_values(world: World, alice: Any, bob: Any,
                                                                  viewer: str) -> None:
    client = _session({"anonymous": None, "other": alice, "owner": bob}[viewer])
    released_bits = 0
    recovered = 0
    for i, probe in zip(PROBED, world.probes):
        data = client.get(f"/api/v1/compare?a={probe.uid}&b={world.base.uid}").json()
        assert data["items"] is None and data["kendall_tau_b"] is None
        shown = {e.uid: client.get(f"/api/v1/submissions/{e.uid}").json()["metrics"] for e in (probe, world.base)}
        for row in data["metrics"]:
            a, b = (shown[e.uid][row["key"]]["value"] for e in (probe, world.base))
            expected_difference = None if a is None or b is None else round(a - b, 12)
            assert (row["a"], row["b"], row["difference"]) == (
                (a, b, expected_difference) if expected_difference is not None else (None, None, None)), row
            assert row["ci95"] is None and row["p_value"] is None and "a_better" not in row
        accuracy = next(m for m in data["metrics"] if m["key"] == "accuracy")
        released_bits += shown[probe.uid]["accuracy"]["value"] is not None
        recovered += accuracy["better"] is not None and accuracy["better"] == _truth(world.refs[i])
    assert recovered <= released_bits == 0  # no probe beat the base's released value: no bit, no label


def _public_signatures(client: Client, world: World) -> dict[str, str]:
    """Every signature an outsider can read, by route, one text per route."""
    board = "/b/mmau/test"
    return {
        "board api": client.get("/api/v1/benchmarks/mmau/test/leaderboard").content.decode(),
        "board page": client.get(f"{board}/").content.decode(),
        "board csv": client.get(f"{board}/leaderboard.csv").content.decode(),
        "board json": client.get(f"{board}/leaderboard.json").content.decode(),
        "heatmap": client.get("/api/v1/benchmarks/mmau/test/heatmap").content.decode(),
        "heatmap tables": client.get(f"{board}/heatmaps/").content.decode(),
        "entry api": client.get(f"/api/v1/submissions/{world.victim.uid}").content.decode(),
        "entry page": client.get(f"/s/{world.victim.uid}/").content.decode(),
        "compare api": client.get(f"/api/v1/compare?a={world.victim.uid}&b={world.base.uid}").content.decode(),
        "compare page": client.get(f"/compare/?a={world.victim.uid}&b={world.base.uid}").content.decode(),
        "benchmark api": client.get("/api/v1/benchmarks/mmau").content.decode(),
        "openapi": client.get("/api/v1/openapi.json").content.decode(),
    }


@pytest.mark.slow
def test_no_public_signature_carries_an_unkeyed_gold_digest(world: World, alice: Any, bob: Any) -> None:
    for viewer in (None, alice, bob):
        for route, text in _public_signatures(_session(viewer), world).items():
            assert not UNKEYED.search(text), (route, UNKEYED.search(text))
    table = list(csv.DictReader(io.StringIO(Client().get("/b/mmau/test/leaderboard.csv").content.decode())))
    signature = next(v for k, v in table[0].items() if k.startswith("Music acc.") and k.endswith("signature"))
    assert f"gold:{KEYED_PREFIX}" in signature  # the reference version is still named, by a keyed digest


@pytest.mark.slow
def test_the_smallest_columns_gold_digest_resists_brute_force_over_the_public_inputs(
        world: World, tmp_path: Path) -> None:
    """Every answer assignment of the music items (4 items, 4^4 guesses) against the public signature."""
    client = Client()
    inputs = [json.loads(line) for line in b"".join(
        client.get("/b/mmau/test/inputs.jsonl").streaming_content).decode().splitlines()]
    columns = client.get("/api/v1/benchmarks/mmau/test/leaderboard").json()["columns"]
    public = next(c["signature"] for c in columns if c["key"] == "music_accuracy")
    music = [i for i, row in enumerate(inputs) if row["metadata"]["task"] == "music"]
    assert len(music) == 4
    spec = get_benchmark("mmau")
    matches = []
    for guess in itertools.product(range(4), repeat=len(music)):
        chosen = dict(zip(music, guess))
        rows = [{**row, "answer": row["options"][chosen.get(i, 0)]} for i, row in enumerate(inputs)]
        path = tmp_path / "guess.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        scorer = build_scorer(spec, load_references(spec, path).references, ScoringOptions(bertscore=False))
        if scorer.signature("music_accuracy") == public:
            matches.append(guess)
    assert matches == [], f"the public signature names the music items' answers: {matches}"
    assert _unkeyed_signature(spec, world.refs, tmp_path) != public  # the CLI's digest of the truth is not shown


def _unkeyed_signature(spec: Any, refs: list[dict[str, Any]], tmp_path: Path) -> str:
    """The CLI's signature of the true references (what an unkeyed digest would have published)."""
    path = tmp_path / "truth.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in refs))
    return build_scorer(spec, load_references(spec, path).references, ScoringOptions(bertscore=False)).signature(
        "music_accuracy")


def test_public_splits_keep_the_clis_signature(make_split: Any, alice: Any, tmp_path: Path,
                                               django_capture_on_commit_callbacks: Any) -> None:
    refs = mmau_like(N_ITEMS)
    split = make_split("mmau", "test-mini", refs)
    entry = _scored(alice, split, [{"id": r["id"], "prediction": r["answer"]} for r in refs], "Open",
                    django_capture_on_commit_callbacks)
    stored = entry.metric_values.get(key="music_accuracy", current=True).signature
    assert stored == _unkeyed_signature(get_benchmark("mmau"), refs, tmp_path)
    assert UNKEYED.search(stored)


@pytest.mark.slow
@pytest.mark.parametrize("viewer", ["anonymous", "other"])
def test_the_victims_predictions_are_not_served_to_others(world: World, alice: Any, bob: Any, viewer: str) -> None:
    client = _session(None if viewer == "anonymous" else bob)
    uid = world.victim.uid
    for page in range(1, 3):
        response = client.get(f"/api/v1/submissions/{uid}/items?page={page}")
        assert response.status_code == 403 and response.json()["error"]["code"] == "withheld"
    assert client.get(f"/api/v1/compare?a={uid}&b={world.base.uid}").json()["items"] is None
    assert 'id="item-table"' not in client.get(f"/s/{uid}/").content.decode()
    assert client.get(f"/s/{uid}/items.jsonl").status_code == 403
    owner = _session(alice).get(f"/api/v1/submissions/{uid}/items").json()
    assert [i["prediction"] for i in owner["items"]] == [r["answer"] for r in world.refs]


def test_a_hidden_leave_one_out_splits_signature_resists_brute_force(make_split: Any, alice: Any, tmp_path: Path,
                                                                      django_capture_on_commit_callbacks: Any) -> None:
    """Leave-one-out items that show one option set in every prompt may be hidden: their gold digest is keyed."""
    options, gold = ["oboe", "tuba", "harp", "sitar"], ["tuba", "sitar", "oboe", "harp"]
    refs = [{"id": f"rul-{i}", "question": f"Which instrument plays in clip {i}?",
             "prompts": [{"options": options}, {"options": options}], "answer": answer}
            for i, answer in enumerate(gold)]
    split = make_split("rul-muchomusic", "hidden-test", refs, hidden=True)
    runs = [[{"id": r["id"], "responses": ["[[A]]", "[[A]]"]} for r in refs]]
    upload_scored(alice, split, runs, django_capture_on_commit_callbacks, model_name="Alice")
    columns = Client().get("/api/v1/benchmarks/rul-muchomusic/hidden-test/leaderboard").json()["columns"]
    public = next(c["signature"] for c in columns if c["key"] == "accuracy")
    assert f"gold:{KEYED_PREFIX}" in public and not UNKEYED.search(public)
    spec = get_benchmark("rul-muchomusic")
    matches = []
    for guess in itertools.product(options, repeat=len(refs)):
        path = tmp_path / "guess.jsonl"
        path.write_text("".join(json.dumps({**r, "answer": a}) + "\n" for r, a in zip(refs, guess)))
        scorer = build_scorer(spec, load_references(spec, path).references, ScoringOptions(bertscore=False))
        if scorer.signature("accuracy") == public:
            matches.append(guess)
    assert matches == []
