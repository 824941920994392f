"""Browser tests: headless Chromium (Playwright, sync API) against ``live_server`` and a real Celery worker.

The worker fixtures (``worker_env``, ``start_worker``, ``api``) are the ones of tests/e2e/conftest.py;
users and splits come from tests/helpers/fixtures.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from leaderboard.models import Status, Submission
from tests.e2e import conftest as e2e
from tests.helpers.browser import BOARD_PLAN, CHROMIUM, CHROMIUM_ARGS, DESKTOP, SCREENSHOTS, planned_predictions
from tests.helpers.datagen import dialbgm_references, write_jsonl
from tests.helpers.fixtures import *  # noqa: F403

worker_env = e2e.worker_env
start_worker = e2e.start_worker
api = e2e.api


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


# --- the browser ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium per module. Playwright's sync API keeps an asyncio loop on this thread, which
    Django would take for async code: allow the ORM calls the tests and fixtures make meanwhile."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    from playwright.sync_api import sync_playwright

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                                  args=CHROMIUM_ARGS)
            yield chromium
            chromium.close()


@pytest.fixture
def new_page(browser: Any, live_server: Any, request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    """Open a page in a fresh context (own cookies); keyword arguments go to ``new_context``."""
    contexts: list[Any] = []
    pages: list[Any] = []

    def open_page(**options: Any) -> Any:
        options.setdefault("viewport", DESKTOP)
        context = browser.new_context(base_url=live_server.url, accept_downloads=True, **options)
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
        pages.append(page)
        return page

    errors: list[str] = []
    yield open_page
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        for n, page in enumerate(pages):
            try:
                page.screenshot(path=_screenshot_path(request.node.name, 99 + n, "failure"), full_page=True)
            except Exception:  # the page may be gone; the failure itself is reported anyway
                pass
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors: {errors}"


def _safe(test: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in test)


def _screenshot_path(test: str, step: int, label: str) -> Path:
    return SCREENSHOTS / f"{_safe(test)}--{step:02d}-{label}.png"


@pytest.fixture
def screenshot(request: pytest.FixtureRequest) -> Callable[[Any, str], Path]:
    """``screenshot(page, "step-name")`` saves artifacts/screenshots/<test>--<NN>-<step>.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SCREENSHOTS.glob(f"{_safe(request.node.name)}--*.png"):
        old.unlink()  # this test's screenshots from an earlier run
    counter = itertools.count(1)

    def take(page: Any, label: str, *, full_page: bool = True) -> Path:
        path = _screenshot_path(request.node.name, next(counter), label)
        page.screenshot(path=path, full_page=full_page)
        return path

    return take


# --- a scored DialBGM leaderboard ------------------------------------------------------------


@dataclass
class Board:
    split: Any
    references: list[dict[str, Any]]
    uids: dict[str, str] = field(default_factory=dict)  # model name -> submission uid
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)  # model name -> API "metrics"

    @property
    def path(self) -> str:
        return f"/b/{self.split.benchmark.name}/{self.split.name}/"


def wait_until_scored(uids: list[str], timeout: float) -> None:
    from tests.helpers.e2e import wait_for

    def done() -> bool:
        states = dict(Submission.objects.filter(uid__in=uids).values_list("uid", "status"))
        bad = {str(u): s for u, s in states.items() if s in (Status.FAILED, Status.INVALID)}
        assert not bad, f"submissions did not score: {bad}"
        return len(states) == len(uids) and all(s == Status.SCORED for s in states.values())

    wait_for(done, timeout, f"{len(uids)} submissions to be scored")


@pytest.fixture
def dialbgm_board(make_user: Any, make_split: Any, start_worker: Any, api: Any, tmp_path: Path,
                  settings: Any) -> Board:
    """Four DialBGM entries uploaded through the API and scored by a real worker."""
    settings.LEADERBOARD = {**settings.LEADERBOARD, "DAILY_QUOTA": 100}
    references = dialbgm_references(60, seed=21)
    board = Board(make_split("dialbgm", "test", references), references)
    start_worker()
    client = api(make_user("carol"))
    for plan in BOARD_PLAN:
        path = write_jsonl(planned_predictions(references, plan.mix), tmp_path / f"{plan.model_name}.jsonl")
        response = client.post(f"/api/v1/benchmarks/dialbgm/{board.split.name}/submissions",
                               data={"model_name": plan.model_name, "organisation": "Browser Lab", **plan.settings},
                               files=[("predictions", (path.name, path.read_bytes(), "application/x-ndjson"))])
        assert response.status_code == 201, response.text
        board.uids[plan.model_name] = response.json()["id"]
    wait_until_scored(list(board.uids.values()), 300)  # a worker starting under the other half's load
    for name, uid in board.uids.items():
        board.metrics[name] = client.get(f"/api/v1/submissions/{uid}").json()["metrics"]
    return board
