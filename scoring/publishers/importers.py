"""Convert the publishers' own files into the site's JSONL contracts.

Each format is one :class:`~scoring.publishers.formats.PublisherFormat` beside its readers, named by the
benchmark specs that use it; the tables here (:data:`REFERENCE_IMPORTERS`, :data:`PREDICTION_IMPORTERS`,
:data:`PUBLISHER_JSONL`: format name -> reader) are derived from the registered specs.

* ``musicqa``, ``musiccaps``, ``jamendo``, ``m2ugen-predictions``: MU-LLaMA's, Google's, Jamendo-MT-QA's and the
  M2UGen evaluators' files (``scoring/publishers/qa_importers.py``). Jamendo-MT-QA records ``{pair_id, audio1,
  audio2, qa_type, question, gold_answer[, prediction]}`` (a JSON list or JSON Lines; id =
  ``"<pair_id>::<qa_type>"``) are read as evaluate.py reads them, each deviation a warning: a record without
  ``pair_id`` (or with ``null``; evaluate.py's docstring lists no such field) gets ``"<audio1>__<audio2>"``, the
  released files' own pair id; ``gold_answer: null`` is an empty gold answer (counted, always wrong); a falsy
  ``prediction`` (``null``, ``0``, ``false``) is ``""``; ``qa_type: null`` is left out.
* ``mmau``, ``muchomusic``: the multiple-choice publishers' files (``scoring/publishers/mcq_importers.py``).
* ``mmar`` (``scoring/publishers/mmar_importers.py``), ``rul-muchomusic`` (``scoring/publishers/rul_importers.py``).
* ``cmi-bench``: CMI-Bench task files and result files (``scoring/publishers/cmi_importers.py``).
* ``songformbench``: SongFormBench's ``songformbench_segments.jsonl`` and SongFormer's predictions folder of MSA
  TXT files (``scoring/metrics/songform/reader.py``).
* ``lp-musiccaps``: LP-MusicCaps's test list of MusicCaps clips, captioned from ``musiccaps-public.csv``
  beside it (``scoring/publishers/lp_musiccaps_importers.py``).

Importers accept what the publisher's evaluator accepts (a BOM, CRLF line ends, U+2028,
U+2029 or U+0085 inside strings: JSON Lines are split on ``\\n`` only) and never raise on a
bad record: each is a problem naming file and line. They yield *rows* ``(line, record)``,
where ``line`` is the record's line in a JSON Lines or CSV file and its 1-based position in a
JSON array; :func:`write_rows` keeps that line number in the converted file, so the
validation that follows (and its warnings, e.g. an empty gold answer) points at the
maintainer's own file. Nothing is ever written next to the input.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scoring.publishers.formats import Importer, PublisherFormat, Record, Row
from scoring.publishers.qa_importers import (
    jamendo_rows,
    m2ugen_prediction_rows,
    musiccaps_rows,
    musicqa_id,
    musicqa_rows,
)
from scoring.reading.problems import InvalidInput, ProblemLog
from scoring.specs import publisher_formats

__all__ = [
    "FOLDER_WARNINGS",
    "FORMATS",
    "PREDICTION_FOLDERS",
    "PREDICTION_IMPORTERS",
    "PUBLISHER_JSONL",
    "REFERENCE_IMPORTERS",
    "Importer",
    "Record",
    "Row",
    "convert_file",
    "import_jamendo",
    "import_m2ugen_predictions",
    "import_musiccaps",
    "import_musicqa",
    "jamendo_rows",
    "m2ugen_prediction_rows",
    "musiccaps_rows",
    "musicqa_id",
    "musicqa_rows",
    "write_jsonl",
    "write_rows",
]

# every format a registered benchmark names (its publisher's, its releases', the others its files come in)
FORMATS: tuple[PublisherFormat, ...] = publisher_formats()
REFERENCE_IMPORTERS: dict[str, Importer] = {f.name: f.references for f in FORMATS if f.references is not None}
PREDICTION_IMPORTERS: dict[str, Importer] = {f.name: f.predictions for f in FORMATS if f.predictions is not None}
PUBLISHER_JSONL: dict[str, Callable[[str | Path], bool]] = {
    f.name: f.predictions_jsonl for f in FORMATS if f.predictions_jsonl is not None}
"""Prediction formats whose publisher files may also be JSON Lines: the test that tells one from the contract."""
PREDICTION_FOLDERS: frozenset[str] = frozenset(f.name for f in FORMATS if f.prediction_folders)
"""Prediction formats whose reader also takes a folder of the publisher's per-item files."""
FOLDER_WARNINGS = ("empty_prediction", "blank_prediction", "unreadable_answer")
"""What a folder reader warns on under each file's own name: the converted file's lines would say it again."""


def convert_file(importer: Importer, source: str | Path, target: str | Path) -> ProblemLog:
    """Convert ``source`` with ``importer`` into JSONL at ``target`` (keeping line numbers);
    the returned log holds the importer's problems and warnings (any error: nothing is written)."""
    log = ProblemLog(keep=200)
    rows = importer(source, log)
    if not log:
        write_rows(rows, target)
    return log


def write_rows(rows: list[Row], path: str | Path) -> None:
    """JSONL with each record on its original line (blank lines, skipped by readers, fill gaps)."""
    with open(path, "w", encoding="utf-8") as handle:
        current = 0
        for line, record in rows:
            if line > current + 1:
                handle.write("\n" * (line - current - 1))
                current = line - 1
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            current += 1


def _strict(rows_of: Callable[[str | Path, ProblemLog], Any], path: str | Path) -> Any:
    log = ProblemLog(keep=100)
    result = rows_of(path, log)
    if log:
        raise InvalidInput(log)
    return result


def import_musicqa(path: str | Path) -> list[Record]:
    """References from ``EvalMusicQA.json`` (raises :class:`InvalidInput` on any error)."""
    return [record for _, record in _strict(musicqa_rows, path)]


def import_musiccaps(path: str | Path, split: str = "eval") -> list[Record]:
    """References from ``musiccaps-public.csv`` (raises :class:`InvalidInput` on any error)."""
    return [record for _, record in _strict(lambda p, log: musiccaps_rows(p, log, split), path)]


def import_jamendo(path: str | Path) -> tuple[list[Record], list[Record]]:
    """References and predictions of a Jamendo-MT-QA records file (raises :class:`InvalidInput`)."""
    references, predictions = _strict(jamendo_rows, path)
    return [r for _, r in references], [p for _, p in predictions]


def import_m2ugen_predictions(path: str | Path) -> list[Record]:
    """Predictions from an evaluator results file (raises :class:`InvalidInput` on any error)."""
    return [record for _, record in _strict(m2ugen_prediction_rows, path)]


def write_jsonl(records: list[Record], path: str | Path) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
