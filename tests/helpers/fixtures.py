"""Fixtures for the site's tests (imported by the conftests of tests/leaderboard,
tests/e2e and tests/browser): users, splits.

These run on PostgreSQL and Redis (see leaderboard/config/test_settings.py); Celery tasks
run eagerly in-process unless a test starts a real worker (tests/e2e).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from leaderboard.models import Split
from leaderboard.services.references.benchmarks import benchmark_create_from_spec, split_import_references
from tests.helpers.datagen import dialbgm_references, jamendo_references, write_jsonl


@pytest.fixture
def make_user(db: Any) -> Callable[..., Any]:
    def make(name: str = "alice", *, staff: bool = False) -> Any:
        user = get_user_model().objects.create_user(username=name, password="pw-" + name, is_staff=staff)
        return user

    return make


@pytest.fixture
def alice(make_user: Callable[..., Any]) -> Any:
    return make_user("alice")


@pytest.fixture
def bob(make_user: Callable[..., Any]) -> Any:
    return make_user("bob")


@pytest.fixture
def maintainer(make_user: Callable[..., Any]) -> Any:
    return make_user("maintainer", staff=True)


@pytest.fixture
def make_split(db: Any, tmp_path: Path) -> Callable[..., Split]:
    def make(benchmark: str, name: str, references: list[dict[str, Any]], *, hidden: bool = False) -> Split:
        found = benchmark_create_from_spec(name=benchmark)
        split, _ = Split.objects.get_or_create(benchmark=found, name=name, defaults={"title": name})
        split.hidden_labels = hidden
        split.save()
        path = write_jsonl(references, tmp_path / f"{benchmark}-{name}-refs.jsonl")
        split_import_references(split=split, path=path)
        return split

    return make


@pytest.fixture
def jamendo_refs() -> list[dict[str, Any]]:
    return jamendo_references(40, seed=3)


@pytest.fixture
def dialbgm_refs() -> list[dict[str, Any]]:
    return dialbgm_references(60, seed=3)


@pytest.fixture
def jamendo_split(make_split: Callable[..., Split], jamendo_refs: list[dict[str, Any]]) -> Split:
    return make_split("jamendo-mt-qa", "full", jamendo_refs)


@pytest.fixture
def dialbgm_split(make_split: Callable[..., Split], dialbgm_refs: list[dict[str, Any]]) -> Split:
    return make_split("dialbgm", "test", dialbgm_refs)
