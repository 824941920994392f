"""Helpers the end-to-end tests import: waiting, a fresh clone of the working tree, the documented commands."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[2]
# short leases and a quick sweeper, so that fault tests see recovery in seconds (worker environment)
FAST_RECOVERY = {"STALE_AFTER_SECONDS": 6, "HEARTBEAT_SECONDS": 1, "SWEEP_EVERY_SECONDS": 2,
                 "REQUEUE_AFTER_SECONDS": 8}
# variables the test suite sets for itself; a newcomer's shell has none of them
SUITE_VARIABLES = ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "CELERY_QUEUE",
                   "CELERY_TASK_ALWAYS_EAGER", "CACHE_KEY_PREFIX", "LEADERBOARD_DATA_DIR", "ALLOWED_HOSTS",
                   "BOOTSTRAP_REPLICATES", "SECURE_COOKIES", "DEBUG")
# the pages whose commands a newcomer copies; every command in them is run or listed with a reason
DOCUMENTED_PAGES = ("README.md", "ARCHITECTURE.md", "bench/README.md", "docs/*.md")
_SHELL_FENCES = {"sh", "bash", "shell", "console"}
_COMMAND_START = re.compile(r"(?:[A-Z_]+=\S+ )*(?:\./scripts/|scripts/|\.venv/bin/|python -m |python3 -m |"
                            r"manage\.py |bench/\S+\.py|curl |export )")
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
_SPAN = re.compile(r"(?<!`)`([^`\n]+(?:\n[^`\n]+)?)`(?!`)")


def wait_for(predicate: Callable[[], Any], timeout: float, message: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"timed out: {message}")


def fresh_copy(target: Path) -> Path:
    """What `git clone` of the working tree would give: tracked and untracked-but-not-ignored files."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, listed):
        source = REPO / name.decode()
        if source.is_file():
            destination = target / name.decode()
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
    return target


@dataclass(frozen=True)
class DocCommand:
    """A command as a page shows it: ``text`` with continuation lines joined, its comment and spacing dropped."""

    page: str
    line: int
    text: str
    fenced: bool


def documented_commands(root: Path = REPO) -> list[DocCommand]:
    """Every shell command of the documented pages: each line of a ```sh/bash block, and each inline `span`
    that starts like a command (``./scripts/``, ``.venv/bin/``, ``python -m``, ``manage.py``, ``bench/*.py``...)."""
    found: list[DocCommand] = []
    for pattern in DOCUMENTED_PAGES:
        for path in sorted(root.glob(pattern)):
            page = path.relative_to(root).as_posix()
            found += _commands_of(page, path.read_text(encoding="utf-8"))
    return found


def _commands_of(page: str, text: str) -> list[DocCommand]:
    found: list[DocCommand] = []
    for fence in _FENCE.finditer(text):
        if fence.group(1) in _SHELL_FENCES:
            first = text.count("\n", 0, fence.start(2)) + 1
            found += _fenced_commands(page, first, fence.group(2))
    prose = _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # keeps the line numbers
    for span in _SPAN.finditer(prose):
        command = normalise(span.group(1))
        if _COMMAND_START.match(command):
            found.append(DocCommand(page, prose.count("\n", 0, span.start()) + 1, command, fenced=False))
    return found


def _fenced_commands(page: str, first: int, block: str) -> list[DocCommand]:
    found: list[DocCommand] = []
    pending: list[str] = []
    start = first
    for number, line in enumerate(block.splitlines(), first):
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending.append(line.rstrip()[:-1])
            continue
        command = normalise(" ".join([*pending, line]))
        pending = []
        if command:
            found.append(DocCommand(page, start, command, fenced=True))
    return found


def normalise(command: str) -> str:
    """One line, single spaces, without a trailing ``# comment`` (a ``#`` after a space, as the shell reads it)."""
    return " ".join(re.sub(r"(^|\s)#.*$", "", command.replace("\n", " ")).split())


def free_port() -> int:
    """A TCP port on loopback nobody listens on (for a site a test starts)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def site_up(base: str) -> bool:
    """Whether the site at ``base`` answers its health check (waits a second when it does not)."""
    try:
        return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        time.sleep(1)
        return False
