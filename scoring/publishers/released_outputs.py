"""Model outputs their publishers released, re-scored here: the table of released output sets, the files of
a folder it recognises, and one such file read as a run.

:func:`output_sets` reads ``released_outputs.toml``: one set per release (publisher, repository, commit,
licence, the prediction format of its files, a pattern telling each file's model and task, the benchmark
each task is hosted as, each model's name). :func:`outputs_find` sorts a folder's files by that table, and
:func:`output_read` reads one file as ``python -m scoring score --predictions-format FORMAT
--missing-as-empty`` reads it: the items a run lacks are scored as empty answers, with the
``missing_as_empty`` warning saying how many. ``manage.py import_released_outputs --from DIR`` is the
site's user of all three.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import tempfile
import tomllib
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from scoring.publishers.importers import PREDICTION_IMPORTERS, convert_file
from scoring.reading.problems import ProblemLog, copy_problems
from scoring.reading.validation import ReferenceSet, is_publisher_file, read_predictions
from scoring.specs import BenchmarkSpec
from scoring.task_types import TASK_TYPES, Prediction

TABLE = Path(__file__).with_name("released_outputs.toml")
MAX_OUTPUT_BYTES = 256 * 1024 * 1024  # a released file, decompressed; a larger one is refused, not read
_SET_KEYS = ("name", "publisher", "repository", "commit", "licence", "split", "predictions_format", "pattern",
             "source_path", "file_url", "tasks", "models")


@dataclass(frozen=True)
class OutputModel:
    """A model of a release: its key in the file names, its name, and where its files lie when not where
    the set's other models' do."""

    key: str
    name: str
    parameters: str = ""
    source_path: str = ""


@dataclass(frozen=True)
class OutputSet:
    """One release of model outputs (a ``[[set]]`` of the table)."""

    name: str
    publisher: str
    repository: str
    commit: str
    licence: str
    split: str  # the split of each hosted benchmark its files answer
    predictions_format: str
    pattern: re.Pattern[str]
    source_path: str
    file_url: str
    tasks: Mapping[str, str]  # task -> benchmark
    models: Mapping[str, OutputModel]


@dataclass(frozen=True)
class OutputFile:
    """A file of a set found in a folder: its model and task as the set's pattern reads them."""

    path: Path
    relative: str  # to the folder, as printed
    output_set: OutputSet
    model_key: str
    task: str

    @property
    def benchmark(self) -> str:
        """The benchmark its task is hosted as; empty: not hosted here."""
        return self.output_set.tasks.get(self.task, "")

    @property
    def model(self) -> OutputModel | None:
        return self.output_set.models.get(self.model_key)

    @property
    def name(self) -> str:
        """Its name as released (a ``.gz`` copy is named as the file itself)."""
        return self.path.name.removesuffix(".gz")

    @property
    def source_path(self) -> str:
        template = (self.model.source_path if self.model else "") or self.output_set.source_path
        return template.format(model=self.model_key, file=self.name)

    @property
    def source_url(self) -> str:
        release = self.output_set
        return release.file_url.format(repository=release.repository, commit=release.commit, path=self.source_path)


@dataclass
class OutputRun:
    """One released file read against a split's references (missing items filled as empty answers)."""

    content: bytes  # the file as released (decompressed)
    predictions: list[Prediction | None]
    log: ProblemLog = field(default_factory=ProblemLog)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()

    @property
    def items(self) -> int:
        return len(self.predictions)

    @property
    def answered(self) -> int:
        return self.items - self.log.warning_counts.get("missing_as_empty", 0)


def output_sets(table: Path = TABLE) -> tuple[OutputSet, ...]:
    """The released output sets of ``table``; a malformed table raises ``ValueError`` naming the set and key."""
    return _sets(table.resolve())


@lru_cache(maxsize=4)
def _sets(table: Path) -> tuple[OutputSet, ...]:
    data = tomllib.loads(table.read_text(encoding="utf-8"))
    return tuple(_set(row, table.name) for row in data.get("set", []))


