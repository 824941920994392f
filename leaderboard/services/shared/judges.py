"""Judges for this site: ``JUDGES_FILE`` (TOML, see scoring/judge/config.py), a reply cache in the
database, and a per-submission budget that counts what earlier attempts already spent."""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection

from leaderboard.models import JudgeReply, Submission


class DatabaseJudgeCache:
    """The judge reply cache as rows: shared by every worker, kept across re-scores."""

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            row = JudgeReply.objects.filter(key=key).values_list("record", flat=True).first()
        finally:
            _release_thread_connection()
        return row

    def put(self, key: str, record: dict[str, Any]) -> None:
        try:
            JudgeReply.objects.create(key=key, model=str(record.get("model", "")), record=record)
        except IntegrityError:
            pass  # another worker stored the same reply first
        finally:
            _release_thread_connection()


def _release_thread_connection() -> None:
    # judge requests run in short-lived pool threads; each would otherwise keep a database session open
    if threading.current_thread() is not threading.main_thread():
        connection.close()


@lru_cache(maxsize=1)
def judge_settings() -> Any:
    from scoring.judge.config import JudgeSettings, load_judge_settings

    path = settings.LEADERBOARD["JUDGES_FILE"]
    return load_judge_settings(Path(path)) if path else JudgeSettings()


def configured_judges(submission: Submission | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(judges by name, profiles each serves); empty when no judge is configured."""
    current = judge_settings()
    if not current.backends:
        return {}, {}
    spent = _spent_usd(submission) if submission is not None else 0.0
    return current.build(DatabaseJudgeCache(), spent_usd=spent), dict(current.serves)


def _spent_usd(submission: Submission) -> float:
    """Judge cost already recorded in this submission's stored items (earlier attempts)."""
    total = 0.0
    for values in submission.item_scores.values_list("values", flat=True).iterator(chunk_size=2000):
        total += sum(v for k, v in values.items() if k.startswith("diag:judge_cost_usd") and v)
    return total
