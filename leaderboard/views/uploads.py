"""An upload handler that stops keeping a file as soon as it passes the size limit.

Django would otherwise spool a 200 MB file to a temporary file before the view can refuse it.
"""

from __future__ import annotations

from typing import Any

from django.core.files.uploadhandler import FileUploadHandler, StopUpload

from leaderboard.services.policy.refusals import Refused


class LimitedUploadHandler(FileUploadHandler):
    def __init__(self, request: Any, limit: int) -> None:
        super().__init__(request)
        self.limit = limit
        self.received = 0
        self.too_large: str | None = None

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        self.received += len(raw_data)
        if self.received > self.limit:
            self.too_large = self.file_name
            raise StopUpload(connection_reset=False)  # drain the body without storing it
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None


def guard_uploads(request: Any) -> LimitedUploadHandler:
    """Install the size guard once; call it before anything reads ``request.POST`` or ``FILES``
    (upload handlers cannot change afterwards). Refuses a body larger than any allowed upload."""
    from django.conf import settings

    installed: LimitedUploadHandler | None = getattr(request, "_upload_guard", None)
    if installed is not None:
        return installed
    per_file = settings.LEADERBOARD["MAX_UPLOAD_BYTES"]
    length = int(request.headers.get("Content-Length") or 0)
    if length > per_file * settings.LEADERBOARD["MAX_RUNS"] + (1 << 20):
        raise Refused("file_too_large", f"request body of {length:,} bytes is over the limit "
                      f"({per_file // (1024 * 1024)} MB per file)", field="predictions", status=413)
    guard = LimitedUploadHandler(request, per_file)
    request.upload_handlers.insert(0, guard)
    request._upload_guard = guard
    return guard


def uploaded_files(request: Any) -> list[Any]:
    """The request's ``predictions`` files; refuses (nothing stored) a body or a file over the limit."""
    guard = guard_uploads(request)
    files = request.FILES.getlist("predictions")
    if guard.too_large:
        mb = guard.limit // (1024 * 1024)
        raise Refused("file_too_large", f"{guard.too_large} is larger than the {mb} MB limit; "
                      "nothing was stored", field="predictions", status=413)
    return files