def _set(row: dict[str, Any], where: str) -> OutputSet:
    missing = [key for key in _SET_KEYS if key not in row]
    if missing:
        raise ValueError(f"{where}: set {row.get('name', '?')!r} lacks {', '.join(missing)}")
    if row["predictions_format"] not in PREDICTION_IMPORTERS:
        raise ValueError(f"{where}: set {row['name']!r}: no prediction format {row['predictions_format']!r}")
    pattern = re.compile(row["pattern"])
    if not {"model", "task"} <= set(pattern.groupindex):
        raise ValueError(f"{where}: set {row['name']!r}: the pattern needs the groups model and task")
    models = {key: OutputModel(key, str(value["name"]), str(value.get("parameters", "")),
                               str(value.get("source_path", ""))) for key, value in row["models"].items()}
    return OutputSet(row["name"], row["publisher"], row["repository"], row["commit"], row["licence"], row["split"],
                     row["predictions_format"], pattern, row["source_path"], row["file_url"], dict(row["tasks"]),
                     models)


def outputs_find(folder: Path, sets: tuple[OutputSet, ...] | None = None) -> list[tuple[str, OutputFile | None]]:
    """Every file under ``folder`` (its path relative to it) with what it is: a file of a set, or ``None``."""
    sets = output_sets() if sets is None else sets
    found: list[tuple[str, OutputFile | None]] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
        relative = path.relative_to(folder).as_posix()
        found.append((relative, output_recognise(path, relative, sets)))
    return found


def output_recognise(path: Path, relative: str, sets: tuple[OutputSet, ...]) -> OutputFile | None:
    """The set a file belongs to by its path (the last parts of it, as deep as the set's pattern reaches)."""
    parts = relative.split("/")
    for release in sets:
        for start in range(len(parts)):
            match = release.pattern.match("/".join(parts[start:]))
            if match:
                return OutputFile(path, relative, release, match["model"], match["task"])
    return None


def output_content(found: OutputFile, log: ProblemLog) -> bytes | None:
    """The file's bytes as released (a ``.gz`` copy decompressed); ``None``, with the problem, when unreadable."""
    try:
        if found.path.name.endswith(".gz"):
            with gzip.open(found.path, "rb") as handle:
                content = handle.read(MAX_OUTPUT_BYTES + 1)
        else:
            with open(found.path, "rb") as handle:
                content = handle.read(MAX_OUTPUT_BYTES + 1)
    except (OSError, EOFError, zlib.error) as exc:
        log.add(found.name, 0, "unreadable_file", f"cannot be read: {exc}")
        return None
    if len(content) > MAX_OUTPUT_BYTES:
        log.add(found.name, 0, "file_too_large", f"larger than {MAX_OUTPUT_BYTES // (1024 * 1024)} MiB")
        return None
    return content


def output_read(spec: BenchmarkSpec, references: ReferenceSet, found: OutputFile) -> OutputRun:
    """``found`` read against ``references`` as the CLI reads it with ``--predictions-format`` and
    ``--missing-as-empty``; its problems and warnings are in the run's log (errors: not to be scored)."""
    log = ProblemLog(keep=200)
    content = output_content(found, log)
    if content is None:
        return OutputRun(b"", [], log)
    fmt = found.output_set.predictions_format
    with tempfile.TemporaryDirectory(prefix="released-") as tmp:
        path = Path(tmp) / found.name
        path.write_bytes(content)
        if not (fmt == spec.publisher_format and is_publisher_file(spec, path)):
            converted = Path(tmp) / f"converted-{found.name}"
            copy_problems(convert_file(PREDICTION_IMPORTERS[fmt], path, converted), log)
            if log:
                return OutputRun(content, [], log)
            path = converted
        predictions = read_predictions(spec, references, path, log, name=found.name, missing_as_empty=True,
                                       publisher_file=True)
    return OutputRun(content, predictions, log)


def output_jsonl(spec: BenchmarkSpec, references: ReferenceSet, run: OutputRun) -> bytes:
    """The run in the site's JSONL contract, one line per item in the references' order: what the site scores
    for a run that lacks items (its missing items as the empty answers they are scored as)."""
    task = TASK_TYPES[spec.task_type]
    lines = [json.dumps(task.prediction_json(prediction, reference), ensure_ascii=False) + "\n"
             for prediction, reference in zip(run.predictions, references.references, strict=True)
             if prediction is not None]
    return "".join(lines).encode("utf-8")
