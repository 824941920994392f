"""CMI-Bench's own files (nicolaus625/CMI-bench), converted to the ``generation`` JSONL contract.

* References (``--references-format cmi-bench``): a released task file, e.g. ``CMI_GTZAN_test.jsonl``,
  one JSON object a line: ``instruction``, ``output`` (the reference), ``audio_path`` (a one-element
  list), ``audio_start``, ``audio_end``, ``task_type``, ``source``, ``split``. Each becomes
  ``{"id", "answer": output, "question": instruction, "audio": audio path}``; an integer ``output`` (NSynth
  pitch's MIDI numbers) becomes its decimal string, as evaluate.py's ``str(correct_answer)`` reads it.
* Predictions (``--predictions-format cmi-bench``): a CMI-Bench result file, the released records in
  file order, each with the model's ``response`` (the field evaluate.py reads), as one JSON array or
  as JSON Lines. Each becomes ``{"id", "prediction": response}``. A record without any of
  ``audio_path``, ``audio_start``, ``audio_end`` (the inference scripts write ``{question, response,
  correct_answer, audioid}``) is matched by its place in the file instead: it becomes
  ``{"item_position": n, "prediction": response}``, with its ``audioid``: validation joins it to item n
  when the file keeps the released order, else by its audio file name in file order (a run that lacks
  items; ``scoring/reading/validation.py``). A record out of the released order, or one that could be
  either of two segments of one clip, is an error, not a silent misalignment; the record's
  ``correct_answer`` is never compared, so no error can confirm a label.

**Item ids.** The released files carry no id (``uuid`` is empty), so one is derived from the fields
that locate the audio: ``<audio_path>[<audio_start>:<audio_end>]`` with the times as Python floats
(``data/GTZAN/Data/genres_original/blues/blues.00012.wav[0.0:30.0]``). A few files repeat a clip
(DSing has two identical records, Song Describer several captions per clip): the second and later
records with the same key get ``#2``, ``#3`` ... in file order, so a result file must keep the
released order among those repeats (it does when it is the released file with responses added).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from scoring.metrics.cmi_tag_vocabularies import NO_TAG
from scoring.publishers.formats import PublisherFormat
from scoring.reading.jsonl import json_type, read_records
from scoring.reading.problems import ProblemLog

Record = dict[str, Any]
Row = tuple[int, Record]
KEY_FIELDS = ("audio_path", "audio_start", "audio_end")


def cmi_key(record: Record) -> tuple[str | None, str | None]:
    """The id key of one released record, or ``(None, problem)`` naming the bad field."""
    path = record.get("audio_path")
    if isinstance(path, list) and path:
        path = path[0]
    if not isinstance(path, str) or not path:
        return None, "audio_path must be a non-empty string or a list holding one"
    times = []
    for name in ("audio_start", "audio_end"):
        value = record.get(name)
        seconds = _seconds(value)
        if seconds is None:
            return None, f"{name} must be a finite number, got {json_type(value)}"
        times.append(repr(seconds))
    return f"{path}[{times[0]}:{times[1]}]", None


def _seconds(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        seconds = float(value)
    except OverflowError:  # an integer literal beyond the float range
        return None
    return seconds if math.isfinite(seconds) else None


def _with_ids(rows: list[Row], name: str, log: ProblemLog) -> list[tuple[int, Record, str]]:
    """Each record with its derived id (repeats numbered in file order); bad keys are problems."""
    seen: dict[str, int] = {}
    out = []
    for line, record in rows:
        key, problem = cmi_key(record)
        if key is None:
            field = next((f for f in KEY_FIELDS if problem and problem.startswith(f)), None)
            log.add(name, line, "missing_field" if field and field not in record else "wrong_type",
                    f"{problem} (the item id is derived from {', '.join(KEY_FIELDS)})", field)
            continue
        seen[key] = seen.get(key, 0) + 1
        out.append((line, record, key if seen[key] == 1 else f"{key}#{seen[key]}"))
    return out


def cmi_reference_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """References from a released CMI-Bench task file."""
    name = Path(path).name
    rows: list[Row] = []
    for line, record, item_id in _with_ids(list(read_records(path, log)), name, log):
        output = record.get("output")
        if isinstance(output, int) and not isinstance(output, bool):
            output = str(output)  # NSynth pitch's MIDI numbers: evaluate.py reads str(correct_answer)
        if not isinstance(output, str):
            log.add(name, line, "wrong_type" if "output" in record else "missing_field",
                    f"output (the reference) must be a string or an integer, got {json_type(output)}", "output")
            continue
        if not output.strip() and "multi_label" in _major_tasks(record):
            log.warn(name, line, "no_tag", f"output is empty: a clip without a tag, kept and scored as evaluate.py "
                     f"scores it (no tag is true); stored as {NO_TAG!r}, which the tagging metrics read as no tag",
                     "output")
            output = NO_TAG
        if "emotion_regression" in _minor_tasks(record) and not _is_number(output):
            log.add(name, line, "invalid_value", f"output of an emotion-regression item must be a number, got "
                    f"{output[:40]!r}", "output")
            continue
        converted: Record = {"id": item_id, "answer": output}
        if isinstance(record.get("instruction"), str):
            converted["question"] = record["instruction"]
        audio = record["audio_path"]
        converted["audio"] = audio[0] if isinstance(audio, list) else audio
        rows.append((line, converted))
    return rows


def cmi_prediction_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """Predictions from a CMI-Bench result file (released records, each with ``response``)."""
    name = Path(path).name
    records = list(read_records(path, log))
    positions = {line: n for n, (line, _) in enumerate(records, start=1)}
    keyed = [(line, r) for line, r in records if any(f in r for f in KEY_FIELDS)]
    placed = [(line, r, "") for line, r in records if not any(f in r for f in KEY_FIELDS)]
    rows: list[Row] = []
    for line, record, item_id in sorted([*_with_ids(keyed, name, log), *placed], key=lambda row: row[0]):
        if "response" not in record:
            log.add(name, line, "missing_field", 'required field "response" (the model\'s answer) is missing',
                    "response")
            continue
        response = record["response"]
        if isinstance(response, list) and response and isinstance(response[0], str):
            # evaluate.py's normalise and get_beat read a list's first element (its other readers stop on a list)
            log.warn(name, line, "list_response", f"response is a list of {len(response)}; its first element is "
                     "scored (evaluate.py reads a list so for label and beat tasks and stops on one elsewhere)",
                     "response")
            response = response[0]
        if response is not None and not isinstance(response, str):
            log.add(name, line, "wrong_type", f"response must be a string, got {json_type(response)}", "response")
            continue
        if item_id:
            rows.append((line, {"id": item_id, "prediction": response}))
            continue
        converted: Record = {"item_position": positions[line], "prediction": response}
        if isinstance(record.get("audioid"), str):
            converted["audio"] = record["audioid"]
        rows.append((line, converted))
    return rows


def _major_tasks(record: Record) -> list[Any]:
    task_type = record.get("task_type")
    major = task_type.get("major") if isinstance(task_type, dict) else None
    return major if isinstance(major, list) else []


def _minor_tasks(record: Record) -> list[Any]:
    task_type = record.get("task_type")
    minor = task_type.get("minor") if isinstance(task_type, dict) else None
    return minor if isinstance(minor, list) else []


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def is_cmi_result_jsonl(path: str | Path) -> bool:
    """Whether a JSON Lines file is a CMI-Bench result file (its first record has ``response``, no ``id``)."""
    try:
        with open(path, "rb") as handle:
            for raw in handle:
                if raw.strip(b"\xef\xbb\xbf \t\r\n"):
                    first = json.loads(raw.decode("utf-8-sig"))
                    return isinstance(first, dict) and "response" in first and "id" not in first
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return False
    return False


CMI_BENCH = PublisherFormat("cmi-bench", cmi_reference_rows, cmi_prediction_rows, is_cmi_result_jsonl)
