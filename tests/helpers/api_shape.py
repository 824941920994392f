"""The documented API error shape, checked the same way by every test that needs it."""

from __future__ import annotations

import json
from typing import Any


def assert_api_error(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    """``response`` is a JSON ``{"error": {"code", "message", "field"}}`` with ``status``; returns the error."""
    content = response.content if hasattr(response, "content") else response.text.encode()
    assert response.status_code == status, (response.status_code, content[:300])
    assert response.headers["Content-Type"].startswith("application/json"), response.headers["Content-Type"]
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
