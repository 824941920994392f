"""A submission's progress: the stage as the pipeline moves, the estimate of time left from measured throughput
(entry page with and without JavaScript, the API), and the owner's opt-in e-mail when a submission ends."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

import leaderboard.tasks  # noqa: F401  (registers the tasks the pipeline sends by name)
from leaderboard.models import AccountSettings, Status, Submission
from leaderboard.services.pipeline import leases, progress
from leaderboard.services.pipeline import steps as pipeline
from leaderboard.services.pipeline.progress import submission_eta_seconds
from tests.helpers.datagen import jamendo_predictions, jamendo_references
from tests.helpers.site import upload

pytestmark = pytest.mark.django_db
SMALL = jamendo_references(6, seed=4)  # 18 items: BERTScore chunks of 5 -> four chunks


@pytest.fixture
def small_split(make_split: Any) -> Any:
    return make_split("jamendo-mt-qa", "full", SMALL)


def _upload(user: Any, split: Any, runs: list[Any], capture: Any, **metadata: Any) -> Submission:
    with capture(execute=True):
        response = upload(user, split, runs, **metadata)
    return Submission.objects.get(uid=response.json()["id"])


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The progress module's clock, set by the test: ``clock.at = <unix seconds>``."""
    class Clock:
        at = 1240.0

        def now(self) -> datetime:
            return datetime.fromtimestamp(self.at, tz=UTC)

    found = Clock()
    monkeypatch.setattr(progress, "timezone", found)
    return found


def _opt_in(user: Any, email: str) -> None:
    get_user_model().objects.filter(pk=user.pk).update(email=email)
    AccountSettings.objects.create(user=user, email_on_end=True)


# --- the stage and the estimate during a real (eager) scoring --------------------------------------------


@pytest.mark.slow
def test_stages_and_estimate_seen_while_scoring_in_chunks(alice, small_split, settings, monkeypatch,
                                                          django_capture_on_commit_callbacks):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 5}
    seen: list[tuple[str, str, int | None]] = []
    real_update = pipeline._update

    def watching(submission: Submission, owner: str, **fields: Any) -> None:
        real_update(submission, owner, **fields)
        stored = Submission.objects.get(pk=submission.pk)
        state = (stored.progress.get("stage", ""), stored.progress.get("detail", ""), submission_eta_seconds(stored))
        if not seen or seen[-1] != state:
            seen.append(state)

    monkeypatch.setattr(pipeline, "_update", watching)
    monkeypatch.setattr(leases, "lease_update", watching)  # what lease_release writes through
    submission = _upload(alice, small_split, [jamendo_predictions(SMALL, seed=1)],
                         django_capture_on_commit_callbacks, model_name="Watched")
    assert submission.status == Status.SCORED, submission.status_detail

    stages = [(stage, detail) for stage, detail, _ in seen]
    deduped = [s for i, s in enumerate(stages) if i == 0 or stages[i - 1] != s]
    assert deduped == [
        ("validating", "Validating the files."),
        ("queued", "Waiting for a scoring worker."),
        ("light_metrics", "Starting."),
        *[("bertscore", f"BERTScore chunk {k} of 4") for k in (1, 2, 3, 4)],
        ("aggregating", "Computing aggregates and intervals."),
    ]
    etas = [eta for _, detail, eta in seen]
    first_number = next(i for i, eta in enumerate(etas) if eta is not None)
    assert all(eta is None for eta in etas[:first_number])
    assert seen[first_number][1] == "BERTScore chunk 1 of 4"  # after the first chunk: two points
    assert all(isinstance(eta, int) and eta >= 0 for eta in etas[first_number:-1])
    assert etas[-1] is None  # scored: nothing left to estimate

    body = Client().get(f"/api/v1/submissions/{submission.uid}").json()
    assert (body["stage"], body["stage_detail"], body["eta_seconds"]) == ("scored", "", None)


def test_estimate_is_items_left_over_measured_items_per_second(alice, small_split, clock):
    submission = Submission.objects.create(split=small_split, user=alice, model_name="M", status=Status.SCORING,
                                           progress_total=5040, progress_done=700)
    submission.progress = {"stage": "bertscore", "detail": "BERTScore chunk 3 of 12", "points": [[1000.0, 100]]}
    assert submission_eta_seconds(submission) is None  # one point
    submission.progress["points"] = [[1000.0, 100], [1240.0, 100]]
    assert submission_eta_seconds(submission) is None  # no item done between the points
    submission.progress["points"] = [[1000.0, 100], [1240.0, 700]]
    rate = (700 - 100) / (1240.0 - 1000.0)  # 2.5 items a second
    assert submission_eta_seconds(submission) == round((5040 - 700) / rate) == 1736
    clock.at = 1240.0 + 61.4  # counting down between points, not in steps of a chunk
    assert submission_eta_seconds(submission) == round((5040 - 700) / rate - 61.4) == 1675
    clock.at = 1240.0 + 5000
    assert submission_eta_seconds(submission) == 0  # late: never negative
    submission.status = Status.FAILED
    assert submission_eta_seconds(submission) is None


