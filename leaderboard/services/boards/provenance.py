"""How an entry's provenance reads: ``submitted`` (uploaded by its owner) or ``released`` (a publisher's or a
model's authors' released outputs, re-scored here), the release it comes from, and the items it answers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from leaderboard.models import Provenance
from scoring.reading.problems import warning_summary

RELEASED_BADGE = "re-scored from released outputs"
PROVENANCES = tuple(Provenance.values)
BOARD_SOURCE_KEYS = ("publisher", "repository", "commit", "path", "url", "licence", "sha256", "items_answered",
                     "items_total")


def provenance_source(source: Mapping[str, Any] | None, *, warnings: bool = True) -> dict[str, Any] | None:
    """The ``source`` of an entry's JSON: the release and the items it answers (``None``: not a release's);
    ``warnings``: also what reading the released file found (its counts, their summary, the first ones)."""
    if not source:
        return None
    shown = {key: source.get(key) for key in BOARD_SOURCE_KEYS}
    shown["answered"] = answered_line(source)
    if warnings:
        counts = dict(source.get("warning_counts") or {})
        shown.update(warning_counts=counts, warning_summary=warning_summary(counts),
                     warnings=list(source.get("warnings") or []))
    return shown


def answered_line(source: Mapping[str, Any] | None) -> str:
    """``"1,100 of 1,140 items answered"``; empty for an entry that is not a release's."""
    if not source or source.get("items_total") is None:
        return ""
    return f"{int(source.get('items_answered') or 0):,} of {int(source['items_total']):,} items answered"


def answers_every_item(source: Mapping[str, Any] | None) -> bool:
    return not source or source.get("items_answered") == source.get("items_total")
