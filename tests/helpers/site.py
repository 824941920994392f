"""Helpers shared by the site tests: API clients and uploads."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, TestCase, override_settings

from leaderboard.models import ApiToken, Split, Status, Submission


def client_for(user: Any) -> Client:
    _, raw = ApiToken.issue(user)
    return Client(HTTP_AUTHORIZATION=f"Token {raw}")


def upload(user: Any, split: Split, runs: list[Any], **metadata: Any) -> Any:
    """POST runs (lists of records or raw bytes) as multipart to the submission API."""
    files = []
    for i, run in enumerate(runs, start=1):
        data = run if isinstance(run, bytes) else "".join(json.dumps(r) + "\n" for r in run).encode()
        files.append(SimpleUploadedFile(f"run{i}.jsonl", data))
    url = f"/api/v1/benchmarks/{split.benchmark.name}/{split.name}/submissions"
    return client_for(user).post(url, {**metadata, "predictions": files})


def upload_scored(user: Any, split: Split, runs: list[Any], capture: Any, **metadata: Any) -> Submission:
    """Upload ``runs`` with the on-commit work run in-process (``capture`` is the
    ``django_capture_on_commit_callbacks`` fixture); the entry, accepted (201) and scored."""
    with capture(execute=True):
        response = upload(user, split, runs, **metadata)
    assert response.status_code == 201, response.content
    submission = Submission.objects.get(uid=response.json()["id"])
    assert submission.status == Status.SCORED, (submission.status_detail, submission.problems)
    return submission


@contextmanager
def bertscore_off() -> Iterator[None]:
    """BERTScore off on the site while the block runs (the ``no_bertscore`` fixture, for wider scopes)."""
    from leaderboard.services.boards.labels import configured_bertscore
    from leaderboard.services.shared.scorers import _bertscore_config

    with override_settings(LEADERBOARD={**settings.LEADERBOARD, "BERTSCORE": False}):
        _bertscore_config.cache_clear()
        configured_bertscore.cache_clear()
        try:
            yield
        finally:
            _bertscore_config.cache_clear()
            configured_bertscore.cache_clear()  # the boards' protocol of a column without entries


def on_commit_run() -> Any:
    """Run the on-commit work registered inside the block when it ends (``django_capture_on_commit_callbacks``
    with ``execute=True``, for fixtures wider than one test)."""
    return TestCase.captureOnCommitCallbacks(execute=True)
