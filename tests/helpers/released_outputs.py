"""Released model outputs for tests: the CMI-Bench authors' result files (``../shared/data/cmi-bench-results``)
and folders laid out as that release (``<model>/<model>_<task>.jsonl.gz``), whole or with records taken out."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from tests.helpers.shared import shared_file


def shared_release(model: str, task: str) -> Path:
    """A released result file (skips the calling test without the shared data)."""
    return shared_file("data", "cmi-bench-results", model, f"{model}_{task}.jsonl.gz")


def release_records(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        records: list[dict[str, Any]] = json.load(handle)
    return records


def release_write(folder: Path, model: str, task: str, records: list[dict[str, Any]] | bytes) -> Path:
    """``folder/<model>/<model>_<task>.jsonl.gz`` holding ``records`` as one JSON array (or these bytes)."""
    path = folder / model / f"{model}_{task}.jsonl.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    content = records if isinstance(records, bytes) else json.dumps(records, ensure_ascii=False).encode()
    path.write_bytes(gzip.compress(content, mtime=0))
    return path


def release_copy(folder: Path, model: str, task: str) -> Path:
    """The shared released file, byte for byte, into ``folder`` laid out as the release."""
    source = shared_release(model, task)
    target = folder / model / source.name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(source.read_bytes())
    return target


def every_nth_removed(records: list[dict[str, Any]], count: int, start: int = 5) -> tuple[list[dict[str, Any]],
                                                                                              list[int]]:
    """``records`` without ``count`` of them spread over the file (no two adjacent), and their positions."""
    step = (len(records) - start) // count
    removed = [start + k * step for k in range(count)]
    gone = set(removed)
    return [r for n, r in enumerate(records) if n not in gone], removed
