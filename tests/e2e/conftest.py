"""Real processes: a Celery worker on the test PostgreSQL database and Redis, a live HTTP server."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.db import connection

from leaderboard.config.celery import app as celery_app
from leaderboard.models import ApiToken
from tests.helpers.fixtures import *  # noqa: F403

REPO = Path(__file__).resolve().parents[2]


def database_url() -> str:
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgresql://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


class Worker:
    """A ``celery worker`` subprocess in its own process group."""

    def __init__(self, env: dict[str, str], log: Path, *, beat: bool, pool: str, concurrency: int,
                 queues: list[str]) -> None:
        self.name = f"test-{uuid.uuid4().hex[:6]}@{socket.gethostname()}"  # the node name tasks see
        args = [sys.executable, "-m", "celery", "-A", "leaderboard.config", "worker", "--loglevel", "INFO",
                "--pool", pool, "--concurrency", str(concurrency), "-Q", ",".join(queues),
                "-n", self.name, "--without-gossip", "--without-mingle"]
        if beat:
            args += ["--beat", "--schedule", str(log.with_suffix(".beat"))]
        self.log = log
        with open(log, "ab") as out:  # the child keeps its own copy of the descriptor
            self.process = subprocess.Popen(args, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        self._wait_ready()

    def _wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if "ready." in self.log.read_text(errors="replace"):
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited:\n{self.log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)
        raise RuntimeError("worker did not start")

    def kill(self) -> None:
        """SIGKILL the whole worker (no warm shutdown, no message restored)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def worker_env(transactional_db: Any, settings: Any) -> Iterator[dict[str, str]]:
    queue = f"e2e-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ)
    env.update({"DATABASE_URL": database_url(), "CELERY_TASK_ALWAYS_EAGER": "0", "CELERY_QUEUE": queue,
                "CELERY_SWEEP_QUEUE": f"{queue}-sweep",
                "DJANGO_SETTINGS_MODULE": "leaderboard.config.test_settings", "PYTHONUNBUFFERED": "1"})
    previous = (celery_app.conf.task_always_eager, celery_app.conf.task_default_queue)
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_default_queue = queue
    yield env
    celery_app.conf.task_always_eager, celery_app.conf.task_default_queue = previous


@pytest.fixture
def start_worker(worker_env: dict[str, str], tmp_path: Path) -> Iterator[Callable[..., Worker]]:
    workers: list[Worker] = []

    def start(*, beat: bool = False, pool: str = "solo", concurrency: int = 1, sweeper_only: bool = False,
              queues: list[str] | None = None, **extra_env: str) -> Worker:
        """A worker; ``beat=True`` adds the beat and the sweep queue (``sweeper_only``: only those,
        the production layout's sweeper); ``queues`` replaces the default queue (a GPU worker's)."""
        env = {**worker_env, **{k: str(v) for k, v in extra_env.items()}}
        queues = [] if sweeper_only else list(queues or [env["CELERY_QUEUE"]])
        if beat or sweeper_only:
            queues.append(env["CELERY_SWEEP_QUEUE"])
        worker = Worker(env, tmp_path / f"worker-{len(workers)}.log", beat=beat or sweeper_only, pool=pool,
                        concurrency=concurrency, queues=queues)
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()


@pytest.fixture
def api(live_server: Any, transactional_db: Any) -> Callable[[Any], httpx.Client]:
    def client(user: Any) -> httpx.Client:
        _, raw = ApiToken.issue(user)
        return httpx.Client(base_url=live_server.url, headers={"Authorization": f"Token {raw}"}, timeout=120)

    return client
