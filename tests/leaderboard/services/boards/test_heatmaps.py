"""Heatmaps: the vectorised agreement measures against scipy, the endpoint's payload, its cache."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from django.test import Client
from scipy.stats import kendalltau, pearsonr, spearmanr

from leaderboard.models import EntryVector, Submission
from leaderboard.services.boards import heatmaps
from leaderboard.services.boards.heatmaps import metric_agreement, pairwise_pearson, pairwise_tau_b
from leaderboard.services.pipeline.entry_vectors import entry_vectors_store
from leaderboard.services.shared.cache import leaderboard_changed
from tests.helpers.boards import make_entry
from tests.helpers.datagen import dialbgm_predictions
from tests.helpers.site import upload

# --- the measures, against scipy ---------------------------------------------------------------------


def scipy_mean_tau_b(a: np.ndarray, b: np.ndarray) -> tuple[float, int]:
    """Mean over items of scipy's tau-b, skipping items where it is nan (a side tied everywhere)."""
    taus = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for x, y in zip(a, b):
            tau = kendalltau(x, y, variant="b").statistic
            if not np.isnan(tau):
                taus.append(tau)
    return (float(np.mean(taus)) if taus else float("nan")), len(taus)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("models", "items", "candidates", "high"), [(5, 40, 4, 4), (3, 25, 6, 3), (4, 30, 3, 2)])
def test_pairwise_tau_b_is_the_mean_of_scipys_tau_b(seed, models, items, candidates, high):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, high, size=(models, items, candidates)).astype(float)  # many ties
    scores[0, :3] = 2.0  # model 0 ties every candidate on three items: left out of its pairs
    scores[-1, -2:] = scores[0, -2:]  # identical on two items
    mean, counts = pairwise_tau_b(scores)
    assert mean.shape == counts.shape == (models, models)
    for a in range(models):
        for b in range(models):
            expected, n = scipy_mean_tau_b(scores[a], scores[b])
            assert counts[a, b] == n, (a, b)
            assert mean[a, b] == pytest.approx(expected, abs=1e-12), (a, b)
    assert np.allclose(mean, mean.T, equal_nan=True) and (counts == counts.T).all()


def test_pairwise_tau_b_with_a_model_that_ties_everything():
    rng = np.random.default_rng(7)
    scores = rng.random((3, 10, 4))
    scores[1] = 1.0
    mean, counts = pairwise_tau_b(scores)
    assert np.isnan(mean[1]).all() and np.isnan(mean[:, 1]).all()
    assert (counts[1] == 0).all() and counts[0, 2] == 10
    assert mean[0, 0] == pytest.approx(1.0) and mean[2, 2] == pytest.approx(1.0)
    assert mean[0, 2] == pytest.approx(scipy_mean_tau_b(scores[0], scores[2])[0], abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_pairwise_pearson_matches_scipy_on_items_both_define(seed):
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(6, 80))
    values[1] = 0.5 * values[0] + rng.normal(scale=0.3, size=80)  # correlated
    values[rng.random(values.shape) < 0.2] = np.nan  # each model leaves some items undefined
    values[4, :70] = np.nan  # a model defining only 10 items
    matrix, counts = pairwise_pearson(values)
    for a in range(6):
        for b in range(6):
            both = ~np.isnan(values[a]) & ~np.isnan(values[b])
            assert counts[a, b] == both.sum()
            expected = pearsonr(values[a, both], values[b, both]).statistic
            assert matrix[a, b] == pytest.approx(expected, abs=1e-12), (a, b)
            assert matrix[a, b] == pytest.approx(np.corrcoef(values[a, both], values[b, both])[0, 1], abs=1e-12)
    assert np.allclose(matrix, matrix.T)


def test_pairwise_pearson_edge_cases():
    values = np.array([
        [1.0, 2.0, 3.0, 4.0],
        [1.0, 1.0, 1.0, 1.0],  # constant: undefined against others, 1.0 with itself (identical)
        [np.nan, np.nan, np.nan, 5.0],  # one item: undefined
        [4.0, 3.0, 2.0, 1.0],
    ])
    matrix, counts = pairwise_pearson(values)
    assert matrix[0, 3] == pytest.approx(-1.0) and matrix[0, 0] == pytest.approx(1.0)
    assert np.isnan(matrix[0, 1]) and matrix[1, 1] == 1.0
    assert np.isnan(matrix[2]).all() and counts[2, 0] == 1 and counts[2, 2] == 1


