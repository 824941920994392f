"""Convert the publishers' own files into the site's JSONL contracts.

* ``musicqa``: MU-LLaMA's ``EvalMusicQA.json`` (list of ``{audio_name, conversation}``);
  item id = ``"<audio_name>::<question>"``, the key the M2UGen evaluator joins on.
* ``musiccaps``: Google's ``musiccaps-public.csv``; id = ``ytid``; split ``eval``
  (``is_audioset_eval=True``, the test split MusiLingo uses), ``train`` or ``all``.
* ``jamendo``: Jamendo-MT-QA records ``{pair_id, audio1, audio2, qa_type, question,
  gold_answer[, prediction]}`` as a JSON list or JSON Lines; id = ``"<pair_id>::<qa_type>"``.
  Records are read as evaluate.py reads them, each deviation a warning: a record without
  ``pair_id`` (or with ``null``; evaluate.py's docstring lists no such field) gets
  ``"<audio1>__<audio2>"``, the released files' own pair id; ``gold_answer: null`` is an empty
  gold answer (counted, always wrong); a falsy ``prediction`` (``null``, ``0``, ``false``) is
  ``""``; ``qa_type: null`` is left out.
* ``m2ugen-predictions``: the evaluators' ``{audio_name: {question: prediction}}`` results file.
* ``mmau``, ``muchomusic``: the multiple-choice publishers' files (``scoring/publishers/mcq_importers.py``).
* ``mmar`` (``scoring/publishers/mmar_importers.py``), ``rul-muchomusic`` (``scoring/publishers/rul_importers.py``).
* ``cmi-bench``: CMI-Bench task files and result files (``scoring/publishers/cmi_importers.py``).
* ``songformbench``: SongFormBench's ``songformbench_segments.jsonl`` (``scoring/publishers/songform_importers.py``).
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

import csv
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from scoring.publishers import (
    cmi_importers,
    lp_musiccaps_importers,
    mcq_importers,
    mmar_importers,
    rul_importers,
    songform_importers,
)
from scoring.reading.jsonl import check_storable, json_type, load_json_document, read_records
from scoring.reading.problems import InvalidInput, ProblemLog, copy_problems
from scoring.task_types.comparative import QA_TYPES

Record = dict[str, Any]
Row = tuple[int, Record]


def musicqa_id(audio_name: str, question: str) -> str:
    return f"{audio_name}::{question}"


def musicqa_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """References from ``EvalMusicQA.json``."""
    name = Path(path).name
    data = load_json_document(path, log)
    if data is None:
        return []
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
    name = Path(path).name
    references: list[Row] = []
    predictions: list[Row] = []
    read = [(line, _jamendo_reference(r, line)) for line, r in _jamendo_records(path, log)]
    derived = [(line, record["pair_id"]) for line, record in read if record["_raw"].get("pair_id") is None]
    if derived:
        line, pair_id = derived[0]
        log.warn(name, line, "derived_pair_id",
                 f"{len(derived):,} record(s) have no pair_id (as evaluate.py's docstring lists the fields); each "
                 f'pair is "<audio1>__<audio2>" as in the released files (this one: "{_short(pair_id, 80)}")',
                 "pair_id", count=len(derived))
    for line, record in _dedupe_ids(read):
        raw = record.pop("_raw")
        references.append((line, record))
        if "prediction" in raw and raw.get("qa_type") in QA_TYPES:
            predictions.append((line, {"id": record["id"], "prediction": _jamendo_prediction(raw, name, line, log)}))
    return references, predictions


def _jamendo_reference(record: Record, line: int) -> Record:
    pair_id = record.get("pair_id")
    if pair_id is None:
        audio1, audio2 = record.get("audio1"), record.get("audio2")
        pair_id = f"{audio1}__{audio2}" if isinstance(audio1, str) and isinstance(audio2, str) else f"line-{line}"
    answer = record.get("gold_answer", record.get("answer"))
    if answer is None and ("gold_answer" in record or "answer" in record):
        answer = ""  # evaluate.py: r.get("gold_answer") is falsy, the item counts and is wrong
    return {
        "id": f"{pair_id}::{record.get('qa_type')}",
        **{k: record.get(k) for k in ("audio1", "audio2", "qa_type", "question")},
        "pair_id": pair_id,
        "answer": answer,
        "_raw": record,
    }


def _jamendo_prediction(record: Record, name: str, line: int, log: ProblemLog) -> Any:
    """evaluate.py reads ``text or ""``: any falsy prediction is the empty answer."""
    value = record["prediction"]
    if value is None or isinstance(value, str) or value:
        return value
    log.warn(name, line, "falsy_prediction", f"prediction is {json.dumps(value)}; scored as an empty answer, "
             "as evaluate.py reads any falsy prediction", "prediction")
    return ""


def m2ugen_prediction_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """Predictions from an evaluator results file ``{audio_name: {question: prediction}}``."""
    name = Path(path).name
    data = load_json_document(path, log)
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
    return read_records(path, log)


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


def _rows_from_records(records_of: Callable[[str | Path, ProblemLog], Sequence[Record | None]]) -> Importer:
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


def _jamendo_reference_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """The references of a records file; warnings about its predictions belong to the predictions' import."""
    found = ProblemLog(keep=log.keep)
    references = jamendo_rows(path, found)[0]
    found.warnings = [w for w in found.warnings if w.kind != "falsy_prediction"]
    del found.warning_counts["falsy_prediction"]
    copy_problems(found, log)
    return references


REFERENCE_IMPORTERS: dict[str, Importer] = {
    "musicqa": musicqa_rows,
    "musiccaps": musiccaps_rows,
    "jamendo": lambda path, log: _jamendo_reference_rows(path, log),
    "mmau": _rows_from_records(mcq_importers.import_mmau_references),
    "muchomusic": _rows_from_records(mcq_importers.import_muchomusic_references),
    "mmar": mmar_importers.mmar_reference_rows,
    "rul-muchomusic": rul_importers.rul_reference_rows,
    "cmi-bench": cmi_importers.cmi_reference_rows,
    "lp-musiccaps": lambda path, log: lp_musiccaps_importers.lp_musiccaps_rows(path, log, musiccaps_rows),
    "songformbench": songform_importers.songform_reference_rows,
}
PREDICTION_IMPORTERS: dict[str, Importer] = {
    "m2ugen-predictions": m2ugen_prediction_rows,
    "jamendo": lambda path, log: jamendo_rows(path, log)[1],
    "mmau": _rows_from_records(mcq_importers.mmau_prediction_records),
    "muchomusic": _rows_from_records(mcq_importers.muchomusic_prediction_records),
    "mmar": mmar_importers.mmar_prediction_rows,
    "cmi-bench": cmi_importers.cmi_prediction_rows,
    "songformbench": songform_importers.songform_prediction_rows,
}
PUBLISHER_JSONL: dict[str, Callable[[str | Path], bool]] = {
    "cmi-bench": cmi_importers.is_cmi_result_jsonl,
    "mmar": lambda path: True,  # MMAR rows are JSON Lines as released: uploads always go through them
    "songformbench": songform_importers.has_segment_lists,
}
"""Prediction formats whose publisher files may also be JSON Lines: the test that tells one from the contract."""


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
