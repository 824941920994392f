"""The shared reference data beside the repository (``../shared``, or ``$SHARED_DIR``): tests skip without it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_DIR = Path(os.environ.get("SHARED_DIR", REPO_ROOT.parent / "shared"))


def shared_file(*parts: str) -> Path:
    """A file under ``$SHARED_DIR``; skips the calling test when it is absent."""
    path = SHARED_DIR.joinpath(*parts)
    if not path.is_file():
        pytest.skip(f"shared data file {path} is absent (set SHARED_DIR to the folder holding data/)")
    return path
