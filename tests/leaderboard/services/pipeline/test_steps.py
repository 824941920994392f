"""The pipeline's recovery paths: idempotent steps, resumption, the sweeper, visible failures."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from leaderboard.models import ItemScore, Status, Submission
from leaderboard.services.boards import leaderboards
from leaderboard.services.pipeline import steps as pipeline
from leaderboard.services.shared.blobs import blob_path
from tests.helpers.datagen import dialbgm_predictions, jamendo_predictions
from tests.helpers.reports import assert_same_values
from tests.helpers.site import client_for, upload, upload_scored

pytestmark = pytest.mark.django_db


def test_running_a_step_again_changes_nothing(alice, dialbgm_split, dialbgm_refs, django_capture_on_commit_callbacks):
    submission = upload_scored(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)],
                               django_capture_on_commit_callbacks, model_name="Twice")
    rows = list(ItemScore.objects.filter(submission=submission).order_by("index").values_list("index", "values"))
    pipeline.submission_validate(submission.pk)
    pipeline.submission_score(submission.pk)
    submission.refresh_from_db()
    assert submission.status == Status.SCORED
    after = ItemScore.objects.filter(submission=submission).order_by("index").values_list("index", "values")
    assert list(after) == rows


@pytest.mark.slow
def test_resumed_scoring_fills_only_the_missing_chunks(alice, jamendo_split, jamendo_refs, settings,
                                                       django_capture_on_commit_callbacks):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 25}
    submission = upload_scored(alice, jamendo_split, [jamendo_predictions(jamendo_refs)],
                               django_capture_on_commit_callbacks, model_name="Resumed")
    report = submission.report
    kept = set(ItemScore.objects.filter(submission=submission).exclude(index__range=(25, 49))
               .values_list("pk", flat=True))
    ItemScore.objects.filter(submission=submission, index__range=(25, 49)).delete()  # a lost chunk
    Submission.objects.filter(pk=submission.pk).update(status=Status.SCORING, lease_owner="", lease_until=None)
    pipeline.submission_score(submission.pk)
    submission.refresh_from_db()
    assert submission.status == Status.SCORED
    rows = ItemScore.objects.filter(submission=submission)
    assert rows.count() == len(jamendo_refs)
    assert kept <= set(rows.values_list("pk", flat=True))  # stored chunks were not rewritten
    assert_same_values(submission.report["metrics"], report["metrics"])
    assert_same_values(submission.report["ci95"], report["ci95"])


def test_sweeper_requeues_a_lost_worker_then_gives_up(alice, dialbgm_split, dialbgm_refs, settings,
                                                      django_capture_on_commit_callbacks):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "MAX_ATTEMPTS": 2}
    lost = upload_scored(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)], django_capture_on_commit_callbacks,
                         model_name="Lost once")
    doomed = upload_scored(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs, seed=2)],
                           django_capture_on_commit_callbacks, model_name="Lost twice")
    long_ago = timezone.now() - timedelta(hours=1)
    Submission.objects.filter(pk=lost.pk).update(status=Status.SCORING, attempts=1, updated_at=long_ago,
                                                 lease_owner="dead", lease_until=long_ago)
    Submission.objects.filter(pk=doomed.pk).update(status=Status.SCORING, attempts=2, updated_at=long_ago,
                                                   lease_owner="dead", lease_until=long_ago)
    assert pipeline.submissions_sweep() == {"requeued": 1, "failed": 1}
    lost.refresh_from_db()
    doomed.refresh_from_db()
    assert lost.status == Status.SCORED  # the re-queued task ran (eagerly here) and finished
    assert doomed.status == Status.FAILED and "worker was lost" in doomed.status_detail


def test_work_nobody_picks_up_fails_visibly(alice, dialbgm_split, dialbgm_refs):
    response = upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)], model_name="Orphan")
    submission = Submission.objects.get(uid=response.json()["id"])  # on_commit never ran: nothing was queued
    old = timezone.now() - timedelta(days=2)
    Submission.objects.filter(pk=submission.pk).update(created_at=old, updated_at=old)
    pipeline.submissions_sweep()
    submission.refresh_from_db()
    assert submission.status == Status.FAILED
    assert "did not count against your quota" in submission.status_detail


def test_internal_error_is_visible_and_the_traceback_stays_private(alice, jamendo_split, jamendo_refs,
                                                                   django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = upload(alice, jamendo_split, [jamendo_predictions(jamendo_refs)], model_name="Disk lost")
    submission = Submission.objects.get(uid=response.json()["id"])
    pipeline.submission_validate(submission.pk)
    blob_path(submission.runs.get().sha256).unlink()  # the stored file vanished before scoring
    from leaderboard.tasks import score_submission

    score_submission.apply(args=[submission.pk])
    submission.refresh_from_db()
    assert submission.status == Status.FAILED
    assert "internal error" in submission.status_detail and "FileNotFoundError" in submission.status_detail
    assert "Traceback" in submission.internal_error
    shown = client_for(alice).get(f"/api/v1/submissions/{submission.uid}").content.decode()
    assert "Traceback" not in shown and str(blob_path(submission.runs.get().sha256)) not in shown
    assert len(callbacks) == 1


def test_rescoring_takes_the_entry_off_the_cached_board_untilupload_scored(alice, dialbgm_split, dialbgm_refs,
                                                                           django_capture_on_commit_callbacks):
    submission = upload_scored(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs)],
                               django_capture_on_commit_callbacks, model_name="Rescored")
    assert [r.entry.model_name for r in leaderboards.build(dialbgm_split, None, {}).rows] == ["Rescored"]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        pipeline.submission_rescore(submission.pk)
    callbacks[0]()  # the cache invalidation; the re-validation stays queued
    assert leaderboards.build(dialbgm_split, None, {}).rows == []
    with django_capture_on_commit_callbacks(execute=True):  # validation queues scoring in turn
        for callback in callbacks[1:]:
            callback()
    submission.refresh_from_db()
    assert submission.status == Status.SCORED
    assert [r.entry.model_name for r in leaderboards.build(dialbgm_split, None, {}).rows] == ["Rescored"]
