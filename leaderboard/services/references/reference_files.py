"""Opening splits from a folder of the publishers' released files (``import_references --from DIR``).

Each file is recognised by name and shape (``scoring.publishers.released``) and imported into its split by the
same :func:`~leaderboard.services.references.benchmarks.split_import_references` a single import uses. A file whose
converted references equal the split's stored ones is left alone, so a second run changes nothing.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from leaderboard.models import Split
from leaderboard.services.references.benchmarks import (
    ReferencesInUse,
    benchmark_create_from_spec,
    split_import_references,
)
from leaderboard.services.references.exposure import LabelsExposed
from scoring import InvalidInput, ProblemLog
from scoring.publishers.importers import REFERENCE_IMPORTERS, convert_file
from scoring.publishers.released import Recognised, ReleasedFile, recognise

IMPORTED, CURRENT, NOT_RECOGNISED, ERROR = "imported", "already current", "not recognised", "error"


@dataclass(frozen=True)
class FileOutcome:
    """What happened to one file of the folder."""

    path: str  # relative to the folder
    status: str
    split: str = ""  # benchmark/split, when recognised
    detail: str = ""
    warnings: tuple[str, ...] = ()  # the first warnings (scored as the publisher scores them), with their lines

    def __str__(self) -> str:
        target = f" -> {self.split}" if self.split else ""
        return f"{self.path}{target}: {self.status}" + (f" ({self.detail})" if self.detail else "")


def references_import_folder(*, folder: Path, force: bool = False,
                             table: tuple[ReleasedFile, ...] | None = None) -> list[FileOutcome]:
    """Recognise every file under ``folder`` and import each released one into its split; ``table``: the released
    files of the benchmarks registered now, unless given."""
    files = sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))
    found = {path: recognise(path, table) for path in files}
    by_split: dict[tuple[str, str], list[Path]] = defaultdict(list)
    for path, what in found.items():
        if isinstance(what, Recognised):
            by_split[(what.benchmark, what.split)].append(path)
    outcomes = []
    for path, what in found.items():
        name = str(path.relative_to(folder))
        if not isinstance(what, Recognised):
            outcomes.append(FileOutcome(name, ERROR if what.named else NOT_RECOGNISED, detail=what.reason))
            continue
        target = f"{what.benchmark}/{what.split}"
        rivals = by_split[(what.benchmark, what.split)]
        if len(rivals) > 1:
            others = ", ".join(str(p.relative_to(folder)) for p in rivals if p != path)
            outcomes.append(FileOutcome(name, ERROR, target, f"{others} would open the same split; keep one"))
            continue
        outcomes.append(_import_one(name, what, force))
    return outcomes


def _import_one(name: str, what: Recognised, force: bool) -> FileOutcome:
    target = f"{what.benchmark}/{what.split}"
    benchmark = benchmark_create_from_spec(name=what.benchmark)
    split = Split.objects.get(benchmark=benchmark, name=what.split)
    source_format = what.row.source_format
    try:
        if split.has_references and _converted_sha256(what.path, source_format) == split.references_sha256:
            return FileOutcome(name, CURRENT, target, f"{split.n_items:,} items")
        log = ProblemLog(keep=200)
        count = split_import_references(split=split, path=what.path, source_format=source_format, force=force,
                                        log=log)
    except InvalidInput as exc:
        first = "; ".join(str(p) for p in exc.log.problems[:3])
        return FileOutcome(name, ERROR, target, f"{exc.log.total} problem(s), nothing imported: {first}")
    except (ReferencesInUse, LabelsExposed) as exc:
        return FileOutcome(name, ERROR, target, f"{exc}; nothing imported")
    warnings = f", {log.warning_total} warning(s)" if log.warning_total else ""
    return FileOutcome(name, IMPORTED, target, f"{count:,} items{warnings}", tuple(str(w) for w in log.warnings))


def _converted_sha256(path: Path, source_format: str) -> str:
    """The content hash the split would store for this file (the importer's JSONL, as imported)."""
    with tempfile.TemporaryDirectory(prefix="references-") as tmp:
        converted = Path(tmp) / f"{path.stem}.jsonl"
        problems = convert_file(REFERENCE_IMPORTERS[source_format], path, converted)
        if problems:
            raise InvalidInput(problems)
        return hashlib.sha256(converted.read_bytes()).hexdigest()
