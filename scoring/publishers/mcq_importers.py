"""The multiple-choice publishers' own files, converted to the ``multiple_choice`` JSONL contract.

* ``mmau`` references: ``mmau-test-mini.json`` (a JSON list of ``{id, audio_id, question, choices,
  answer, task, sub-category, difficulty, ...}``). Predictions: the same items plus the raw model text in
  ``model_output`` (current evaluation.py) or ``model_prediction`` (its README, the 2024 script).
* ``muchomusic`` references: ``muchomusic.csv`` (options put in one seeded order per question, the
  order this site publishes) or a prompt/prediction JSON list (``answers`` in shown order,
  ``answer_orders``). Predictions: that JSON list with ``model_output``; its ``answers`` must be the
  published order. The released files reuse the track id for every question on a track, so the item
  id is ``"<track id>::<question>"``.

Items already in the contract (``{"id", "prediction"}``, no model output field) pass unchanged, and
an item without its ``choices``/``answers`` has no options to compare, so one upload path reads both.
An item without a model output becomes a line without ``prediction`` (an error naming it, or an
empty answer under ``--missing-as-empty``); the converted JSONL keeps the item order, so line N is
item N of the publisher's list. Files are read as the publishers read them (a UTF-8 BOM is
skipped); a string holding U+0000 or a lone surrogate is an error naming the item and its field,
and so is nesting too deep to parse.

An item listed twice (same id) is scored once when both copies give the same answer up to
surrounding whitespace (a warning: the released scripts would count it twice); two different
answers for one item are an error naming both positions.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scoring.publishers.formats import PublisherFormat, rows_from_records
from scoring.reading.jsonl import check_storable, load_json_of_type
from scoring.reading.problems import InvalidInput, ProblemLog, copy_problems

Record = dict[str, Any]
MMAU_METADATA = ("task", "difficulty", "sub-category", "category", "dataset", "split")
MMAU_OUTPUT_KEYS = ("model_output", "model_prediction")
ORDER_SEED = "muchomusic-order-v1"


def import_mmau_references(path: str | Path, log: ProblemLog | None = None) -> list[Record]:
    """References from an MMAU gold file (JSON list); warnings to ``log`` when given."""
    return [_mmau_reference(item) for item in _json_list(path, log)]


def import_mmau_predictions(path: str | Path, log: ProblemLog | None = None) -> list[Record]:
    """Predictions from an MMAU prediction file: gold items plus ``model_output``/``model_prediction``.

    Warnings (a repeated item scored once) go to ``log`` when given."""
    return _readable(mmau_prediction_records(path, log), Path(path).name, log)


def mmau_prediction_records(path: str | Path, log: ProblemLog | None = None) -> list[Record | None]:
    """:func:`import_mmau_predictions` item by item: ``None`` for a repeated item scored once."""
    return _prediction_records(path, log, MMAU_OUTPUT_KEYS, "choices", _mmau_item_id)


def _mmau_item_id(item: Record) -> Any:
    return item.get("id")


def _mmau_reference(item: Any) -> Record:
    if not isinstance(item, dict):
        return {"id": None}
    metadata: dict[str, Any] = {}
    for key in MMAU_METADATA:
        value = item.get(key)
        if isinstance(value, (str, list)):
            metadata[key] = value
    record = {"id": item.get("id"), "question": item.get("question"), "options": item.get("choices"),
              "answer": item.get("answer"), "metadata": metadata}
    if isinstance(item.get("audio_id"), str):
        record["audio"] = item["audio_id"]
    return record


def muchomusic_id(track: Any, question: Any) -> str:
    return f"{track}::{question}"


def seeded_order(item_id: str, n_options: int) -> list[int]:
    """The site's published option order for one question: ``order[j]`` = original index of shown option j
    (original 0 = the correct answer), as ``answer_orders`` in the released files; seeded by the item id."""
    seed = int.from_bytes(hashlib.sha256(f"{ORDER_SEED}:{item_id}".encode()).digest()[:8], "big")
    return random.Random(seed).sample(range(n_options), k=n_options)


def import_muchomusic_references(path: str | Path, log: ProblemLog | None = None) -> list[Record]:
    """References from ``muchomusic.csv`` (seeded order) or a released prompt/prediction JSON list; warnings to
    ``log`` when given."""
    if Path(path).suffix.lower() == ".csv":
        return _muchomusic_csv(path)
    return [_muchomusic_json_reference(item) for item in _json_list(path, log)]


def import_muchomusic_predictions(path: str | Path, log: ProblemLog | None = None) -> list[Record]:
    """Predictions from a released MuChoMusic prediction JSON list (``model_output``, ``answers``).

    Warnings (a repeated item scored once) go to ``log`` when given."""
    return _readable(muchomusic_prediction_records(path, log), Path(path).name, log)


def muchomusic_prediction_records(path: str | Path, log: ProblemLog | None = None) -> list[Record | None]:
    """:func:`import_muchomusic_predictions` item by item: ``None`` for a repeated item scored once."""
    return _prediction_records(path, log, ("model_output",), "answers", _muchomusic_item_id)


def _muchomusic_item_id(item: Record) -> str:
    return muchomusic_id(item.get("id"), _question(item))


def _prediction_records(path: str | Path, log: ProblemLog | None, output_keys: tuple[str, ...], options_key: str,
                        item_id: Callable[[Record], Any]) -> list[Record | None]:
    """A publisher's prediction list item by item: the first of ``output_keys`` an item has is its prediction,
    ``options_key`` its options; an item with no output key but a ``prediction`` is already in the contract."""
    records: list[Record] = []
    contract: set[int] = set()  # positions of rows already in the contract: read as a JSONL line would be
    for item in _json_list(path, log):
        if not isinstance(item, dict):
            records.append({NOT_AN_OBJECT: True})
            continue
        key = next((k for k in output_keys if k in item), None)
        if key is None and "prediction" in item:
            records.append(item)
            contract.add(len(records))
            continue
        record: Record = {"id": item_id(item)}
        if options_key in item:
            record["options"] = item[options_key]
        if key is not None:
            record["prediction"] = item[key]
        records.append(record)
    return _drop_repeats(records, Path(path).name, log, contract)


NOT_AN_OBJECT = "not_an_object"  # the placeholder record of an array item that is not a JSON object


def not_an_object_problem(log: ProblemLog, name: str, position: int) -> None:
    log.add(name, position, "not_object", f"item {position} of the array must be a JSON object")


def _readable(records: list[Record | None], name: str, log: ProblemLog | None) -> list[Record]:
    """The records to convert: a placeholder becomes its problem (in ``log`` when given), repeats scored once go."""
    kept = []
    for position, record in enumerate(records, start=1):
        if record is not None and NOT_AN_OBJECT in record:
            if log is not None:
                not_an_object_problem(log, name, position)
        elif record is not None:
            kept.append(record)
    return kept


def _drop_repeats(
    records: list[Record], name: str, log: ProblemLog | None, contract: set[int]
) -> list[Record | None]:
    """A repeated publisher item with the same answer (surrounding whitespace aside) becomes ``None`` and
    a warning; a repeated item with another answer stays, and validation reports the duplicate id, as it
    does for every repeat of a row already in the contract (positions ``contract``)."""
    first: dict[str, tuple[int, Any]] = {}
    kept: list[Record | None] = []
    for position, record in enumerate(records, start=1):
        if position in contract:
            kept.append(record)
            continue
        item_id, said = record.get("id"), record.get("prediction")
        key = item_id if isinstance(item_id, (str, int)) and not isinstance(item_id, bool) else None
        if key is not None and str(key) in first and "prediction" in record:
            earlier, earlier_said = first[str(key)]
            if _same_answer(said, earlier_said):
                if log is not None:
                    log.warn(name, position, "repeated_item",
                             f"item {position} repeats item {earlier} (same id, same answer): scored once; "
                             "the released script counts every copy", "id")
                kept.append(None)
                continue
        if key is not None and "prediction" in record:
            first.setdefault(str(key), (position, said))
        kept.append(record)
    return kept


def _same_answer(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.strip() == b.strip()
    return bool(a == b)


def _muchomusic_csv(path: str | Path) -> list[Record]:
    records = []
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            item_id = muchomusic_id(_track_id(row), row.get("question"))
            original = [row.get(k) for k in ("correct_answer", "distractor_1_answer", "distractor_2_answer",
                                              "distractor_3_answer")]
            order = seeded_order(item_id, len(original))
            records.append({
                "id": item_id, "question": row.get("question"),
                "options": [original[j] for j in order], "answer": original[0], "answer_index": order.index(0),
                "metadata": {"dataset": row.get("dataset") or "", "genre": row.get("genre") or "",
                             "knowledge": _dimensions(row.get("music_knowledge")),
                             "reasoning": _dimensions(row.get("music_reasoning"))},
            })
    return records


def _muchomusic_json_reference(item: Any) -> Record:
    if not isinstance(item, dict):
        return {"id": None}
    options, orders = item.get("answers"), item.get("answer_orders")
    record: Record = {"id": _muchomusic_item_id(item), "question": _question(item),
                      "options": options}
    if isinstance(options, list) and isinstance(orders, list) and 0 in orders and len(orders) == len(options):
        record["answer_index"] = orders.index(0)
        record["answer"] = options[orders.index(0)]
    metadata = {k: item[k] for k in ("dataset", "genre", "knowledge", "reasoning") if k in item}
    record["metadata"] = {k: (str(v) if k in ("dataset", "genre") else v) for k, v in metadata.items()}
    if isinstance(item.get("audio_path"), str):
        record["audio"] = item["audio_path"]
    return record


def _question(item: dict[str, Any]) -> Any:
    """The question text: a released prompt file has only the prompt ``... Question: q\\n Options: ...``."""
    if "question" in item:
        return item["question"]
    prompt = item.get("prompt")
    if not isinstance(prompt, str) or "Question: " not in prompt:
        return prompt
    return prompt.rsplit("Question: ", 1)[1].split("\n Options: ", 1)[0]


def _track_id(row: dict[str, Any]) -> str:
    """The released loader's audio id: sdd ``<n>.json`` -> ``n``; MusicCaps ``<ytid>_<k>.json`` -> ``ytid``."""
    raw = (row.get("dataset_identifier") or "").removesuffix(".json")
    return str(int(raw)) if row.get("dataset") == "sdd" and raw.isdigit() else "_".join(raw.split("_")[:-1]) or raw


def _dimensions(value: str | None) -> list[str]:
    if not value:
        return []
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):  # the reference parser then reports a wrong metadata type
        return [value]
    return [str(v) for v in parsed] if isinstance(parsed, list) else []


def _json_list(path: str | Path, log: ProblemLog | None = None) -> list[Any]:
    """The file's JSON array; every item that holds unstorable text is an error naming it and its field (errors
    raise :class:`InvalidInput`); warnings (a key repeated in an object) go to ``log`` when given."""
    name = Path(path).name
    found = ProblemLog(keep=10)
    data = load_json_of_type(path, found, list, "expected a JSON array of items")
    if not found:
        for position, item in enumerate(data, start=1):
            check_storable(item, name, position, found)
    if found:
        raise InvalidInput(found)
    if log is not None:
        copy_problems(found, log)  # warnings only: an error has raised
    return data


MMAU = PublisherFormat("mmau", rows_from_records(import_mmau_references), rows_from_records(mmau_prediction_records))
MUCHOMUSIC = PublisherFormat("muchomusic", rows_from_records(import_muchomusic_references),
                             rows_from_records(muchomusic_prediction_records))
