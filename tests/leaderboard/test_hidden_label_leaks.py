"""Hidden-label splits against an anonymous attacker, a second account and the owner.

Each route that could carry what rounding and the Ladder withhold: compare (direction, p-value,
interval, win/tie counts of unrounded values; values the Ladder withholds), other entries'
per-item predictions, the gold digest in public signatures, the rate of comparisons.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from leaderboard.models import Split, Submission
from leaderboard.services.policy.disclosure import disclosure_released
from tests.helpers.boards import make_entry

pytestmark = pytest.mark.django_db
VIEWERS = ("anonymous", "other", "owner")


def session(user: Any | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def hidden_split(make_split: Any, dialbgm_refs: list[dict[str, Any]]) -> Split:
    return make_split("dialbgm", "hidden-test", dialbgm_refs, hidden=True)


def _released(split: Split, entry: Submission, key: str) -> float | None:
    value = entry.metric_values.get(key=key, current=True)
    return disclosure_released(split=split)[(entry.pk, key, value.signature)]


@pytest.mark.parametrize("viewer", VIEWERS)
def test_compare_on_a_hidden_split_is_the_difference_of_released_values_only(hidden_split, alice, bob, viewer):
    """Two entries whose released values are equal (0.5 at step 0.1) but whose unrounded values differ."""
    base = make_entry(hidden_split, alice, "Base", {"hit_at_1": (0.51, 0.4, 0.6), "mrr": 0.52}, age_days=1)
    rival = make_entry(hidden_split, bob, "Rival", {"hit_at_1": (0.53, 0.41, 0.62), "mrr": 0.71}, age_days=0.5)
    client = session({"anonymous": None, "other": bob, "owner": alice}[viewer])
    data = client.get(f"/api/v1/compare?a={base.uid}&b={rival.uid}").json()
    rows = {m["key"]: m for m in data["metrics"]}
    assert set(rows) == {"hit_at_1", "mrr"}
    hit, mrr = rows["hit_at_1"], rows["mrr"]
    assert (hit["a"], hit["b"], hit["difference"], hit["better"]) == (0.5, 0.5, 0.0, None)  # not 0.51 < 0.53
    assert (mrr["a"], mrr["b"], mrr["difference"], mrr["better"]) == (0.5, 0.7, -0.2, "b")
    for row in (hit, mrr):
        assert row["ci95"] is None and row["p_value"] is None
        assert not {"a_better", "b_better", "ties", "n_items"} & set(row)
    assert data["items"] is None and data["kendall_tau_b"] is None and data["bootstrap"] is None
    assert "released" in data["withheld"]
    page = client.get(f"/compare/?a={base.uid}&b={rival.uid}").content.decode()
    assert "0.51" not in page and "0.53" not in page and "95% interval" not in page
    assert 'id="compare-withheld"' in page


def test_compare_never_shows_a_value_the_ladder_withholds(hidden_split, alice, bob):
    """An entry 'not above best' on its own page is not above best in every comparison too."""
    make_entry(hidden_split, alice, "Alice best", {"hit_at_1": 0.62}, age_days=2)
    probe = make_entry(hidden_split, alice, "Alice probe", {"hit_at_1": 0.58}, age_days=1)
    other = make_entry(hidden_split, bob, "Bob", {"hit_at_1": 0.31}, age_days=0.5)
    assert _released(hidden_split, probe, "hit_at_1") is None
    for viewer in (None, alice, bob):
        client = session(viewer)
        entry_value = client.get(f"/api/v1/submissions/{probe.uid}").json()["metrics"]["hit_at_1"]
        assert entry_value["value"] is None and entry_value["withheld"]
        row = client.get(f"/api/v1/compare?a={probe.uid}&b={other.uid}").json()["metrics"][0]
        assert row["a"] is None and row["difference"] is None and row["better"] is None, row
        assert row["b"] is None and row["withheld"]  # nothing of the column: no bound to read off B either
        page = client.get(f"/compare/?a={probe.uid}&b={other.uid}").content.decode()
        assert "0.6" not in page and "0.3" not in page and "not above" in page


def test_compares_are_rate_limited_per_account_and_per_address(hidden_split, alice, bob, maintainer, settings):
    settings.LIMITS = {**settings.LIMITS, "COMPARES_PER_HOUR": 3}
    a = make_entry(hidden_split, alice, "A", {"hit_at_1": 0.5}, age_days=1)
    b = make_entry(hidden_split, bob, "B", {"hit_at_1": 0.7}, age_days=0.5)
    route = f"/api/v1/compare?a={a.uid}&b={b.uid}"
    anonymous = Client(REMOTE_ADDR="203.0.113.9")
    assert [anonymous.get(route).status_code for _ in range(4)] == [200, 200, 200, 429]
    refused = anonymous.get(f"/compare/?a={a.uid}&b={b.uid}")
    assert refused.status_code == 429 and b"comparisons per hour" in refused.content
    api = anonymous.get(route)
    assert api.json()["error"]["code"] == "rate_limited" and 0 < int(api["Retry-After"]) <= 3600
    error = api.json()["error"]
    assert error["retry_after"] == int(api["Retry-After"]) and "try again in" in error["message"]
    assert Client(REMOTE_ADDR="203.0.113.10").get(route).status_code == 200  # another address: its own count
    signed_in = session(bob)
    assert [signed_in.get(route).status_code for _ in range(4)] == [200, 200, 200, 429]
    staff = session(maintainer)
    assert all(staff.get(f"/compare/?a={a.uid}&b={b.uid}").status_code == 200 for _ in range(5))


@pytest.mark.slow  # loads the BERTScore model
@pytest.mark.parametrize("viewer", VIEWERS)
def test_an_entrys_predictions_on_a_hidden_split_are_for_its_owner_and_maintainers(
        make_split, alice, bob, maintainer, viewer, django_capture_on_commit_callbacks):
    from tests.helpers.datagen import jamendo_references
    from tests.helpers.site import upload

    refs = jamendo_references(10, seed=4)
    split = make_split("jamendo-mt-qa", "hidden-qa", refs, hidden=True)
    marked = [{"id": r["id"], "prediction": f"PREDICTION-MARK-{i} {r['answer']}"} for i, r in enumerate(refs)]
    with django_capture_on_commit_callbacks(execute=True):
        created = upload(alice, split, [marked], model_name="Copied").json()
    uid = created["id"]
    client = session({"anonymous": None, "other": bob, "owner": alice}[viewer])
    routes = [f"/api/v1/submissions/{uid}/items", f"/api/v1/submissions/{uid}/items?page=2",
              f"/api/v1/submissions/{uid}/items?q=PREDICTION", f"/s/{uid}/", f"/s/{uid}/?q=PREDICTION",
              f"/s/{uid}/items.csv", f"/s/{uid}/items.jsonl"]
    texts = {}
    for route in routes:
        response = client.get(route)
        raw = b"".join(response.streaming_content) if response.streaming else response.content
        texts[route] = raw.decode()
    items = client.get(f"/api/v1/submissions/{uid}/items")
    if viewer == "owner":
        assert items.status_code == 200 and "PREDICTION-MARK-0" in items.json()["items"][0]["prediction"]
        assert "PREDICTION-MARK-0" in texts[f"/s/{uid}/"]
    else:
        assert items.status_code == 403 and items.json()["error"]["code"] == "withheld"
        for route, text in texts.items():
            assert "PREDICTION-MARK" not in text, route
    staff = session(maintainer).get(f"/api/v1/submissions/{uid}/items").json()
    assert "PREDICTION-MARK-0" in staff["items"][0]["prediction"]


def test_ranking_agreement_with_other_entries_is_withheld_on_a_hidden_split(hidden_split, alice, bob, maintainer):
    """A perfect entry's candidate scores are its gold rankings: agreement with them is a score per item."""
    import numpy as np

    from leaderboard.services.pipeline.entry_vectors import entry_vectors_store
    from leaderboard.services.shared.entry_runs import CANDIDATE_SCORES

    rng = np.random.default_rng(1)
    for user, name in ((alice, "A"), (bob, "B"), (bob, "C")):
        entry = make_entry(hidden_split, user, name, {"hit_at_1": 0.5})
        entry_vectors_store(entry, {CANDIDATE_SCORES: rng.random((60, 4))})
    url = "/api/v1/benchmarks/dialbgm/hidden-test/heatmap"
    for viewer in (None, alice, bob):
        agreement = session(viewer).get(url).json()["model_agreement"]
        assert agreement["matrix"] == [] and "maintainers" in agreement["withheld"]
    assert len(session(maintainer).get(url).json()["model_agreement"]["matrix"]) == 3



