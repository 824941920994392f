"""gunicorn's own error pages (a request line or header over its limits, a malformed request) are
written before Django sees the request; :func:`install` makes them carry the site's security headers
(the same Content-Security-Policy as every page, ``nosniff``, no framing). ``gunicorn.conf.py`` in the
repository root, which gunicorn reads from the directory it starts in, installs it."""

from __future__ import annotations

import html
from typing import Any

from gunicorn import util

from leaderboard.views.security import CONTENT_SECURITY_POLICY


def write_error(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's ``util.write_error`` with the security headers (same status, same escaped text)."""
    body = (f"<html><head><title>{html.escape(reason)}</title></head>"
            f"<body><h1>{html.escape(reason)}</h1>{html.escape(mesg)}</body></html>\n").encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
            "Content-Type: text/html; charset=utf-8\r\n"
            f"Content-Security-Policy: {CONTENT_SECURITY_POLICY}\r\n"
            "X-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode("latin-1", "replace")
    util.write_nonblock(sock, head + body)


def install() -> None:
    """Replace gunicorn's error writer in this process (the master, before it forks its workers)."""
    util.write_error = write_error
