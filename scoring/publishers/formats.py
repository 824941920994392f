"""A publisher's file format and a released file, as a benchmark spec names them.

A :class:`PublisherFormat` is one object per format: the reader of its reference files and, where the
publisher's tools write prediction files, the reader of those (each reader yields rows ``(line, record)`` of the
site's JSONL contracts, every problem in the log). A :class:`Release` is one released reference file: its name,
its format, where it is published (file and commit) and the shape check that picks the split it opens. Both live
in the benchmark's spec (``BenchmarkSpec.releases``, ``publisher``, ``formats``); the tables the importers and the
reference import read (``scoring.publishers.importers``, ``scoring.publishers.released``) are derived from the
specs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scoring.publishers.shapes import Target
from scoring.reading.problems import InvalidInput, ProblemLog, copy_problems

Record = dict[str, Any]
Row = tuple[int, Record]
Importer = Callable[[str | Path, ProblemLog], list[Row]]


@dataclass(frozen=True)
class PublisherFormat:
    """A publisher's file format: how its reference files and (where it has them) its prediction files are read.

    ``predictions_jsonl`` tells a publisher's prediction file written as JSON Lines from the site's contract,
    for formats whose prediction files may be JSON Lines (uploads are read through it then).
    ``prediction_folders``: ``predictions`` also reads a folder of the publisher's per-item files (the folder
    its evaluator is pointed at), which ``python -m scoring`` then takes as ``--predictions``."""

    name: str
    references: Importer | None = None
    predictions: Importer | None = None
    predictions_jsonl: Callable[[str | Path], bool] | None = None
    prediction_folders: bool = False


@dataclass(frozen=True)
class Release:
    """One released reference file of a benchmark: its name as published, its format, where it is published
    (repository, path and commit, in words), and the check of its shape that picks the split it opens."""

    name: str
    format: PublisherFormat
    release: str
    target: Target
    splits: tuple[str, ...] = ("test",)  # the splits a file of this name can open (``target`` picks one)
    by_shape: bool = False  # also recognised under another name when its shape matches
    labels_public: bool = True  # anyone can download its answers: its items can never be a hidden split's


def rows_from_records(records_of: Callable[[str | Path, ProblemLog], Sequence[Record | None]]) -> Importer:
    """A whole-file importer (raising :class:`InvalidInput`) as an importer of rows: line N is item N
    (an item the importer dropped, ``None``, leaves its line blank)."""

    def rows(path: str | Path, log: ProblemLog) -> list[Row]:
        try:
            records = records_of(path, log)
        except InvalidInput as exc:
            copy_problems(exc.log, log)
            return []
        return [(n, record) for n, record in enumerate(records, start=1) if record is not None]

    return rows


def always(path: str | Path) -> bool:
    """Every prediction file of the format is the publisher's (MMAR's rows are JSON Lines as released)."""
    return True