def test_hidden_bleu_and_judge_scores_are_rounded_at_the_step_of_their_true_range(make_split, jamendo_refs, alice):
    """sacrebleu's BLEU is 0-100 and the judge's score 0-5 with scale 1: the step must follow the range."""
    from leaderboard.services.policy.disclosure import disclosure_step

    split = make_split("jamendo-mt-qa", "hidden-full", jamendo_refs, hidden=True)
    profile = split.spec.profile()
    sentences = sum(1 for r in jamendo_refs if r["qa_type"] == "sentence")
    assert sentences == 40
    assert disclosure_step(split=split, metric=profile.metric("bleu")) == 10.0  # 4 x 100 / 40, a power of ten up
    assert disclosure_step(split=split, metric=profile.metric("rouge1")) == 10.0  # scale 100 on a 0-1 value
    assert disclosure_step(split=split, metric=profile.metric("judge_score")) == 1.0  # 4 x 5 / 40
    assert disclosure_step(split=split, metric=profile.metric("yes_no_accuracy")) == 0.1  # 4 x 1 / 40
    entry = make_entry(split, alice, "Bleu", {"bleu": 23.4})
    shown = Client().get(f"/api/v1/submissions/{entry.uid}").json()["metrics"]["bleu"]
    assert shown["value"] == 20.0 and shown["precision"] == 10.0


