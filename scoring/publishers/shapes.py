"""Shapes of the publishers' released files: each check returns the split a file of that shape opens.

A :data:`Target` reads a file and returns the split it opens, or raises :class:`NotShaped` saying why the file is
not shaped as the release (:class:`NoSplit`: shaped as the benchmark's file, but matching none of its splits).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any


class NotShaped(Exception):
    """The file is not shaped as the released file (the message says how)."""


class NoSplit(NotShaped):
    """Shaped as the benchmark's file, but matching none of its released splits."""


Target = Callable[[Path], str]  # the split a file of this shape opens; raises NotShaped


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes().decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise NotShaped(f"not a JSON document ({type(exc).__name__})") from None


def _json_records(path: Path) -> list[Any]:
    """A JSON array, or the first record of JSON Lines (a bad later line is the importer's to report)."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise NotShaped("not UTF-8 text") from None
    if text.lstrip().startswith("["):
        data = _load_json(path)
        return data if isinstance(data, list) else []
    first = next((line for line in text.split("\n") if line.strip()), "")
    try:
        return [json.loads(first)]
    except ValueError:
        raise NotShaped("neither a JSON array nor JSON Lines") from None


def _all_records(path: Path) -> list[Any]:
    """Every record of a JSON array or of JSON Lines."""
    records = _json_records(path)
    if path.read_bytes().lstrip()[:1] == b"[":
        return records
    try:
        return [json.loads(line) for line in path.read_bytes().decode("utf-8-sig").split("\n") if line.strip()]
    except ValueError:
        raise NotShaped("a line is not valid JSON") from None


def _first_has(records: list[Any], keys: Iterable[str], what: str) -> None:
    wanted = tuple(keys)
    first = records[0] if records else None
    if not isinstance(first, dict) or any(k not in first for k in wanted):
        raise NotShaped(f"{what}: the first record should have {', '.join(wanted)}")


def _csv_header(path: Path, keys: Iterable[str], what: str) -> None:
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle), [])
    except (UnicodeDecodeError, csv.Error):
        raise NotShaped(f"{what}: not a readable CSV file") from None
    missing = [k for k in keys if k not in header]
    if missing:
        raise NotShaped(f"{what}: the CSV header lacks {', '.join(missing)}")


def json_array_of(split: str, keys: tuple[str, ...], what: str) -> Target:
    """A JSON array whose first item has ``keys``."""

    def target(path: Path) -> str:
        data = _load_json(path)
        if not isinstance(data, list):
            raise NotShaped(f"{what}: expected a JSON array")
        _first_has(data, keys, what)
        return split

    return target


def json_lines_of(split: str, keys: tuple[str, ...], what: str) -> Target:
    """JSON Lines (or a JSON array) whose first record has ``keys``."""

    def target(path: Path) -> str:
        _first_has(_json_records(path), keys, what)
        return split

    return target


def csv_with(split: str, keys: tuple[str, ...], what: str) -> Target:
    def target(path: Path) -> str:
        _csv_header(path, keys, what)
        return split

    return target


def json_object_of(split: str, keys: tuple[str, ...], what: str) -> Target:
    """A JSON object whose first value has ``keys`` (RUL-MuChoMusic: question id -> item)."""

    def target(path: Path) -> str:
        data = _load_json(path)
        if not isinstance(data, dict) or not data:
            raise NotShaped(f"{what}: expected a JSON object of items")
        _first_has([next(iter(data.values()))], keys, what)
        return split

    return target


JAMENDO_SPLITS = {12_173: "full", 2_010: "subset-2010"}  # track pairs of each split (Jamendo-MT-QA paper)


def jamendo_split(path: Path) -> str:
    """Jamendo-MT-QA records: the split is told by the number of track pairs."""
    records = _all_records(path)
    what = "Jamendo-MT-QA records"
    _first_has(records, ("qa_type", "question"), what)
    if not all(isinstance(r, dict) and ("gold_answer" in r or "answer" in r) for r in records):
        raise NotShaped(f"{what}: every record needs a gold_answer")
    pairs = {(r.get("pair_id"), r.get("audio1"), r.get("audio2")) for r in records}
    if len(pairs) not in JAMENDO_SPLITS:
        known = " or ".join(f"{n:,} ({s})" for n, s in JAMENDO_SPLITS.items())
        raise NoSplit(f"{what} over {len(pairs):,} track pairs, not a released split's {known}; import it "
                        "into a split by name: import_references jamendo-mt-qa SPLIT PATH --format jamendo")
    return JAMENDO_SPLITS[len(pairs)]
