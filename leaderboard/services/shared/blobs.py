"""Content-addressed file storage: uploaded bytes are kept by SHA-256 and never overwritten."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from django.conf import settings

_CHUNK = 1 << 20


class TooLarge(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"larger than the {limit:,}-byte limit")
        self.limit = limit


def blob_root() -> Path:
    return Path(settings.MEDIA_ROOT) / "blobs"


def blob_path(sha256: str) -> Path:
    if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
        raise ValueError("not a SHA-256 hex digest")
    return blob_root() / sha256[:2] / sha256


def blob_store(chunks: Iterable[bytes], *, limit: int | None = None) -> tuple[str, int]:
    """Store a stream; returns (sha256, size). Raises :class:`TooLarge` past ``limit``
    (nothing is kept then). An existing blob with the same hash is left untouched."""
    root = blob_root()
    root.mkdir(parents=True, exist_ok=True)
    digest, size = hashlib.sha256(), 0
    fd, tmp_name = tempfile.mkstemp(dir=root, prefix=".incoming-")
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                size += len(chunk)
                if limit is not None and size > limit:
                    raise TooLarge(limit)
                digest.update(chunk)
                out.write(chunk)
        sha = digest.hexdigest()
        final = blob_path(sha)
        final.parent.mkdir(exist_ok=True)
        try:
            os.link(tmp_name, final)  # atomic, and fails instead of overwriting
        except FileExistsError:
            pass
        return sha, size
    finally:
        os.unlink(tmp_name)


def blob_store_file(path: str | Path, *, limit: int | None = None) -> tuple[str, int]:
    with open(path, "rb") as handle:
        return blob_store(iter(lambda: handle.read(_CHUNK), b""), limit=limit)
