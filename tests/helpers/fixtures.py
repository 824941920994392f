"""Fixtures for the site's tests (imported by the conftests of tests/leaderboard,
tests/e2e and tests/browser): users, splits, and rows shared by the tests of one module.

These run on PostgreSQL and Redis (see leaderboard/config/test_settings.py); Celery tasks
run eagerly in-process unless a test starts a real worker (tests/e2e).

Shared rows: a module whose tests read the same entries builds them once in a module-scoped
fixture inside ``module_rows`` (one transaction around the module, rolled back at its end; each
test's own transaction is a savepoint in it, so what a test writes is still undone after it), and
hands each test fresh copies through ``rows_fresh``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import models, transaction

from leaderboard.models import Split
from leaderboard.services.references.benchmarks import benchmark_create_from_spec, split_import_references
from leaderboard.services.shared.cache import leaderboard_changed
from tests.helpers.datagen import dialbgm_references, jamendo_references, write_jsonl
from tests.helpers.site import bertscore_off


def user_create(name: str = "alice", *, staff: bool = False) -> Any:
    """An account with the password ``pw-<name>``."""
    return get_user_model().objects.create_user(username=name, password="pw-" + name, is_staff=staff)


def split_create(benchmark: str, name: str, references: list[dict[str, Any]], folder: Path, *,
                 hidden: bool = False) -> Split:
    """The split ``benchmark/name`` with these references imported (the file is written under ``folder``)."""
    found = benchmark_create_from_spec(name=benchmark)
    split, _ = Split.objects.get_or_create(benchmark=found, name=name, defaults={"title": name})
    split.hidden_labels = hidden
    split.save()
    path = write_jsonl(references, folder / f"{benchmark}-{name}-refs.jsonl")
    split_import_references(split=split, path=path)
    return split


@contextmanager
def module_rows(django_db_blocker: Any) -> Iterator[None]:
    """Database access for a module-scoped fixture; what it writes is rolled back when the block ends."""
    with django_db_blocker.unblock(), transaction.atomic():
        try:
            yield
        finally:
            transaction.set_rollback(True)


def rows_fresh(rows: dict[str, Any]) -> dict[str, Any]:
    """Copies of shared rows for one test: model instances read again, other values deep-copied.

    Every shared split's cache token moves (inside the test's transaction), so the test starts
    with cold caches as if its splits were new, and nothing it caches outlives it."""
    fresh: dict[str, Any] = {}
    for key, value in rows.items():
        if isinstance(value, models.Model):
            if isinstance(value, Split):
                leaderboard_changed(value.pk)
            fresh[key] = type(value)._default_manager.get(pk=value.pk)
        else:
            fresh[key] = copy.deepcopy(value)
    return fresh


@pytest.fixture
def no_bertscore() -> Iterator[None]:
    """BERTScore off on the site and in the CLI: the path a test checks is the same, the test is minutes faster."""
    with bertscore_off():
        yield


@pytest.fixture
def make_user(db: Any) -> Callable[..., Any]:
    return user_create


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
        return split_create(benchmark, name, references, tmp_path, hidden=hidden)

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