def test_no_estimate_and_no_repeated_line_while_aggregating(alice, small_split, clock):
    submission = Submission.objects.create(
        split=small_split, user=alice, model_name="Almost", status=Status.AGGREGATING, progress_total=36,
        progress_done=36, status_detail="Computing aggregates and intervals.",
        progress={"stage": "aggregating", "detail": "Computing aggregates and intervals.",
                  "points": [[1000.0, 0], [1009.0, 36]]})
    assert submission_eta_seconds(submission) is None  # all items scored: no "about 0 s left"
    page = Client().get(f"/s/{submission.uid}/").content.decode()
    assert '<p id="stage-detail"><span id="eta"></span></p>' in page  # the status detail says it once
    assert page.count("Computing aggregates and intervals.") == 1
    submission.progress["stage"] = "bertscore"
    assert submission_eta_seconds(submission) == 0  # the last chunk stored, aggregation not begun


def test_entry_page_and_api_show_stage_detail_and_time_left(alice, small_split, clock):
    submission = Submission.objects.create(
        split=small_split, user=alice, model_name="Busy", status=Status.SCORING, progress_total=5040,
        progress_done=700,
        progress={"stage": "bertscore", "detail": "BERTScore chunk 3 of 12", "points": [[1000.0, 100], [1240.0, 700]]})
    body = Client().get(f"/api/v1/submissions/{submission.uid}").json()
    assert (body["stage"], body["stage_detail"], body["eta_seconds"]) == ("bertscore", "BERTScore chunk 3 of 12", 1736)
    page = Client().get(f"/s/{submission.uid}/").content.decode()
    assert "BERTScore chunk 3 of 12" in page and "about 28 min 56 s left" in page  # 1736 s, read without JS


# --- the e-mail when a submission ends -------------------------------------------------------------------------


@pytest.mark.slow
def test_owner_who_opted_in_gets_one_mail_when_scored(alice, bob, small_split, settings,
                                                      django_capture_on_commit_callbacks):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 5}
    settings.SITE_URL = "https://music.example.org/"
    _opt_in(alice, "alice@example.org")
    _opt_in(bob, "bob@example.org")
    submission = _upload(alice, small_split, [jamendo_predictions(SMALL, seed=1)],
                         django_capture_on_commit_callbacks, model_name="Mailed")
    assert submission.status == Status.SCORED
    with django_capture_on_commit_callbacks(execute=True):
        pipeline.submission_score(submission.pk)  # a duplicate delivery
        pipeline.submission_fail(submission.pk, "late")  # refused: it is scored
    assert [m.to for m in mail.outbox] == [["alice@example.org"]]
    assert "Mailed" in mail.outbox[0].subject and "scored" in mail.outbox[0].subject
    assert f"\nhttps://music.example.org/s/{submission.uid}/\n" in mail.outbox[0].body  # a link that opens


def test_owner_who_opted_in_gets_one_mail_when_invalid(alice, small_split, django_capture_on_commit_callbacks):
    _opt_in(alice, "alice@example.org")
    submission = _upload(alice, small_split, [b"this is not json\n"], django_capture_on_commit_callbacks,
                         model_name="Broken")
    assert submission.status == Status.INVALID
    with django_capture_on_commit_callbacks(execute=True):
        pipeline.submission_validate(submission.pk)
    assert [m.to for m in mail.outbox] == [["alice@example.org"]]
    assert "invalid" in mail.outbox[0].subject and "problem(s) found" in mail.outbox[0].body


def test_owner_who_opted_in_gets_one_mail_when_failed_even_if_failed_again(alice, small_split,
                                                                           django_capture_on_commit_callbacks):
    _opt_in(alice, "alice@example.org")
    submission = Submission.objects.create(split=small_split, user=alice, model_name="Doomed", status=Status.SCORING)
    with django_capture_on_commit_callbacks(execute=True):
        pipeline.submission_fail(submission.pk, "The scoring worker was lost 3 times.")
    with django_capture_on_commit_callbacks(execute=True):
        pipeline.submission_fail(submission.pk, "The scoring worker was lost 3 times.")
    assert [m.to for m in mail.outbox] == [["alice@example.org"]]
    assert "failed" in mail.outbox[0].subject and "lost 3 times" in mail.outbox[0].body


