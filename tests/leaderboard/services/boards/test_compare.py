"""Comparing two entries: the site's numbers are the CLI's ``compare`` on the same two files.

Two DialBGM and two Jamendo-MT-QA entries are uploaded and scored (eager tasks); the API and the
page must give, per metric, exactly the values ``python -m scoring compare`` prints for the same
reference and prediction files with the same seed and replicates. A hidden-label split shows
non-maintainers rounded aggregates and no per-item data (every gold string searched for).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.conf import settings
from django.test import Client
from scipy.stats import kendalltau

from leaderboard.models import EntryVector, Status, Submission
from leaderboard.services.shared.cache import leaderboard_changed
from scoring.cli import main as cli_main
from tests.helpers.datagen import dialbgm_predictions, jamendo_predictions, write_jsonl
from tests.helpers.site import upload
from tests.leaderboard.services.policy.test_access import (
    gold_needles,
    secret_jamendo_predictions,
    secret_jamendo_references,
)

pytestmark = pytest.mark.django_db


def _scored(response: Any) -> Submission:
    assert response.status_code == 201, response.content
    return Submission.objects.get(uid=response.json()["id"])


def _check_scored(*entries: Submission) -> None:
    for entry in entries:
        entry.refresh_from_db()
        assert entry.status == Status.SCORED, entry.status_detail


def _cli_compare(benchmark: str, refs: Path, a: Path, b: Path, capsys: Any, *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    code = cli_main(["compare", "--benchmark", benchmark, "--references", str(refs), "--predictions", str(a),
                     "--against", str(b), "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"]), *extra])
    assert code == 0
    return json.loads(capsys.readouterr().out)["metrics"]


def _pair(split: Any, user: Any, other: Any, runs: tuple[list[Any], list[Any]], capture: Any,
          **metadata: Any) -> tuple[Submission, Submission]:
    with capture(execute=True):
        a = _scored(upload(user, split, [runs[0]], model_name="Model A", **metadata))
        b = _scored(upload(other, split, [runs[1]], model_name="Model B", **metadata))
    _check_scored(a, b)
    return a, b


def _assert_equal_to_cli(site: dict[str, Any], cli: dict[str, Any]) -> None:
    compared = {m["key"]: m for m in site["metrics"]}
    assert set(compared) == set(cli), (set(compared), set(cli))
    for key, expected in cli.items():
        got = compared[key]
        assert got["a"] == expected["a"], key
        assert got["b"] == expected["b"], key
        assert got["difference"] == expected["difference"], key
        assert got["ci95"] == expected["ci95"], key
        assert got["p_value"] == expected["p_value"], key
        assert got["better"] == expected["better"], key
        assert got["signature"] == expected["signature"], key


def test_dialbgm_compare_equals_the_cli(alice, bob, dialbgm_split, dialbgm_refs, tmp_path, capsys,
                                        django_capture_on_commit_callbacks):
    run_a, run_b = dialbgm_predictions(dialbgm_refs, seed=1, skill=0.7), dialbgm_predictions(dialbgm_refs, seed=2)
    a, b = _pair(dialbgm_split, alice, bob, (run_a, run_b), django_capture_on_commit_callbacks)
    refs = write_jsonl(dialbgm_refs, tmp_path / "refs.jsonl")
    cli = _cli_compare("dialbgm", refs, write_jsonl(run_a, tmp_path / "a.jsonl"),
                       write_jsonl(run_b, tmp_path / "b.jsonl"), capsys)

    data = Client().get(f"/api/v1/compare?a={a.uid}&b={b.uid}").json()
    _assert_equal_to_cli(data, cli)
    assert data["per_item_visible"] is True and data["n_items"] == len(dialbgm_refs)
    # entries aggregated before run arrays were kept: the per-item rows give the same numbers
    assert EntryVector.objects.filter(submission=a, key__startswith="run1:values:").exists()
    EntryVector.objects.filter(key__startswith="run").delete()
    leaderboard_changed(dialbgm_split.pk)
    _assert_equal_to_cli(Client().get(f"/api/v1/compare?a={a.uid}&b={b.uid}").json(), cli)

    # counts of items each entry wins, and tau-b, from the files directly (scipy per item)
    by_id_a = {r["id"]: r["scores"] for r in run_a}
    by_id_b = {r["id"]: r["scores"] for r in run_b}
    taus = []
    for ref in dialbgm_refs:
        x = [by_id_a[ref["id"]][c] for c in ref["candidates"]]
        y = [by_id_b[ref["id"]][c] for c in ref["candidates"]]
        if len(set(x)) > 1 and len(set(y)) > 1:
            taus.append(kendalltau(x, y).statistic)
    assert data["kendall_tau_b"]["items"] == len(taus)
    assert data["kendall_tau_b"]["mean"] == pytest.approx(float(np.mean(taus)), abs=1e-12)
    hit = next(m for m in data["metrics"] if m["key"] == "hit_at_1")
    assert hit["a_better"] + hit["b_better"] + hit["ties"] == len(dialbgm_refs)

    # the largest differences come first, with both predictions and the reference
    items = data["items"]
    assert items and data["items_metric"] == dialbgm_split.spec.default_sort
    gaps = [abs(i["difference"]) for i in items]
    assert gaps == sorted(gaps, reverse=True)
    first = items[0]
    ref = next(r for r in dialbgm_refs if r["id"] == first["id"])
    assert first["reference"] == ref["gold_ranking"]
    assert first["a"]["prediction"] == by_id_a[first["id"]]

    page = Client().get(f"/compare/?pick={a.uid}&pick={b.uid}")
    assert page.status_code == 200
    text = page.content.decode()
    assert 'id="compare-metrics"' in text and 'id="compare-tau"' in text and 'id="compare-item-table"' in text
    assert html.escape(" > ".join(ref["gold_ranking"])) in text


def test_jamendo_compare_equals_the_cli(alice, bob, jamendo_split, jamendo_refs, tmp_path, capsys, no_bertscore,
                                        django_capture_on_commit_callbacks):
    run_a, run_b = jamendo_predictions(jamendo_refs, seed=1, noise=0.2), jamendo_predictions(jamendo_refs, seed=5)
    a, b = _pair(jamendo_split, alice, bob, (run_a, run_b), django_capture_on_commit_callbacks, type="Multi")
    refs = write_jsonl(jamendo_refs, tmp_path / "refs.jsonl")
    cli = _cli_compare("jamendo-mt-qa", refs, write_jsonl(run_a, tmp_path / "a.jsonl"),
                       write_jsonl(run_b, tmp_path / "b.jsonl"), capsys, "--no-bertscore")
    data = Client().get(f"/api/v1/compare?a={a.uid}&b={b.uid}&metric=bleu").json()
    _assert_equal_to_cli(data, cli)
    assert data["kendall_tau_b"] is None
    yes_no = next(m for m in data["metrics"] if m["key"] == "yes_no_accuracy")
    n_yes_no = sum(r["qa_type"] == "yes_no" for r in jamendo_refs)
    assert yes_no["n_items"] == n_yes_no
    assert data["items_metric"] == "bleu"


def test_bad_requests_say_why(alice, bob, dialbgm_split, dialbgm_refs, make_split,
                              django_capture_on_commit_callbacks):
    other_split = make_split("dialbgm", "other", dialbgm_refs)
    with django_capture_on_commit_callbacks(execute=True):
        d = _scored(upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)], model_name="D"))
        j = _scored(upload(alice, other_split, [dialbgm_predictions(dialbgm_refs)], model_name="J"))
        private = _scored(upload(bob, dialbgm_split, [dialbgm_predictions(dialbgm_refs)], model_name="P",
                                 private="1"))
    _check_scored(d, j, private)
    client = Client()
    cases = {
        f"a={d.uid}&b={j.uid}": (400, "different_splits"),
        f"a={d.uid}&b={d.uid}": (400, "same_entry"),
        f"a={d.uid}": (400, "missing"),
        f"a={d.uid}&b=not-a-uuid": (404, "not_found"),
        f"a={d.uid}&b={private.uid}": (404, "not_found"),
    }
    for query, (status, code) in cases.items():
        response = client.get(f"/api/v1/compare?{query}")
        assert response.status_code == status, query
        assert response.json()["error"]["code"] == code, query
        page = client.get(f"/compare/?{query}")
        assert page.status_code == status and b'id="compare-error"' in page.content
        assert b"P</" not in page.content  # the private entry's name is not revealed
    owner = Client()
    owner.force_login(bob)
    assert owner.get(f"/api/v1/compare?a={d.uid}&b={private.uid}").status_code == 200


def test_three_or_more_picked_entries_get_a_page_to_choose_two(alice, bob, dialbgm_split, dialbgm_refs,
                                                                make_split, django_capture_on_commit_callbacks):
    other_split = make_split("dialbgm", "other", dialbgm_refs)
    with django_capture_on_commit_callbacks(execute=True):
        x, y, z = (_scored(upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs, seed=n)], model_name=name))
                   for n, name in ((1, "Xylo"), (2, "Yodel"), (3, "Zither")))
        hidden = _scored(upload(bob, dialbgm_split, [dialbgm_predictions(dialbgm_refs)], model_name="Secretive",
                                private="1"))
        elsewhere = _scored(upload(alice, other_split, [dialbgm_predictions(dialbgm_refs)], model_name="Faraway"))
    _check_scored(x, y, z, hidden, elsewhere)
    client = Client()
    for query in (f"pick={x.uid}&pick={y.uid}&pick={z.uid}", f"a={x.uid}&b={y.uid}&b={z.uid}",
                  f"a={x.uid}&a={y.uid}&pick={z.uid}&pick={hidden.uid}&pick=not-a-uuid"):
        page = client.get(f"/compare/?{query}")
        assert page.status_code == 200, query
        text = page.content.decode()
        assert 'id="compare-choose"' in text and 'id="compare-metrics"' not in text, query
        rows = re.findall(r'<tr data-id="([0-9a-f-]{36})">', text)
        assert rows == [str(x.uid), str(y.uid), str(z.uid)], query
        pairs = re.findall(r'<li><a href="/compare/\?a=([0-9a-f-]{36})&amp;b=([0-9a-f-]{36})">([^<]+)</a></li>', text)
        assert pairs == [(str(x.uid), str(y.uid), "Xylo vs Yodel"), (str(x.uid), str(z.uid), "Xylo vs Zither"),
                         (str(y.uid), str(z.uid), "Yodel vs Zither")], query
        assert f'name="a" value="{x.uid}" checked' in text and f'name="b" value="{y.uid}" checked' in text
        assert "Secretive" not in text and str(hidden.uid) not in text  # a private entry stays unnamed
        response = client.get(f"/api/v1/compare?{query}")  # the API names the refusal, never a silent pair
        assert response.status_code == 400 and response.json()["error"]["code"] == "too_many", query
    mixed = client.get(f"/compare/?a={x.uid}&a={y.uid}&pick={z.uid}&pick={hidden.uid}&pick=not-a-uuid")
    assert "5 entries were ticked" in mixed.content.decode()
    assert "2 of the ticked entries are not listed" in mixed.content.decode()
    # the chosen pair opens the comparison
    chosen = client.get(f"/compare/?a={y.uid}&b={z.uid}")
    assert chosen.status_code == 200 and b'id="compare-metrics"' in chosen.content
    # entries of two leaderboards: listed, and no pair across them offered
    across = client.get(f"/compare/?pick={x.uid}&pick={elsewhere.uid}&pick={hidden.uid}").content.decode()
    assert re.findall(r'<tr data-id="([0-9a-f-]{36})">', across) == [str(x.uid), str(elsewhere.uid)]
    assert 'id="compare-pairs"' not in across and 'id="compare-choose-none"' in across
    # the owner sees a private entry of theirs among the choices
    owner = Client()
    owner.force_login(bob)
    mine = owner.get(f"/compare/?pick={x.uid}&pick={y.uid}&pick={hidden.uid}").content.decode()
    assert re.findall(r'<tr data-id="([0-9a-f-]{36})">', mine) == [str(x.uid), str(y.uid), str(hidden.uid)]


def test_hidden_labels_give_non_maintainers_no_per_item_data(alice, bob, maintainer, make_split, no_bertscore,
                                                             django_capture_on_commit_callbacks):
    refs = secret_jamendo_references(6)
    split = make_split("jamendo-mt-qa", "hidden-qa", refs, hidden=True)
    generic = secret_jamendo_predictions(refs)
    other = [{"id": r["id"], "prediction": "No" if r["qa_type"] == "yes_no" else "the first track, slower"}
             for r in refs]
    a, b = _pair(split, alice, bob, (generic, other), django_capture_on_commit_callbacks, type="Multi")
    needles = gold_needles(refs)
    for viewer in (None, alice, bob):
        client = Client()
        if viewer is not None:
            client.force_login(viewer)
        for route in (f"/api/v1/compare?a={a.uid}&b={b.uid}", f"/compare/?a={a.uid}&b={b.uid}",
                      f"/compare/?a={a.uid}&b={b.uid}&metric=yes_no_accuracy"):
            response = client.get(route)
            assert response.status_code == 200, route
            content = response.content.decode()
            leaked = [n for n in needles if n in content]
            assert not leaked, (route, leaked[:3])
            assert "a_better" not in content and 'id="compare-item-table"' not in content
        data = client.get(f"/api/v1/compare?a={a.uid}&b={b.uid}").json()
        assert data["items"] is None and data["per_item_visible"] is False
    staff = Client()
    staff.force_login(maintainer)
    full = staff.get(f"/api/v1/compare?a={a.uid}&b={b.uid}").json()
    assert full["items"] and "reference" in full["items"][0]
    step_rounded = Client().get(f"/api/v1/compare?a={a.uid}&b={b.uid}").json()
    by_key = {m["key"]: m for m in step_rounded["metrics"]}
    for m in full["metrics"]:
        shown = by_key[m["key"]]["difference"]
        assert shown is None or abs(shown - m["difference"]) <= 0.5 * _step(split, m["key"]) + 1e-9


def _step(split: Any, key: str) -> float:
    from leaderboard.services.policy.disclosure import disclosure_step

    return disclosure_step(split=split, metric=split.spec.profile().metric_for(key))


def test_largest_differences_are_the_slow_sorts_first_twenty_ties_in_item_order() -> None:
    from leaderboard.services.boards.compare import TOP_ITEMS, _largest

    rng = np.random.default_rng(3)
    for n in (0, 5, 19, 20, 21, 500):
        va, vb = rng.integers(0, 3, n).astype(float), rng.integers(0, 3, n).astype(float)  # many ties
        va[rng.random(n) < 0.3] = np.nan
        gaps = [(abs(x - y), i) for i, (x, y) in enumerate(zip(va.tolist(), vb.tolist()))]
        expected = [i for gap, i in sorted((g for g in gaps if g[0] > 0), key=lambda g: (-g[0], g[1]))][:TOP_ITEMS]
        assert _largest(va, vb) == expected, n
