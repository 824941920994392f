"""Fixtures of the judge tests: a loopback fake LLM server, judges pointed at it, small item sets.

Run with ``.venv/bin/pytest -p no:django tests/scoring/judge -q``. No test mocks httpx:
every judge call goes over HTTP to :class:`tests.helpers.fake_llm.FakeLLM` on 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from scoring.judge.backends import BackendConfig
from scoring.judge.cache import JudgeCache
from scoring.judge.runner import Judge
from tests.helpers.fake_llm import FakeLLM
from tests.helpers.judge_data import API_KEY, API_KEY_ENV


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


@pytest.fixture
def sleeps() -> list[float]:
    """Every backoff the judges under test asked to sleep (they never really sleep)."""
    return []


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    return API_KEY


@pytest.fixture
def make_judge(fake: FakeLLM, sleeps: list[float], api_key: str) -> Iterator[Callable[..., Judge]]:
    judges: list[Judge] = []

    def make(name: str = "fake-judge", cache: JudgeCache | None = None, budget_usd: float | None = None,
             **config: Any) -> Judge:
        settings: dict[str, Any] = {
            "kind": "openai", "model": "gpt-4o-mini", "base_url": fake.base_url, "api_key_env": API_KEY_ENV,
            "max_retries": 2, "timeout_s": 5.0, "max_concurrency": 4, "backoff_base_s": 0.01,
            "input_usd_per_mtok": 0.15, "output_usd_per_mtok": 0.6,
        }
        judge = Judge(name, BackendConfig(**{**settings, **config}), cache, budget_usd=budget_usd,
                      sleep=sleeps.append)
        judges.append(judge)
        return judge

    yield make
    for judge in judges:
        judge.close()