@pytest.mark.parametrize("seed", range(6))
def test_metric_agreement_is_scipys_spearman_per_column_pair(seed):
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 6, size=(12, 5)).astype(float)  # ties in the ranks
    table[:, 1] = table[:, 0] * 2 + rng.integers(0, 2, size=12)
    table[rng.random(table.shape) < 0.15] = np.nan
    table[:9, 4] = np.nan  # only three models have the last metric
    result = metric_agreement(table)
    for a in range(5):
        for b in range(5):
            both = ~np.isnan(table[:, a]) & ~np.isnan(table[:, b])
            if both.sum() <= 2:
                assert np.isnan(result[a, b])
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = spearmanr(table[both, a], table[both, b]).statistic
            if np.isnan(expected):
                assert np.isnan(result[a, b])
            else:
                assert result[a, b] == pytest.approx(expected, abs=1e-12), (a, b)
    assert np.allclose(result, result.T, equal_nan=True)


def test_metric_agreement_of_a_constant_column_is_undefined_without_warnings():
    table = np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0], [4.0, 5.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = metric_agreement(table)
    assert result[0, 0] == pytest.approx(1.0) and np.isnan(result[0, 1]) and np.isnan(result[1, 1])


# --- the endpoint ------------------------------------------------------------------------------------

HEATMAP = "/api/v1/benchmarks/dialbgm/test/heatmap"


def _candidate_scores(predictions: list[dict], refs: list[dict]) -> np.ndarray:
    return np.array([[p["scores"][c] for c in r["candidates"]] for p, r in zip(predictions, refs)], dtype=float)


@pytest.fixture
def three_rankers(dialbgm_split, dialbgm_refs, alice, bob, make_user, django_capture_on_commit_callbacks):
    predictions = [dialbgm_predictions(dialbgm_refs, seed=s, skill=k) for s, k in ((1, 0.9), (2, 0.5), (3, 0.1))]
    predictions[2][0]["scores"] = {c: 1 for c in dialbgm_refs[0]["candidates"]}  # all tied on one item
    users = [alice, bob, make_user("carol")]
    with django_capture_on_commit_callbacks(execute=True):
        for n, (user, run) in enumerate(zip(users, predictions)):
            upload(user, dialbgm_split, [run], model_name=f"Ranker {n}", input="full_dialogue")
    return predictions


@pytest.mark.django_db
def test_heatmap_payload_for_three_ranking_entries(three_rankers, dialbgm_refs):
    data = Client().get(HEATMAP).json()
    board = Client().get("/api/v1/benchmarks/dialbgm/test/leaderboard").json()
    assert data["entries"] == [r["entry"]["id"] for r in board["rows"]]
    assert data["models"] == [f"{r['entry']['model_name']} (full_dialogue)" for r in board["rows"]]
    agreement = data["model_agreement"]
    assert agreement["measure"] == "mean Kendall tau-b over shared items"
    matrix = np.array(agreement["matrix"], dtype=float)
    assert matrix.shape == (3, 3)
    assert np.allclose(matrix, matrix.T) and np.allclose(np.diag(matrix), 1.0)
    order = [int(r["entry"]["model_name"].split()[-1]) for r in board["rows"]]
    scores = [_candidate_scores(three_rankers[n], dialbgm_refs) for n in order]
    for a in range(3):
        for b in range(3):
            expected, n_items = scipy_mean_tau_b(scores[a], scores[b])
            assert matrix[a, b] == pytest.approx(round(expected, 4), abs=1e-9)
            assert agreement["items"][a][b] == n_items
    tied_row = order.index(2)
    assert agreement["items"][tied_row][tied_row] < len(dialbgm_refs)  # its all-tied items are left out
    metrics = data["metric_agreement"]
    assert metrics["metrics"] == ["Hit@1", "MRR", "nDCG@4", "Kendall τb"]
    table = np.array([[r["entry"]["metrics"][c["id"]]["value"] for c in board["columns"]] for r in board["rows"]])
    m = np.array(metrics["matrix"], dtype=float)
    assert m.shape == (4, 4) and np.allclose(m, m.T)
    assert m[0, 1] == pytest.approx(round(spearmanr(table[:, 0], table[:, 1]).statistic, 4))
    assert data["error_types"] == {}


@pytest.mark.django_db
def test_heatmap_is_cached_and_invalidated_when_an_entry_lands(three_rankers, dialbgm_split, dialbgm_refs,
                                                               make_user, monkeypatch,
                                                               django_capture_on_commit_callbacks):
    calls = []
    compute = heatmaps._compute
    monkeypatch.setattr(heatmaps, "_compute", lambda *a: calls.append(1) or compute(*a))
    params = {"input": "full_dialogue"}
    first = Client().get(HEATMAP, params).json()
    again = Client().get(HEATMAP, params).json()
    assert again == first and len(calls) == 1
    # a stored vector changes behind the cache's back: still the cached payload...
    entry = Submission.objects.get(uid=first["entries"][1])
    entry_vectors_store(entry, {"candidate_scores": np.ones((len(dialbgm_refs), 4)),
                          **{v.key: np.frombuffer(bytes(v.data)) for v in entry.vectors.exclude(
                              key="candidate_scores")}})
    assert Client().get(HEATMAP, params).json() == first and len(calls) == 1
    # ...until the split's leaderboard changes
    leaderboard_changed(dialbgm_split.pk)
    changed = Client().get(HEATMAP, params).json()
    assert len(calls) == 2 and changed["entries"] == first["entries"]
    assert changed["model_agreement"]["matrix"][1] == [None, None, None]
    # a new entry landing through the pipeline moves the version too, even for a view that filters it out
    with django_capture_on_commit_callbacks(execute=True):
        upload(make_user("dave"), dialbgm_split, [dialbgm_predictions(dialbgm_refs, seed=9)], model_name="Late",
               input="summary")
    filtered = Client().get(HEATMAP, params).json()
    assert len(calls) == 3 and filtered == changed
    everyone = Client().get(HEATMAP).json()
    assert len(calls) == 4 and len(everyone["models"]) == 4 and "Late (summary)" in everyone["models"]
    assert Client().get(HEATMAP).json() == everyone and len(calls) == 4


@pytest.mark.django_db
def test_score_heatmap_uses_pearson_on_the_items_both_define(jamendo_split, alice):
    rng = np.random.default_rng(3)
    n = jamendo_split.n_items
    vectors = rng.random((3, n))
    vectors[:, ::3] = np.nan  # the metric applies to some items only
    vectors[2, 1] = np.nan
    full = {"yes_no_accuracy": 0.5, "short_answer_accuracy": 0.5, "bleu": 20.0, "rouge1": 40.0, "rouge2": 20.0,
            "rougeL": 30.0, "bertscore_f1": 0.88}
    entries = []
    for i in range(3):
        entry = make_entry(jamendo_split, alice, f"QA {i}", {**full, "yes_no_accuracy": 0.9 - i / 10},
                           settings={"type": "Multi"})
        entry_vectors_store(entry, {"bleu": vectors[i], "yes_no_accuracy": vectors[i] * 2})
        entries.append(entry)
    leaderboard_changed(jamendo_split.pk)
    data = Client().get("/api/v1/benchmarks/jamendo-mt-qa/full/heatmap", {"metric": "bleu"}).json()
    agreement = data["model_agreement"]
    assert agreement["measure"] == "Pearson correlation of per-item bleu" and agreement["metric"] == "bleu"
    assert data["models"] == ["QA 0 (Multi)", "QA 1 (Multi)", "QA 2 (Multi)"]
    order = [0, 1, 2]
    for a in range(3):
        for b in range(3):
            x, y = vectors[order[a]], vectors[order[b]]
            both = ~np.isnan(x) & ~np.isnan(y)
            assert agreement["items"][a][b] == both.sum()
            assert agreement["matrix"][a][b] == pytest.approx(round(pearsonr(x[both], y[both]).statistic, 4))
    default = Client().get("/api/v1/benchmarks/jamendo-mt-qa/full/heatmap").json()
    assert default["model_agreement"]["metric"] == "yes_no_accuracy"
    assert EntryVector.objects.filter(submission__in=entries).count() == 6


@pytest.mark.slow
def test_hidden_label_split_withholds_per_item_correlations_from_non_maintainers(
        make_split, alice, maintainer, django_capture_on_commit_callbacks):
    from django.test import Client

    from tests.helpers.datagen import jamendo_predictions, jamendo_references
    from tests.helpers.site import upload

    refs = jamendo_references(20, seed=8)
    split = make_split("jamendo-mt-qa", "full", refs, hidden=True)
    for seed in (1, 2, 3):
        with django_capture_on_commit_callbacks(execute=True):
            upload(alice, split, [jamendo_predictions(refs, seed=seed)], model_name=f"Hidden {seed}")
    url = "/api/v1/benchmarks/jamendo-mt-qa/full/heatmap?metric=diag:nonexistent"
    public = Client().get(url).json()["model_agreement"]
    assert public["matrix"] == [] and "maintainers" in public["withheld"]
    staff = Client()
    staff.force_login(maintainer)
    shown = staff.get(url).json()["model_agreement"]
    assert len(shown["matrix"]) == 3 and shown["metric"] == "yes_no_accuracy"  # unknown metric -> sort column


@pytest.mark.django_db
def test_an_entry_without_stored_vectors_neither_breaks_the_page_nor_puts_nan_in_json(three_rankers, dialbgm_split):
    """Seen under load: an entry whose vectors are absent made the no-JS heatmap tables raise (NaN counts)."""
    import json

    first = Client().get(HEATMAP).json()
    entry = Submission.objects.get(uid=first["entries"][1])
    entry.vectors.all().delete()
    leaderboard_changed(dialbgm_split.pk)
    page = Client().get("/b/dialbgm/test/")
    assert page.status_code == 200
    raw = Client().get(HEATMAP).content

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    data = json.loads(raw, parse_constant=refuse)
    assert data["model_agreement"]["items"][1] == [0, 0, 0]
    assert data["model_agreement"]["matrix"][1] == [None, None, None]