@pytest.mark.slow  # scores with BERTScore: loads the model (about 3 s)
def test_no_mail_without_the_opt_in(alice, small_split, settings, django_capture_on_commit_callbacks):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 5}
    get_user_model().objects.filter(pk=alice.pk).update(email="alice@example.org")
    AccountSettings.objects.create(user=alice, email_on_end=False)
    scored = _upload(alice, small_split, [jamendo_predictions(SMALL, seed=1)], django_capture_on_commit_callbacks,
                     model_name="Quiet")
    invalid = _upload(alice, small_split, [b"nope\n"], django_capture_on_commit_callbacks, model_name="Quiet bad")
    failing = Submission.objects.create(split=small_split, user=alice, model_name="Quiet fail", status=Status.QUEUED)
    with django_capture_on_commit_callbacks(execute=True):
        pipeline.submission_fail(failing.pk, "gave up")
    assert (scored.status, invalid.status) == (Status.SCORED, Status.INVALID)
    assert mail.outbox == []


def test_account_page_checkbox_turns_the_mail_on_and_off(alice):
    client = Client()
    client.force_login(alice)
    assert 'id="email-on-end"' in client.get("/accounts/tokens/").content.decode()
    client.post("/accounts/tokens/", {"mail_settings": "1", "email_on_end": "on"})
    assert AccountSettings.objects.get(user=alice).email_on_end
    assert "checked" in client.get("/accounts/tokens/").content.decode()
    client.post("/accounts/tokens/", {"mail_settings": "1"})
    assert not AccountSettings.objects.get(user=alice).email_on_end


def test_entry_page_turns_the_mail_on_and_comes_back(alice, bob, small_split):
    submission = Submission.objects.create(split=small_split, user=alice, model_name="Waiting", status=Status.QUEUED)
    client = Client()
    client.force_login(alice)
    page = client.get(f"/s/{submission.uid}/").content.decode()
    assert 'id="end-mail"' in page and f'name="next" value="/s/{submission.uid}/#messages"' in page
    back = client.post("/accounts/tokens/", {"mail_settings": "1", "email_on_end": "on",
                                             "next": f"/s/{submission.uid}/#messages"})
    assert (back.status_code, back["Location"]) == (302, f"/s/{submission.uid}/#messages")
    assert AccountSettings.objects.get(user=alice).email_on_end
    assert 'id="end-mail-on" checked' in client.get(f"/s/{submission.uid}/").content.decode()
    away = client.post("/accounts/tokens/", {"mail_settings": "1", "next": "https://elsewhere.example/"})
    assert (away.status_code, away["Location"]) == (302, "/accounts/tokens/")  # never off the site
    assert not AccountSettings.objects.get(user=alice).email_on_end
    assert "<title>API tokens</title>" in client.get("/accounts/tokens/").content.decode()
    other = Client()
    other.force_login(bob)  # someone else's entry: no control
    assert 'id="end-mail"' not in other.get(f"/s/{submission.uid}/").content.decode()
    Submission.objects.filter(pk=submission.pk).update(status=Status.SCORED)
    assert 'id="end-mail"' not in client.get(f"/s/{submission.uid}/").content.decode()  # ended: nothing to wait for


@pytest.mark.slow
def test_heavy_queue_workers_report_bertscore_chunks_done(alice, small_split, settings, monkeypatch,
                                                          django_capture_on_commit_callbacks):
    from leaderboard.services.pipeline import heavy

    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 5, "SCORING_HEAVY_QUEUE": "gpu"}
    seen: list[tuple[str, str, int]] = []
    real_store = heavy.submission_progress_store

    def watching(submission_id: int, done: int, stage: str, detail: str) -> None:
        real_store(submission_id, done, stage, detail)
        stored = Submission.objects.get(pk=submission_id)
        seen.append((stored.progress["stage"], stored.progress["detail"], stored.progress_done))

    monkeypatch.setattr(heavy, "submission_progress_store", watching)
    submission = _upload(alice, small_split, [jamendo_predictions(SMALL, seed=1)],
                         django_capture_on_commit_callbacks, model_name="On the GPU")
    assert submission.status == Status.SCORED, submission.status_detail
    # 18 light items first, then each heavy chunk's items (5, 5, 5, 3) on top
    assert seen == [("bertscore", f"BERTScore chunk {k} of 4 done", 18 + min(5 * k, 18)) for k in (1, 2, 3, 4)]


@pytest.mark.slow
def test_a_rescored_submission_mails_its_owner_again_when_it_ends(alice, small_split, settings,
                                                                  django_capture_on_commit_callbacks):
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_CHUNK_SIZE": 5}
    _opt_in(alice, "alice@example.org")
    submission = _upload(alice, small_split, [jamendo_predictions(SMALL, seed=1)],
                         django_capture_on_commit_callbacks, model_name="Twice mailed")
    with django_capture_on_commit_callbacks(execute=True):
        pipeline.submission_rescore(submission.pk)
    submission.refresh_from_db()
    assert submission.status == Status.SCORED
    assert [m.to for m in mail.outbox] == [["alice@example.org"], ["alice@example.org"]]