@pytest.mark.parametrize("how", ["service", "migration", "saved split"])
def test_hiding_a_splits_labels_keys_the_digests_already_stored(public_mmau_entry, maintainer, how,
                                                                django_capture_on_commit_callbacks):
    """Signatures stored while the labels were public become the ones a scorer of the hidden split gives."""
    import importlib

    from django.apps import apps

    from leaderboard.services.references.signatures import split_save, split_signatures_rekey
    from leaderboard.services.shared.scorers import site_scorer

    split, entry = public_mmau_entry
    before = dict(entry.metric_values.values_list("key", "signature"))
    with django_capture_on_commit_callbacks(execute=True):
        if how == "saved split":  # the admin's form, import_references --hidden-labels
            split.hidden_labels = True
            split_save(split=split)
        else:
            Split.objects.filter(pk=split.pk).update(hidden_labels=True)
            split.refresh_from_db()
            if how == "service":
                assert split_signatures_rekey(split=split) == len(before)
            else:
                importlib.import_module("leaderboard.migrations.0011_hidden_signature_keys").rekey(apps, None)
    entry.refresh_from_db()
    after = dict(entry.metric_values.values_list("key", "signature"))
    assert after.keys() == before.keys()
    scorer = site_scorer(entry)
    for key, signature in after.items():
        assert "gold:hmac-" in signature and signature != before[key]
        assert signature == scorer.signature(key) == entry.report["signatures"][key], key
    staff = Client()
    staff.force_login(maintainer)
    columns = staff.get("/api/v1/benchmarks/mmau/test/leaderboard").json()["columns"]
    assert {c["signature"] for c in columns} <= set(after.values())


@pytest.mark.parametrize("viewer", VIEWERS)
def test_run_file_digests_and_item_warnings_are_the_owners_on_a_hidden_split(hidden_split, alice, bob, viewer):
    """A run file's SHA-256 and size can be matched against guessed files; item warnings name empty answers."""
    entry = make_entry(hidden_split, alice, "Files", {"hit_at_1": 0.5})
    digest = "ab12cd34ef56" + "0" * 52
    entry.runs.update(sha256=digest, size=4321)
    warning = {"file": "run1.jsonl", "line": 7, "field": "scores", "kind": "empty", "message": "EMPTY-AT-d6"}
    Submission.objects.filter(pk=entry.pk).update(warnings=[warning], warning_counts={"empty": 1})
    client = session({"anonymous": None, "other": bob, "owner": alice}[viewer])
    data = client.get(f"/api/v1/submissions/{entry.uid}").json()
    page = client.get(f"/s/{entry.uid}/").content.decode()
    (run,) = data["runs"]
    if viewer == "owner":
        assert (run["sha256"], run["size"], data["warnings"]) == (digest, 4321, [warning])
        assert "ab12cd34ef56" in page and "EMPTY-AT-d6" in page
    else:
        assert (run["sha256"], run["size"], data["warnings"]) == (None, None, [])
        assert "ab12cd34ef56" not in page and "EMPTY-AT-d6" not in page
        assert data["warning_counts"] == {"empty": 1}  # how many, never which


def test_item_counts_of_a_hidden_splits_columns_are_withheld(hidden_split, alice, bob):
    """A gated judge column's count of scored items is the count of answers judged wrong: a per-item signal."""
    entry = make_entry(hidden_split, alice, "Counted", {"hit_at_1": 0.5})
    entry.metric_values.update(n_scored=37)
    for viewer in (None, alice, bob):
        client = session(viewer)
        assert client.get(f"/api/v1/submissions/{entry.uid}").json()["metrics"]["hit_at_1"]["n_scored"] is None
        page = client.get(f"/s/{entry.uid}/").content.decode()
        assert '<td class="num">37</td>' not in page


def test_a_gated_judge_column_is_sized_for_one_item(make_split, jamendo_refs):
    """Error-type shares average over the answers judged wrong (label-dependent, possibly one): nothing finer
    than the whole range is released."""
    from leaderboard.services.policy.disclosure import disclosure_round, disclosure_step

    split = make_split("jamendo-mt-qa", "hidden-full", jamendo_refs, hidden=True)
    metric = split.spec.profile().metric("error_comparative_collapse")
    assert disclosure_step(split=split, metric=metric) == 10.0  # 4 x 1 / 1 item, a power of ten up
    assert {disclosure_round(v, split=split, metric=metric) for v in (0.0, 0.2, 0.5, 0.8, 1.0)} == {0.0}
    assert disclosure_step(split=split, metric=split.spec.profile().metric("judge_score")) == 1.0  # not gated
