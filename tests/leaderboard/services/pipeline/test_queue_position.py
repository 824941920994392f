"""A waiting submission's place: its lane, the submissions and items ahead of it there, and the wait at the
throughput of the last scored submissions; on the entry page, in the API and in the CLI's progress line."""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from leaderboard.models import HeavyChunk, Status, Submission
from leaderboard.services.pipeline.queue_position import submission_queue_place
from scoring.site.site_cli import ProgressBar
from tests.helpers.datagen import jamendo_references

pytestmark = pytest.mark.django_db
REFS = jamendo_references(4, seed=2)  # 12 items


@pytest.fixture
def split(make_split: Any) -> Any:
    return make_split("jamendo-mt-qa", "full", REFS)


def _submission(split: Any, user: Any, name: str, status: str, *, minutes_ago: float, total: int = 0,
                done: int = 0, lease: str = "") -> Submission:
    submission = Submission.objects.create(split=split, user=user, model_name=name, status=status,
                                           progress_total=total, progress_done=done, lease_owner=lease)
    Submission.objects.filter(pk=submission.pk).update(created_at=timezone.now() - timedelta(minutes=minutes_ago))
    submission.refresh_from_db()
    return submission


def test_places_in_the_validation_and_scoring_lanes(split, alice, bob):
    scoring = _submission(split, alice, "Scoring", Status.SCORING, minutes_ago=9, total=5000, done=1000, lease="w1")
    _submission(split, bob, "Queued 1", Status.QUEUED, minutes_ago=8, total=2000)
    second = _submission(split, alice, "Queued 2", Status.QUEUED, minutes_ago=7, total=12)
    uploaded = [_submission(split, bob, f"Up {i}", Status.UPLOADED, minutes_ago=5 - i) for i in range(3)]
    assert submission_queue_place(scoring) is None  # a worker holds it
    place = submission_queue_place(second)
    assert place is not None
    assert (place.lane, place.position, place.submissions_ahead, place.items_ahead, place.wait_seconds) == (
        "scoring", 3, 2, 4000 + 2000, None)  # nothing scored yet: no throughput to estimate from
    assert place.text() == "3rd in the scoring lane: 2 submissions (6,000 items) ahead"
    places = [submission_queue_place(s) for s in uploaded]
    assert [(p.lane, p.position, p.items_ahead) for p in places if p] == [
        ("validation", 1, 0), ("validation", 2, 12), ("validation", 3, 24)]  # 12 items a run not yet read
    assert places[0] is not None and places[0].text() == "1st in the validation lane: nothing ahead"

    done = _submission(split, bob, "Done", Status.SCORED, minutes_ago=20, total=600)
    finished = timezone.now()
    Submission.objects.filter(pk=done.pk).update(
        finished_at=finished, progress={"points": [[finished.timestamp() - 120.0, 0], [finished.timestamp(), 600]]})
    place = submission_queue_place(second)  # 600 items in 120 s: 5 a second
    assert place is not None and place.wait_seconds == round(6000 / 5) == 1200
    assert place.text() == "3rd in the scoring lane: 2 submissions (6,000 items) ahead, about 20 min 0 s"


def test_place_in_the_heavy_lane(split, alice, bob):
    earlier = _submission(split, alice, "Earlier", Status.SCORING, minutes_ago=5, total=24, done=12)
    later = _submission(split, bob, "Later", Status.SCORING, minutes_ago=4, total=24, done=12)
    for submission, starts in ((earlier, (0, 6)), (later, (0, 6))):
        for start in starts:
            HeavyChunk.objects.create(submission=submission, run=1, start=start, stop=start + 6, queue="gpu")
    place = submission_queue_place(later)
    assert place is not None and (place.lane, place.position, place.submissions_ahead, place.items_ahead) == (
        "heavy", 2, 1, 12)
    HeavyChunk.objects.filter(submission=earlier).update(status=HeavyChunk.DONE)
    place = submission_queue_place(later)
    assert place is not None and (place.position, place.items_ahead) == (1, 0)


def test_page_api_and_cli_show_the_place(split, alice, bob):
    _submission(split, alice, "Ahead", Status.QUEUED, minutes_ago=3, total=500)
    waiting = _submission(split, bob, "Waiting", Status.QUEUED, minutes_ago=1, total=12)
    body = Client().get(f"/api/v1/submissions/{waiting.uid}").json()
    text = "2nd in the scoring lane: 1 submission (500 items) ahead"
    assert body["queue"] == {"lane": "scoring", "position": 2, "ahead": {"submissions": 1, "items": 500},
                             "wait_seconds": None, "text": text}
    page = Client().get(f"/s/{waiting.uid}/").content.decode()
    assert f'<p id="queue-place" class="meta">{text[0].upper() + text[1:]}.</p>' in page
    out = io.StringIO()
    ProgressBar(out).show(body)
    assert text in out.getvalue() and out.getvalue().startswith("queued")
    out = io.StringIO()
    ProgressBar(out).show({"status": "scoring", "progress": {"done": 6, "total": 12}, "queue": None,
                        "stage_detail": "BERTScore chunk 2 of 3", "eta_seconds": 75})
    assert "6/12 items  BERTScore chunk 2 of 3 (about 1 min 15 s left)" in out.getvalue()
