"""The one application error: a request that a service or a view turns down.

Services and views raise :class:`Refused`; one middleware (``leaderboard.views.error_responses``)
turns it into the response: the JSON error shape under ``/api/`` (and on the file downloads), an
HTML page elsewhere. A view that shows the refusal in its own page (a form re-rendered with the
message) catches it itself.
"""

from __future__ import annotations

from typing import Any


class Refused(Exception):
    """A refusal: a stable ``code``, a message for people, the ``field`` at fault, the HTTP ``status``,
    and ``details`` (extra keys of the JSON error object; none for most refusals)."""

    def __init__(self, code: str, message: str, field: str | None = None, status: int = 400,
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.field, self.status = code, message, field, status
        self.details = dict(details or {})

    def as_json(self) -> dict[str, Any]:
        """The documented error body: ``{"error": {"code", "message", "field", ...details}}``."""
        return {"error": {"code": self.code, "message": self.message, "field": self.field, **self.details}}
