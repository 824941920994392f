"""The documented API error shape, checked the same way by every test that needs it."""

from __future__ import annotations

import json
from typing import Any


def assert_api_error(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    """``response`` is a JSON ``{"error": {"code", "message", "field"}}`` with ``status``; returns the error."""
    content = response.content if hasattr(response, "content") else response.text.encode()
    assert response.status_code == status, (response.status_code, content[:300])
    content_type = response.headers.get("Content-Type") or response.headers.get("content-type") or ""
    content_type = content_type[0] if isinstance(content_type, list) else content_type  # schemathesis: lists
    assert content_type.startswith("application/json"), content_type
    length = response.headers.get("Content-Length") or response.headers.get("content-length")
    encoding = response.headers.get("Content-Encoding") or response.headers.get("content-encoding")
    if length is not None and not encoding:  # a gzipped body's length is of the bytes sent, not the decoded ones
        assert int(length[0] if isinstance(length, list) else length) == len(content), "Content-Length is stale"
    body = json.loads(content)
    assert set(body) == {"error"}, body
    error = body["error"]
    assert {"code", "message", "field"} <= set(error), error
    assert isinstance(error["code"], str) and error["code"], error
    assert isinstance(error["message"], str) and error["message"], error
    assert error["field"] is None or isinstance(error["field"], str), error
    if code is not None:
        assert error["code"] == code, error
    return error
