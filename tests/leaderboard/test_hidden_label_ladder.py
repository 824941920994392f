"""The Ladder against its owner's own probes: two files that differ in one item.

On a hidden DialBGM split of 60 items (rounding step 0.1), base A ranks 33 items' gold first (0.55,
shown 0.6) and probe B is A with one item wrong (32 right: 0.533, rounded 0.5). Only "not better" or
"one step better" may ever be learnt about B: never its 0.5, which would say that the changed item
was right in A. Every place the owner reads their entries follows the Ladder, and a value, once
judged, is never judged again whatever the order entries are scored in.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from leaderboard.models import Status, Submission
from leaderboard.services.pipeline.steps import submission_rescore
from tests.helpers.datagen import dialbgm_references
from tests.helpers.site import upload, upload_scored

pytestmark = pytest.mark.django_db
KEY = "hit_at_1"


def _ranked(ref: dict[str, Any], *, right: bool) -> dict[str, Any]:
    order = ref["gold_ranking"] if right else ref["gold_ranking"][::-1]
    return {"id": ref["id"], "scores": {c: len(order) - order.index(c) for c in ref["candidates"]}}


def _run(refs: list[dict[str, Any]], right: int) -> list[dict[str, Any]]:
    return [_ranked(ref, right=i < right) for i, ref in enumerate(refs)]


def _owner_sees(owner: Any, submission: Submission) -> Any:
    client = Client()
    client.force_login(owner)
    return client.get(f"/api/v1/submissions/{submission.uid}").json()["metrics"][KEY]["value"]


@pytest.fixture
def world(make_split: Any, no_bertscore: Any) -> tuple[Any, list[dict[str, Any]]]:
    refs = dialbgm_references(60, seed=3, prefix="ladder")
    return make_split("dialbgm", "hidden-ladder", refs, hidden=True), refs


@pytest.fixture
def base_and_probe(world: Any, alice: Any, django_capture_on_commit_callbacks: Any) -> tuple[Submission, Submission]:
    split, refs = world
    capture = django_capture_on_commit_callbacks
    return (upload_scored(alice, split, [_run(refs, 33)], capture, model_name="Base A"),
            upload_scored(alice, split, [_run(refs, 32)], capture, model_name="Probe B"))


def test_the_owners_list_of_submissions_shows_not_above_best_where_the_ladder_withholds(
        base_and_probe: tuple[Submission, Submission], alice: Any) -> None:
    a, b = base_and_probe
    assert b.metric_values.get(key=KEY, current=True).value == pytest.approx(32 / 60)  # rounded: 0.5
    assert (_owner_sees(alice, a), _owner_sees(alice, b)) == (0.6, None)
    client = Client()
    client.force_login(alice)
    page = client.get("/submissions/").content.decode()
    rows = dict(re.findall(r'href="/s/([0-9a-f-]+)/">.*?<td class="scores">(.*?)</td>', page, re.S))
    text = {uid: " ".join(re.sub(r"<[^>]+>", " ", cells).split()) for uid, cells in rows.items()}
    assert "Hit@1 0.6000" in text[str(a.uid)]
    assert "Hit@1 not above best" in text[str(b.uid)]
    assert "0.5000" not in text[str(b.uid)].split("·")[0]


def test_an_earlier_upload_scored_later_never_withdraws_a_value_already_shown(
        world: Any, alice: Any, django_capture_on_commit_callbacks: Any) -> None:
    split, refs = world
    with django_capture_on_commit_callbacks(execute=False) as pending:  # A waits for a worker
        response = upload(alice, split, [_run(refs, 33)], model_name="Base A")
    a = Submission.objects.get(uid=response.json()["id"])
    b = upload_scored(alice, split, [_run(refs, 32)], django_capture_on_commit_callbacks, model_name="Probe B")
    shown_b = _owner_sees(alice, b)
    assert shown_b == 0.5  # the account's first value in the column
    with django_capture_on_commit_callbacks(execute=True):
        for callback in pending:
            callback()
    a.refresh_from_db()
    assert a.status == Status.SCORED
    assert _owner_sees(alice, b) == shown_b  # judged once, in the order the values were stored
    assert _owner_sees(alice, a) == 0.6  # one step better: the Ladder's one bit


def test_a_rescore_taking_the_best_entry_off_the_board_releases_nothing_new(
        base_and_probe: tuple[Submission, Submission], alice: Any, django_capture_on_commit_callbacks: Any) -> None:
    a, b = base_and_probe
    with django_capture_on_commit_callbacks(execute=False):
        submission_rescore(a.pk)
    a.refresh_from_db()
    assert a.status == Status.UPLOADED
    assert _owner_sees(alice, b) is None
