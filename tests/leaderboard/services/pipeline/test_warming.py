"""A split's BERTScore reference embeddings are encoded when its references are imported (tasks run eagerly),
in steps, so that its first submission encodes only its own answers and scores as it would have anyway."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from celery import current_app
from django.conf import settings

from leaderboard.services.pipeline import warming
from leaderboard.services.references import benchmarks
from leaderboard.services.shared import scorers
from scoring.metrics.bertscore.store import EmbeddingStore, open_store
from tests.helpers.datagen import jamendo_predictions, jamendo_references
from tests.helpers.site import upload_scored

pytestmark = pytest.mark.django_db
REFS = jamendo_references(12, seed=21)  # 36 items, 12 of them sentences (the items BERTScore scores)


@pytest.fixture
def own_store(settings: Any, tmp_path: Any) -> Iterator[str]:
    """The site's embedding store in a file of this test's own, warming on."""
    path = str(tmp_path / "embeddings.sqlite3")
    settings.LEADERBOARD = {**settings.LEADERBOARD, "BERTSCORE_STORE": path, "BERTSCORE_WARM": True}
    scorers._bertscore_config.cache_clear()  # the site's config names the store
    yield path
    scorers._bertscore_config.cache_clear()


def _site_store(path: str) -> EmbeddingStore:
    """The process-wide store the site's scorers use (opened under the site's bound)."""
    store = open_store(path, settings.LEADERBOARD["BERTSCORE_STORE_MB"])
    assert store is not None
    return store


@pytest.mark.slow
def test_an_import_encodes_the_references_in_steps_and_the_first_submission_reads_them(
    alice, make_split, own_store, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    monkeypatch.setattr(warming, "WARM_STEP", 10)
    steps: list[tuple[int, int]] = []
    real = warming.split_embeddings_warm

    def recording(split_id: int, start: int, sha: str) -> int:
        encoded = real(split_id, start, sha)
        steps.append((start, encoded))
        return encoded

    monkeypatch.setattr(warming, "split_embeddings_warm", recording)
    with django_capture_on_commit_callbacks(execute=True):
        split = make_split("jamendo-mt-qa", "full", REFS)
    sentences = {r["answer"] for r in REFS if r["qa_type"] == "sentence"}
    per_step = [len({r["answer"] for r in REFS[s : s + 10] if r["qa_type"] == "sentence"}) for s in (0, 10, 20, 30)]
    assert sorted(steps) == list(zip((0, 10, 20, 30), per_step))  # eager: each step runs inside the one before
    assert sum(per_step) == len(sentences)
    store = _site_store(own_store)
    assert len(store) == len(sentences)

    misses, hits = store.misses, store.hits
    upload_scored(alice, split, [jamendo_predictions(REFS, seed=5)], django_capture_on_commit_callbacks,
                  model_name="Warmed")
    assert store.misses == misses  # not one reference encoded by the submission
    assert store.hits - hits == len(sentences)


@pytest.mark.slow
def test_warmed_or_not_a_submission_scores_the_same(alice, make_split, own_store, settings,
                                                      django_capture_on_commit_callbacks) -> None:
    predictions = [jamendo_predictions(REFS, seed=6)]
    settings.LEADERBOARD = {**settings.LEADERBOARD, "BERTSCORE_STORE": ""}
    scorers._bertscore_config.cache_clear()
    cold_split = make_split("jamendo-mt-qa", "full", REFS)
    cold = upload_scored(alice, cold_split, predictions, django_capture_on_commit_callbacks, model_name="Cold")
    settings.LEADERBOARD = {**settings.LEADERBOARD, "BERTSCORE_STORE": own_store}
    scorers._bertscore_config.cache_clear()
    with django_capture_on_commit_callbacks(execute=True):
        split = make_split("jamendo-mt-qa", "warmed", REFS)
    assert len(_site_store(own_store)) > 0
    warm = upload_scored(alice, split, predictions, django_capture_on_commit_callbacks, model_name="Warm")
    keys = [k for k in cold.report["metrics"] if k.startswith("bertscore")]
    assert keys
    for key in keys:
        assert warm.report["metrics"][key] == pytest.approx(cold.report["metrics"][key], abs=1e-6)
    assert warm.report["signatures"] == cold.report["signatures"]


def test_a_step_for_references_since_replaced_does_nothing(make_split, own_store) -> None:
    split = make_split("jamendo-mt-qa", "full", REFS)
    assert warming.split_embeddings_warm(split.pk, 0, "0" * 64) == 0
    assert warming.split_embeddings_warm(split.pk + 1000, 0, split.references_sha256) == 0
    assert len(_site_store(own_store)) == 0


def test_nothing_is_queued_when_warming_is_off_or_the_benchmark_has_no_bertscore(
    make_split, dialbgm_refs, own_store, settings, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    sent: list[tuple[Any, ...]] = []
    monkeypatch.setattr(benchmarks, "queue_send", lambda *args, **kwargs: sent.append(args) or True)
    with django_capture_on_commit_callbacks(execute=True):
        make_split("dialbgm", "test", dialbgm_refs)  # ranking only
    settings.LEADERBOARD = {**settings.LEADERBOARD, "BERTSCORE_WARM": False}
    with django_capture_on_commit_callbacks(execute=True):
        make_split("jamendo-mt-qa", "full", REFS)
    assert sent == []
    settings.LEADERBOARD = {**settings.LEADERBOARD, "BERTSCORE_WARM": True}
    with django_capture_on_commit_callbacks(execute=True):
        split = make_split("jamendo-mt-qa", "other", REFS)
    assert sent == [(benchmarks.WARM_TASK, split.pk, 0, split.references_sha256)]


def test_a_broker_that_refuses_the_step_is_logged_as_what_it_costs(make_split, own_store, monkeypatch, caplog,
                                                                   django_capture_on_commit_callbacks) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("broker down")

    monkeypatch.setattr(current_app.tasks[f"leaderboard.tasks.{benchmarks.WARM_TASK}"], "delay", refuse)
    with caplog.at_level(logging.ERROR), django_capture_on_commit_callbacks(execute=True):
        split = make_split("jamendo-mt-qa", "full", REFS)  # the import itself succeeds
    assert split.n_items == len(REFS)
    assert "the split's first submission encodes the rest of its references" in caplog.text
    assert "sweeper" not in caplog.text
