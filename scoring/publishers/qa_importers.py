"""Readers of MU-LLaMA's MusicQA, Google's MusicCaps, Jamendo-MT-QA and the M2UGen evaluators' files.

* ``musicqa``: MU-LLaMA's ``EvalMusicQA.json`` (list of ``{audio_name, conversation}``);
  item id = ``"<audio_name>::<question>"``, the key the M2UGen evaluator joins on.
* ``musiccaps``: Google's ``musiccaps-public.csv``; id = ``ytid``; split ``eval``
  (``is_audioset_eval=True``, the test split MusiLingo uses), ``train`` or ``all``.
* ``jamendo``: Jamendo-MT-QA records (references and, where records carry them, predictions), read as
  evaluate.py reads them (``scoring/publishers/importers.py`` says how).
* ``m2ugen-predictions``: the evaluators' ``{audio_name: {question: prediction}}`` results file.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scoring.publishers.formats import PublisherFormat, Record, Row
from scoring.reading.jsonl import check_storable, json_type, load_json_of_type, read_records
from scoring.reading.problems import ProblemLog, copy_problems
from scoring.task_types.comparative import QA_TYPES


def musicqa_id(audio_name: str, question: str) -> str:
    return f"{audio_name}::{question}"


def musicqa_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """References from ``EvalMusicQA.json``."""
    name = Path(path).name
    data = load_json_of_type(path, log, list, "EvalMusicQA.json must hold a JSON array")
    if data is None:
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
    data = load_json_of_type(path, log, dict, "expected an object {audio_name: {question: prediction}}")
    if data is None:
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


def jamendo_reference_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """The references of a records file; warnings about its predictions belong to the predictions' import."""
    found = ProblemLog(keep=log.keep)
    references = jamendo_rows(path, found)[0]
    found.warnings = [w for w in found.warnings if w.kind != "falsy_prediction"]
    del found.warning_counts["falsy_prediction"]
    copy_problems(found, log)
    return references


def jamendo_prediction_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """The predictions a records file carries."""
    return jamendo_rows(path, log)[1]


MUSICQA = PublisherFormat("musicqa", musicqa_rows)
M2UGEN_PREDICTIONS = PublisherFormat("m2ugen-predictions", predictions=m2ugen_prediction_rows)
MUSICCAPS = PublisherFormat("musiccaps", musiccaps_rows)
JAMENDO = PublisherFormat("jamendo", jamendo_reference_rows, jamendo_prediction_rows)
