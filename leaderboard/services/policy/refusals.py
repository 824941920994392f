"""The one shape of a request a service turns down, shared by uploads, compare and the explorer."""

from __future__ import annotations


class Refused(Exception):
    """A refusal: a stable ``code``, a message for people, the ``field`` at fault and its HTTP status."""

    def __init__(self, code: str, message: str, field: str | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.field, self.status = code, message, field, status


class SubmissionRejected(Refused):
    """An upload refused before anything was stored; ``field`` names the culprit."""
