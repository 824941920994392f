"""gunicorn answers some requests itself, before Django (a request line over its 4,094-byte limit):
those pages carry the site's Content-Security-Policy too. A real gunicorn on loopback, bounded in time."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from leaderboard.views.security import CONTENT_SECURITY_POLICY

REPO_ROOT = Path(__file__).resolve().parents[3]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _ask(port: int, request: bytes, deadline: float) -> bytes:
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
                conn.sendall(request)
                chunks = []
                while chunk := conn.recv(65536):
                    chunks.append(chunk)
                return b"".join(chunks)
        except OSError:
            time.sleep(0.3)
    raise AssertionError("gunicorn did not answer within 60 s")


@pytest.mark.slow
def test_gunicorns_own_400_for_an_over_long_request_line_has_the_sites_csp(tmp_path) -> None:
    port = _free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "leaderboard.config.settings", "DEBUG": "1",
           "LEADERBOARD_DATA_DIR": str(tmp_path)}
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "leaderboard.config.wsgi", "-w", "1", "-b",
         f"127.0.0.1:{port}", "--log-level", "warning"], cwd=REPO_ROOT, env=env, start_new_session=True)
    try:
        answer = _ask(port, b"GET /" + b"a" * 5_000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n", time.monotonic() + 60)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0] == "HTTP/1.1 400 Bad Request"
    assert f"Content-Security-Policy: {CONTENT_SECURITY_POLICY}" in lines
    assert "X-Content-Type-Options: nosniff" in lines
    assert b"Request Line is too large" in body
