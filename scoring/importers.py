"""Convert the publishers' own files into the site's JSONL contracts.

* ``musicqa``: MU-LLaMA's ``EvalMusicQA.json`` (list of ``{audio_name, conversation}``);
  item id = ``"<audio_name>::<question>"``, the key the M2UGen evaluator joins on.
* ``musiccaps``: Google's ``musiccaps-public.csv``; id = ``ytid``; split ``eval``
  (``is_audioset_eval=True``, the test split MusiLingo uses), ``train`` or ``all``.
* ``jamendo``: Jamendo-MT-QA records ``{pair_id, audio1, audio2, qa_type, question,
  gold_answer[, prediction]}`` as a JSON list or JSON Lines; id = ``"<pair_id>::<qa_type>"``.
* ``m2ugen-predictions``: the evaluators' ``{audio_name: {question: prediction}}`` results file.
* ``mmau``, ``muchomusic``: the multiple-choice publishers' files (``scoring/mcq_importers.py``).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from scoring import mcq_importers
from scoring.problems import InvalidInput, ProblemLog

Record = dict[str, Any]


def musicqa_id(audio_name: str, question: str) -> str:
    return f"{audio_name}::{question}"


def import_musicqa(path: str | Path) -> list[Record]:
    """References from ``EvalMusicQA.json``."""
    log = ProblemLog(keep=100)
    name = Path(path).name
    data = _load_json(path, log)
    records: list[Record] = []
    if not isinstance(data, list):
        log.add(name, 0, "wrong_type", "EvalMusicQA.json must hold a JSON array")
        raise InvalidInput(log)
    for index, row in enumerate(data, start=1):
        try:
            audio = row["audio_name"]
            question, answer = row["conversation"][0]["value"], row["conversation"][1]["value"]
        except (KeyError, IndexError, TypeError):
            log.add(name, index, "missing_field", f"item {index} lacks audio_name or a question/answer conversation")
            continue
        records.append({"id": musicqa_id(audio, question), "audio": audio, "question": question, "answer": answer})
    if log:
        raise InvalidInput(log)
    return _dedupe_ids(records)


def import_musiccaps(path: str | Path, split: str = "eval") -> list[Record]:
    """References from ``musiccaps-public.csv``."""
    if split not in ("eval", "train", "all"):
        raise ValueError("split must be eval, train or all")
    records = []
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            is_eval = row.get("is_audioset_eval") == "True"
            if split == "all" or (split == "eval") == is_eval:
                records.append({
                    "id": row["ytid"],
                    "audio": f"{row['ytid']}[{row['start_s']}-{row['end_s']}]",
                    "question": "Describe the music.",
                    "answer": row["caption"],
                })
    return records


def import_jamendo(path: str | Path) -> tuple[list[Record], list[Record]]:
    """References and, where records carry a ``prediction``, predictions."""
    references, predictions = [], []
    for record in _jamendo_records(path):
        item_id = f"{record.get('pair_id')}::{record.get('qa_type')}"
        references.append({
            "id": item_id,
            **{k: record.get(k) for k in ("pair_id", "audio1", "audio2", "qa_type", "question")},
            "answer": record.get("gold_answer", record.get("answer")),
        })
        if "prediction" in record:
            predictions.append({"id": item_id, "prediction": record["prediction"]})
    return _dedupe_ids(references), _dedupe_ids(predictions)


def import_m2ugen_predictions(path: str | Path) -> list[Record]:
    """Predictions from an evaluator results file ``{audio_name: {question: prediction}}``."""
    log = ProblemLog(keep=100)
    data = _load_json(path, log)
    if not isinstance(data, dict):
        log.add(Path(path).name, 0, "wrong_type", "expected an object {audio_name: {question: prediction}}")
        raise InvalidInput(log)
    return [
        {"id": musicqa_id(audio, question), "prediction": text}
        for audio, answers in data.items() if isinstance(answers, dict)
        for question, text in answers.items()
    ]


def _jamendo_records(path: str | Path) -> Iterator[Record]:
    text = Path(path).read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        yield from json.loads(stripped)
    else:
        for line in text.splitlines():
            if line.strip():
                yield json.loads(line)


def _load_json(path: str | Path, log: ProblemLog) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        log.add(Path(path).name, 0, "not_json", f"not a JSON document: {exc}")
        raise InvalidInput(log) from None


def _dedupe_ids(records: list[Record]) -> list[Record]:
    """Suffix ``::2``, ``::3`` ... to repeated ids so every item keeps its own id."""
    seen: dict[str, int] = {}
    for record in records:
        base = record["id"]
        seen[base] = seen.get(base, 0) + 1
        if seen[base] > 1:
            record["id"] = f"{base}::{seen[base]}"
    return records


REFERENCE_IMPORTERS: dict[str, Callable[[str | Path], list[Record]]] = {
    "musicqa": import_musicqa,
    "musiccaps": import_musiccaps,
    "jamendo": lambda path: import_jamendo(path)[0],
    "mmau": mcq_importers.import_mmau_references,
    "muchomusic": mcq_importers.import_muchomusic_references,
}
PREDICTION_IMPORTERS: dict[str, Callable[[str | Path], list[Record]]] = {
    "m2ugen-predictions": import_m2ugen_predictions,
    "jamendo": lambda path: import_jamendo(path)[1],
    "mmau": mcq_importers.import_mmau_predictions,
    "muchomusic": mcq_importers.import_muchomusic_predictions,
}


def write_jsonl(records: list[Record], path: str | Path) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
