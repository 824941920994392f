"""Convert the publishers' own files into the site's JSONL contracts.

* ``musicqa``: MU-LLaMA's ``EvalMusicQA.json`` (list of ``{audio_name, conversation}``);
  item id = ``"<audio_name>::<question>"``, the key the M2UGen evaluator joins on.
* ``musiccaps``: Google's ``musiccaps-public.csv``; id = ``ytid``; split ``eval``
  (``is_audioset_eval=True``, the test split MusiLingo uses), ``train`` or ``all``.
* ``jamendo``: Jamendo-MT-QA records ``{pair_id, audio1, audio2, qa_type, question,
  gold_answer[, prediction]}`` as a JSON list or JSON Lines; id = ``"<pair_id>::<qa_type>"``.
* ``m2ugen-predictions``: the evaluators' ``{audio_name: {question: prediction}}`` results file.
* ``mmau``, ``muchomusic``: the multiple-choice publishers' files (``scoring/mcq_importers.py``).
* ``cmi-bench``: CMI-Bench task files and result files (``scoring/cmi_importers.py``).

Importers accept what the publisher's evaluator accepts (a BOM, CRLF line ends, U+2028,
U+2029 or U+0085 inside strings: JSON Lines are split on ``\\n`` only) and never raise on a
bad record: each is a problem naming file and line. They yield *rows* ``(line, record)``,
where ``line`` is the record's line in a JSON Lines or CSV file and its 1-based position in a
JSON array; :func:`write_rows` keeps that line number in the converted file, so the
validation that follows (and its warnings, e.g. an empty gold answer) points at the
maintainer's own file. Nothing is ever written next to the input.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from scoring import cmi_importers, mcq_importers
from scoring.jsonl import check_storable, json_type
from scoring.problems import InvalidInput, ProblemLog
from scoring.tasks.comparative import QA_TYPES

Record = dict[str, Any]
Row = tuple[int, Record]


def musicqa_id(audio_name: str, question: str) -> str:
    return f"{audio_name}::{question}"


def musicqa_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """References from ``EvalMusicQA.json``."""
    name = Path(path).name
    data = _load_json(path, log)
    if not isinstance(data, list):
        log.add(name, 0, "wrong_type", "EvalMusicQA.json must hold a JSON array")
        return []
    rows: list[Row] = []
    for index, row in enumerate(data, start=1):
        try:
            audio = row["audio_name"]
            question, answer = row["conversation"][0]["value"], row["conversation"][1]["value"]
        except (KeyError, IndexError, TypeError):
            log.add(name, index, "missing_field", f"item {index} lacks audio_name or a question/answer conversation")
            continue
        if not all(isinstance(v, str) for v in (audio, question)):
            log.add(name, index, "wrong_type", f"item {index}: audio_name and the question must be strings")
            continue
        record = {"id": musicqa_id(audio, question), "audio": audio, "question": question, "answer": answer}
        if check_storable(record, name, index, log):
            rows.append((index, record))
    return _dedupe_ids(rows)


def musiccaps_rows(path: str | Path, log: ProblemLog, split: str = "eval") -> list[Row]:
    """References from ``musiccaps-public.csv``."""
    if split not in ("eval", "train", "all"):
        raise ValueError("split must be eval, train or all")
    name = Path(path).name
    rows: list[Row] = []
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            missing = {"ytid", "start_s", "end_s", "caption", "is_audioset_eval"} - set(reader.fieldnames or ())
            if missing:
                log.add(name, 1, "missing_field", f"the header lacks {', '.join(sorted(missing))}")
                return []
            for row in reader:
                is_eval = row.get("is_audioset_eval") == "True"
                if split == "all" or (split == "eval") == is_eval:
                    record = {
                        "id": row["ytid"],
                        "audio": f"{row['ytid']}[{row['start_s']}-{row['end_s']}]",
                        "question": "Describe the music.",
                        "answer": row["caption"],
                    }
                    if check_storable(record, name, reader.line_num, log):
                        rows.append((reader.line_num, record))
    except UnicodeDecodeError as exc:
        log.add(name, 0, "encoding", f"not valid UTF-8: {exc.reason}")
    except csv.Error as exc:
        log.add(name, 0, "not_csv", f"not a readable CSV file: {exc}")
    return rows


def jamendo_rows(path: str | Path, log: ProblemLog) -> tuple[list[Row], list[Row]]:
    """References and, where records carry a ``prediction``, predictions (same ids, same lines).

    A record whose ``qa_type`` evaluate.py does not know gives no prediction row (its reference
    row is left out by validation, with a warning), so it is ignored as evaluate.py ignores it.
    """
    references: list[Row] = []
    predictions: list[Row] = []
    for line, record in _dedupe_ids([(line, _jamendo_reference(r)) for line, r in _jamendo_records(path, log)]):
        raw = record.pop("_raw")
        references.append((line, record))
        if "prediction" in raw and raw.get("qa_type") in QA_TYPES:
            predictions.append((line, {"id": record["id"], "prediction": raw["prediction"]}))
    return references, predictions


def _jamendo_reference(record: Record) -> Record:
    return {
        "id": f"{record.get('pair_id')}::{record.get('qa_type')}",
        **{k: record.get(k) for k in ("pair_id", "audio1", "audio2", "qa_type", "question")},
        "answer": record.get("gold_answer", record.get("answer")),
        "_raw": record,
    }


def m2ugen_prediction_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """Predictions from an evaluator results file ``{audio_name: {question: prediction}}``."""
    name = Path(path).name
    data = _load_json(path, log)
    if data is None:
        return []
    if not isinstance(data, dict):
        log.add(name, 0, "wrong_type", "expected an object {audio_name: {question: prediction}}")
        return []
    rows: list[Row] = []
    number = 0  # the prediction's position in the file, as its "line"
    for audio, answers in data.items():
        if not isinstance(answers, dict):
            log.add(name, 0, "wrong_type", f"the value of an audio name must be an object, got {json_type(answers)}")
            continue
        for question, text in answers.items():
            number += 1
            record = {"id": musicqa_id(audio, question), "prediction": text}
            if check_storable(record, name, number, log):
                rows.append((number, record))
    return rows


def _jamendo_records(path: str | Path, log: ProblemLog) -> Iterator[Row]:
    name = Path(path).name
    try:
        text = Path(path).read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        log.add(name, 0, "encoding", f"not valid UTF-8 (byte offset {exc.start})")
        return
    if text.lstrip().startswith("["):
        data = _parse_json(text, name, log)
        if data is None:
            return
        if not isinstance(data, list):
            log.add(name, 0, "wrong_type", "expected a JSON array of records")
            return
        items: Iterator[tuple[int, Any]] = enumerate(data, start=1)
    else:
        items = _json_lines(text, name, log)
    for line, record in items:
        if not isinstance(record, dict):
            log.add(name, line, "not_object", f"each record must be a JSON object, got {json_type(record)}")
        elif check_storable(record, name, line, log):
            yield line, record


def _json_lines(text: str, name: str, log: ProblemLog) -> Iterator[tuple[int, Any]]:
    # "\n" only: str.splitlines() would also split at U+2028, U+2029, U+0085 ... inside strings
    for line, raw in enumerate(text.split("\n"), start=1):
        raw = raw.removesuffix("\r")
        if not raw.strip():
            continue
        try:
            yield line, json.loads(raw)
        except RecursionError:
            log.add(name, line, "too_deep", "JSON nesting is too deep")
        except ValueError as exc:
            log.add(name, line, "not_json", f"not valid JSON: {_short(str(exc))}")


def _load_json(path: str | Path, log: ProblemLog) -> Any:
    name = Path(path).name
    try:
        text = Path(path).read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        log.add(name, 0, "encoding", f"not valid UTF-8 (byte offset {exc.start})")
        return None
    return _parse_json(text, name, log)


def _parse_json(text: str, name: str, log: ProblemLog) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        log.add(name, exc.lineno, "not_json", f"not a JSON document: {exc.msg} (column {exc.colno})")
    except RecursionError:
        log.add(name, 0, "too_deep", "JSON nesting is too deep")
    except ValueError as exc:
        log.add(name, 0, "not_json", f"not a JSON document: {_short(str(exc))}")
    return None


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _dedupe_ids(rows: list[Row]) -> list[Row]:
    """Suffix ``::2``, ``::3`` ... to repeated ids so every item keeps its own id."""
    seen: dict[str, int] = {}
    for _, record in rows:
        base = record["id"]
        seen[base] = seen.get(base, 0) + 1
        if seen[base] > 1:
            record["id"] = f"{base}::{seen[base]}"
    return rows


Importer = Callable[[str | Path, ProblemLog], list[Row]]


def _rows_from_records(records_of: Callable[[str | Path], list[Record]]) -> Importer:
    """A whole-file importer (raising :class:`InvalidInput`) as an importer of rows: line N is item N."""

    def rows(path: str | Path, log: ProblemLog) -> list[Row]:
        try:
            return list(enumerate(records_of(path), start=1))
        except InvalidInput as exc:
            for problem in exc.log.problems:
                log.add(problem.file, problem.line, problem.kind, problem.message, problem.field)
            return []

    return rows


REFERENCE_IMPORTERS: dict[str, Importer] = {
    "musicqa": musicqa_rows,
    "musiccaps": musiccaps_rows,
    "jamendo": lambda path, log: jamendo_rows(path, log)[0],
    "mmau": _rows_from_records(mcq_importers.import_mmau_references),
    "muchomusic": _rows_from_records(mcq_importers.import_muchomusic_references),
    "cmi-bench": cmi_importers.cmi_reference_rows,
}
PREDICTION_IMPORTERS: dict[str, Importer] = {
    "m2ugen-predictions": m2ugen_prediction_rows,
    "jamendo": lambda path, log: jamendo_rows(path, log)[1],
    "mmau": _rows_from_records(mcq_importers.import_mmau_predictions),
    "muchomusic": _rows_from_records(mcq_importers.import_muchomusic_predictions),
    "cmi-bench": cmi_importers.cmi_prediction_rows,
}
PUBLISHER_JSONL: dict[str, Callable[[str | Path], bool]] = {"cmi-bench": cmi_importers.is_cmi_result_jsonl}
"""Prediction formats whose publisher files may also be JSON Lines: the test that tells one from the contract."""


def convert_file(importer: Importer, source: str | Path, target: str | Path) -> ProblemLog:
    """Convert ``source`` with ``importer`` into JSONL at ``target`` (keeping line numbers);
    the returned log holds the importer's problems (any error: nothing is written)."""
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
