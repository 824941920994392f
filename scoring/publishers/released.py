"""The publishers' released reference files this site knows, recognised by name and shape.

:func:`released_files` is the table ``manage.py import_references --from DIR`` reads: one row per
released file (its name as published, the benchmark and split it opens, its publisher format, where it is
published, and a check of its shape that also picks the split where one file name serves several). The rows are
derived from the benchmark specs: each :class:`~scoring.publishers.formats.Release` of a spec's ``releases`` is
one row (a benchmark released under many names lists one release per file). Rows with ``by_shape`` also
recognise a file under another name when its shape matches (Jamendo-MT-QA records, saved under any name by the
publisher's scripts). :func:`known_files` and :func:`released_files` read the registry as it is at the call (a
benchmark registered at run time included).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from scoring.publishers.formats import Importer
from scoring.publishers.importers import convert_file
from scoring.publishers.label_exposure import RELEASED_ITEMS_DIR, released_items_write
from scoring.publishers.shapes import NoSplit, NotShaped, Target
from scoring.reading.problems import InvalidInput
from scoring.reading.validation import read_references
from scoring.specs import BENCHMARKS, BenchmarkSpec, get_benchmark

__all__ = [
    "NoSplit",
    "NotShaped",
    "Recognised",
    "ReleasedFile",
    "Unrecognised",
    "known_files",
    "recognise",
    "references_reader",
    "release_of",
    "released_files",
    "released_items_record",
]


@dataclass(frozen=True)
class ReleasedFile:
    """One publisher's file: what it is called, what it opens, where it comes from."""

    name: str
    benchmark: str
    splits: tuple[str, ...]  # the splits a file of this name can open (``target`` picks one)
    source_format: str
    release: str
    target: Target
    by_shape: bool = False
    labels_public: bool = True  # anyone can download its answers: its items can never be a hidden split's


@dataclass(frozen=True)
class Recognised:
    """A file recognised as ``row``'s release, to be imported into ``benchmark/split``."""

    path: Path
    row: ReleasedFile
    split: str

    @property
    def benchmark(self) -> str:
        return self.row.benchmark


@dataclass(frozen=True)
class Unrecognised:
    """A file that is no released file this site knows; ``named``: it bears a released file's name."""

    path: Path
    reason: str
    named: bool = False


def known_files(specs: Iterable[BenchmarkSpec] | None = None) -> tuple[ReleasedFile, ...]:
    """Every released file the (registered) benchmarks' specs name, one row each."""
    return tuple(ReleasedFile(r.name, spec.name, r.splits, r.format.name, r.release, r.target, r.by_shape,
                              r.labels_public)
                 for spec in (BENCHMARKS.values() if specs is None else specs) for r in spec.releases)


def released_files() -> tuple[ReleasedFile, ...]:
    """The released files this build can open (their format reads references), as registered now."""
    return tuple(row for row in known_files() if references_reader(row) is not None)


def references_reader(row: ReleasedFile) -> Importer | None:
    """The reader of ``row``'s format, as its benchmark's spec names it."""
    return next((f.references for f in get_benchmark(row.benchmark).publisher_formats
                 if f.name == row.source_format), None)


def recognise(path: Path, table: Iterable[ReleasedFile] | None = None) -> Recognised | Unrecognised:
    """Which released file ``path`` is (by its name, then by shape for ``by_shape`` rows), and its split;
    ``table``: the released files of the benchmarks registered now, unless given."""
    rows = released_files() if table is None else tuple(table)
    named = [row for row in rows if row.name == path.name]
    reasons = []
    for row in named:
        try:
            return Recognised(path, row, row.target(path))
        except NotShaped as exc:
            reasons.append(str(exc))
    if named:
        return Unrecognised(path, f"named as released but not shaped so: {'; '.join(reasons)}", named=True)
    for row in rows:
        if row.by_shape and path.suffix.lower() in (".json", ".jsonl"):
            try:
                return Recognised(path, row, row.target(path))
            except NoSplit as exc:  # shaped as the benchmark's records: say why it was not taken
                return Unrecognised(path, str(exc))
            except NotShaped:
                continue
    return Unrecognised(path, "not a released file this site knows")


def release_of(benchmark: str, split: str, references_name: str,
               table: Iterable[ReleasedFile] | None = None) -> str:
    """Where a split's stored references were released, from the file name they were imported as."""
    return next((row.release for row in (released_files() if table is None else table)
                 if row.benchmark == benchmark and split in row.splits and row.name == references_name), "")


def released_items_record(folder: Path, table: Iterable[ReleasedFile] | None = None, *,
                          into: Path = RELEASED_ITEMS_DIR) -> list[Path]:
    """Write the item fingerprints of every public release found under ``folder`` (``scripts/released-items``):
    what refuses their items as a hidden split's, under any id and in any option order."""
    written = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        found = recognise(path, table)
        if not isinstance(found, Recognised) or not found.row.labels_public:
            continue
        with tempfile.TemporaryDirectory(prefix="released-") as tmp:
            converted = Path(tmp) / "references.jsonl"
            reader = references_reader(found.row)
            assert reader is not None, found.row.name  # recognised rows are released files: their format reads
            problems = convert_file(reader, path, converted)
            references = read_references(get_benchmark(found.benchmark), converted, problems, name=path.name)
        if problems:
            raise InvalidInput(problems)
        written.append(released_items_write(found.benchmark, path.name, found.row.release, references.references,
                                            folder=into))
    return written
