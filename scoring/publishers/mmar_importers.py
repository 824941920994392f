"""MMAR's own files (ddlBoJack/MMAR @ 3bce090a), converted to the ``multiple_choice`` JSONL contract.

* References: ``MMAR-meta.jsonl`` (or a JSON array of the same items): ``{id, audio_path, question,
  choices, answer, modality, category, sub-category, language, source, ...}``. The item id is the
  released ``id``; ``modality``, ``category`` (the layer) and ``sub-category`` become the breakdown
  groups; the annotators' ``thinking``, ``cue`` and ``rubric`` are not inputs and are left out.
* Predictions: the rows ``code/evaluation.py`` reads, the items plus the raw model text in
  ``answer_prediction``, as JSON Lines or a JSON array. The released script skips a row without
  ``answer_prediction`` (its accuracy is then over the answered rows only); here every item needs a
  prediction, so such a row becomes ``{"id"}`` with no ``prediction``, with a warning naming its line:
  validation refuses it as it refuses any line without a prediction, and ``--missing-as-empty`` scores it
  as an empty answer, as it scores an item with no row. A null ``answer_prediction`` is scored as an empty
  answer, with a warning (the released script stops on it). Rows already in the contract
  (``{"id", "prediction"}``) pass unchanged, so one upload path reads both.

Rows keep their line (JSON Lines) or 1-based position (JSON array), so every problem points into
the publisher's own file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scoring.publishers.formats import PublisherFormat, always
from scoring.reading.jsonl import check_storable, json_type, load_json_of_type, read_jsonl
from scoring.reading.problems import ProblemLog

Record = dict[str, Any]
Row = tuple[int, Record]
MMAR_METADATA = ("modality", "category", "sub-category", "language", "source")
MMAR_OUTPUT_KEY = "answer_prediction"


def mmar_reference_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """References from ``MMAR-meta.jsonl`` (or a JSON array), one row per item."""
    return [(line, _reference(item)) for line, item in mmar_records(path, log)]


def mmar_prediction_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """Predictions from an MMAR prediction file (items plus ``answer_prediction``)."""
    name = Path(path).name
    rows: list[Row] = []
    for line, item in mmar_records(path, log):
        if MMAR_OUTPUT_KEY in item:
            record: Record = {"id": item.get("id"), "prediction": item[MMAR_OUTPUT_KEY]}
            if record["prediction"] is None:
                log.warn(name, line, "null_prediction", f"{MMAR_OUTPUT_KEY} is null; scored as an empty answer",
                         MMAR_OUTPUT_KEY)
                record["prediction"] = ""
            if "choices" in item:
                record["options"] = item["choices"]
        elif "prediction" in item:
            record = item
        else:
            log.warn(name, line, "missing_answer_prediction",
                     f'field "{MMAR_OUTPUT_KEY}" is missing (the released evaluation.py skips such rows and reports '
                     "accuracy over the rest): an error here, or an empty answer with --missing-as-empty",
                     MMAR_OUTPUT_KEY)
            record = {"id": item.get("id")}  # no prediction: validation refuses it or scores it as missing
        rows.append((line, record))
    return rows


def mmar_records(path: str | Path, log: ProblemLog) -> Iterator[tuple[int, Record]]:
    """``(line, object)`` of a JSON Lines file, or ``(position, object)`` of a JSON array, as the
    released script accepts both; every unreadable line or non-object item is a problem."""
    name = Path(path).name
    if not _is_json_array(path):
        yield from read_jsonl(path, log, name=name)
        return
    data = load_json_of_type(path, log, list, "expected a JSON array of items")
    for position, item in enumerate(data or [], start=1):
        if not isinstance(item, dict):
            log.add(name, position, "not_object", f"item {position} of the array must be a JSON object, "
                    f"got {json_type(item)}")
        elif check_storable(item, name, position, log):
            yield position, item


def _reference(item: Record) -> Record:
    metadata = {key: item[key] for key in MMAR_METADATA if isinstance(item.get(key), str)}
    record: Record = {"id": item.get("id"), "question": item.get("question"), "options": item.get("choices"),
                      "answer": item.get("answer"), "metadata": metadata}
    if isinstance(item.get("audio_path"), str):
        record["audio"] = item["audio_path"]
    return record


def _is_json_array(path: str | Path) -> bool:
    with open(path, "rb") as handle:
        head = handle.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"[")


MMAR = PublisherFormat("mmar", mmar_reference_rows, mmar_prediction_rows, always)
