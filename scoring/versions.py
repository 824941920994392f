"""Installed library versions, for signatures."""

from __future__ import annotations

from functools import cache
from importlib import metadata

SCORING_VERSION = "0.1.0"
"""The engine's version (validation, item weights, aggregation, resampling): bumped whenever a change there could
move a number. A metric family's own changes bump its ``rules`` instead, so that only its columns part from the
entries scored before; both are in every signature."""


@cache
def library_version(distribution: str) -> str:
    """The installed version of a distribution, or ``"absent"``."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "absent"
