"""Validation, separate from scoring: read reference and prediction files into
typed records and report every problem with file, line and field.

Nothing here stops at the first problem; a file with problems yields the
records that were fine plus a :class:`~scoring.reading.problems.ProblemLog`.
"""

from __future__ import annotations

import bisect
import difflib
import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from scoring.metrics.base import MetricFamily
from scoring.reading.jsonl import MAX_LINE_BYTES, read_jsonl
from scoring.reading.problems import InvalidInput, ProblemLog, copy_problems
from scoring.specs import BenchmarkSpec
from scoring.task_types import TASK_TYPES, Fields, Prediction, Reference


@dataclass
class ReferenceSet:
    """The items of one split, in file order, with their index by id."""

    name: str
    references: list[Reference]

    def __post_init__(self) -> None:
        self.index = {ref.id: i for i, ref in enumerate(self.references)}

    def __len__(self) -> int:
        return len(self.references)


def read_references(
    spec: BenchmarkSpec, path: str | Path, log: ProblemLog, *, name: str | None = None
) -> ReferenceSet:
    """Read a reference JSONL file; problems (duplicate ids included) go to ``log``."""
    display = name or Path(path).name
    return parse_references(spec, read_jsonl(path, log, name=display, max_line_bytes=16 * MAX_LINE_BYTES),
                            log, display)


def parse_references(
    spec: BenchmarkSpec, objects: Iterable[tuple[int, dict[str, Any]]], log: ProblemLog, display: str
) -> ReferenceSet:
    task = TASK_TYPES[spec.task_type]
    seen: dict[str, int] = {}
    references: list[Reference] = []
    for line, obj in objects:
        ref = task.parse_reference(Fields(obj, log, display, line))
        if ref is None:
            continue
        if ref.id in seen:
            log.add(display, line, "duplicate_id", f'id "{_clip(ref.id)}" already on line {seen[ref.id]}', "id")
            continue
        seen[ref.id] = line
        references.append(ref)
    if not references and not log:
        log.add(display, 0, "empty_file", "the file has no items")
    return ReferenceSet(display, references)


def read_predictions(
    spec: BenchmarkSpec,
    references: ReferenceSet,
    path: str | Path,
    log: ProblemLog,
    *,
    name: str | None = None,
    missing_as_empty: bool = False,
    publisher_file: bool = False,
) -> list[Prediction | None]:
    """Read a prediction file aligned with ``references`` (``None`` where an item is missing).

    Reports: unreadable lines, wrong fields, duplicate and unknown ids, and the
    reference items without a prediction (one problem: how many, and the first ids).
    ``missing_as_empty`` (text tasks only) scores those, and lines without a ``prediction``
    field, as empty predictions, with a warning. In a publisher's own file (``publisher_file``,
    a file converted from a ``--predictions-format``, or a publisher JSON array read as is) an
    unknown id is left out with a warning, as the publishers' evaluators leave it out; in the
    JSONL contract it is an error.
    """
    display = name or Path(path).name
    task = TASK_TYPES[spec.task_type]
    aligned: list[Prediction | None] = [None] * len(references)
    seen: dict[str, int] = {}
    shapes: Counter[str] = Counter()
    unknown: list[tuple[int, str]] = []
    publisher_array = is_publisher_file(spec, path)
    publisher_file = publisher_file or publisher_array
    errors_before, unknown_before = log.total, log.counts["unknown_id"]
    answer_checks = _answer_checks(spec)
    objects = _prediction_objects(spec, path, log, display)
    first = next(objects, None)
    any_line = first is not None
    seen_keys: Counter[str] = Counter()
    unanswered = 0
    unit = log.units.get(display, "line")
    for line, obj in _joined(itertools.chain([] if first is None else [first], objects), references, log, display):
        shapes[_shape(obj)] += 1
        seen_keys.update(obj.keys())
        unanswered += _shape(obj) == "other"
        if (missing_as_empty and spec.task_type != "ranking" and "prediction" not in obj
                and isinstance(obj.get("id"), str) and obj["id"] in references.index):
            continue  # an item without an answer: scored as empty below, with the missing ones
        fields = Fields(obj, log, display, line)
        raw_id = obj.get("id")
        index = references.index.get(raw_id) if isinstance(raw_id, str) else None
        reference = references.references[index] if index is not None else None
        prediction = task.parse_prediction(fields, reference)
        if isinstance(raw_id, str) and raw_id.strip():
            if raw_id in seen:
                log.add(display, line, "duplicate_id", f'id "{_clip(raw_id)}" already on {unit} {seen[raw_id]}',
                        "id")
                continue
            seen[raw_id] = line
            if index is None and publisher_file:
                unknown.append((line, raw_id))
                continue
            if index is None:
                log.add(display, line, "unknown_id",
                        f'id "{_clip(raw_id)}" is not an item of {references.name}', "id")
                continue
        if prediction is not None and index is not None:
            aligned[index] = prediction
            _warn_unreadable(answer_checks, prediction, log, display)
    lines = sum(shapes.values())
    if lines and (len(unknown) + log.counts["unknown_id"] - unknown_before) * 2 > lines:
        _other_benchmark(spec, path, display, seen_keys, log)
    if lines and unanswered * 2 > lines and display not in log.refused:
        _misnamed_key(spec, path, display, seen_keys, lines, log, publisher_file)
    if display in log.refused:
        return aligned  # refused as a whole (encoding, a CSV, another benchmark's file): no item is told apart
    if unknown:
        listed = ", ".join(f'"{_clip(item_id, 60)}"' for _, item_id in unknown[:MISSING_IDS_LISTED])
        log.warn(display, unknown[0][0], "unknown_id_ignored",
                 f"{len(unknown):,} prediction(s) for items that are not items of {references.name} are ignored "
                 f"(the released items are scored, each once): {listed}", "id", count=len(unknown))
    if not any_line and not log:
        log.add(display, 0, "empty_file", "the file has no predictions")
    if not any_line and publisher_array and log.total > errors_before:
        return aligned  # the array itself was refused: its items are not missing, the file is unreadable
    _check_benchmark_shape(spec, shapes, log, display)
    missing = [i for i, ref in enumerate(references.references) if ref.id not in seen]
    if missing and missing_as_empty and spec.task_type != "ranking":
        for i in missing:
            aligned[i] = Prediction(id=references.references[i].id, line=0, text="")
        log.warn(display, 0, "missing_as_empty",
                 f"{_missing_text(references, missing, display)}; scored as empty predictions "
                 "(--missing-as-empty)", "id", count=len(missing))
    elif missing:
        log.add(display, 0, "missing_item",
                f"{_missing_text(references, missing, display)}; every item needs a prediction",
                "id", count=len(missing))
    return aligned


def _answer_checks(spec: BenchmarkSpec) -> list[type[MetricFamily]]:
    """The official profile's families whose publisher reader can fail on an answer."""
    from scoring.metrics import get_family

    families = sorted({get_family(metric.family) for metric in spec.profile().metrics}, key=lambda f: f.name)
    return [f for f in families
            if any("answer_warning" in vars(k) for k in f.__mro__[: f.__mro__.index(MetricFamily)])]


def _warn_unreadable(checks: list[type[MetricFamily]], prediction: Prediction, log: ProblemLog,
                     display: str) -> None:
    for family in checks:
        message = family.answer_warning(prediction.text)
        if message:
            log.warn(display, prediction.line, "unreadable_answer", message, "prediction")


POSITION_FIELD = "item_position"
"""A publisher's result record without an id, joined to its item by its place in the file and its audio (CMI-Bench)."""


def _joined(
    objects: Iterable[tuple[int, dict[str, Any]]], references: ReferenceSet, log: ProblemLog, display: str
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``objects`` as read (lazily, so problems keep the file's order), each record placed by ``item_position``
    given its item's id; the records that cannot be joined are problems and left out.

    A file in the released order (every record at its item's place, holding that item's audio file
    when it names one) is joined by place. Otherwise each record is joined by its audio file name, in
    file order: the first item of that audio after the previous record's item. A run that lacks items
    is joined so, and its missing items stay missing. A record that could be either of two items of
    one audio (a clip with several segments, some not answered) is an error, never a guess; so is a
    record out of the released order. A record whose audio is no item's is kept under its audio as
    id (an unknown id: left out, with a warning, as in any publisher file). A file whose records name no
    audio is joined by place."""
    held: list[tuple[int, dict[str, Any]]] = []
    for line, obj in objects:
        if held or _is_placed(obj):
            held.append((line, obj))  # a publisher's file, read whole by its importer already
        else:
            yield line, obj
    if held:
        yield from _placed_joined(held, references, log, display)


def _placed_joined(
    objects: list[tuple[int, dict[str, Any]]], references: ReferenceSet, log: ProblemLog, display: str
) -> list[tuple[int, dict[str, Any]]]:
    placed = [n for n, (_, obj) in enumerate(objects) if _is_placed(obj)]
    in_order = all(_at_its_place(objects[n][1], references) for n in placed)
    if in_order or not any(_audio_name(objects[n][1].get("audio")) for n in placed):
        ids = _ids_by_place(objects, placed, references, log, display)
    else:
        ids = _ids_by_audio(objects, placed, references, log, display)
    joined = []
    for n, (line, obj) in enumerate(objects):
        if not _is_placed(obj):
            joined.append((line, obj))
        elif n in ids:
            joined.append((line, {**{k: v for k, v in obj.items() if k not in (POSITION_FIELD, "audio")},
                                  "id": ids[n]}))
    return joined


def _is_placed(obj: dict[str, Any]) -> bool:
    position = obj.get(POSITION_FIELD)
    return "id" not in obj and isinstance(position, int) and not isinstance(position, bool)


def _audio_name(value: Any) -> str | None:
    return PurePath(value).name if isinstance(value, str) else None


def _at_its_place(obj: dict[str, Any], references: ReferenceSet) -> bool:
    position = obj[POSITION_FIELD]
    if not 1 <= position <= len(references):
        return False
    audio = _audio_name(obj.get("audio"))
    expected = _audio_name(references.references[position - 1].public.get("audio"))
    return audio is None or expected is None or audio == expected


def _ids_by_place(
    objects: list[tuple[int, dict[str, Any]]], placed: list[int], references: ReferenceSet, log: ProblemLog,
    display: str,
) -> dict[int, str]:
    ids = {}
    for n in placed:
        line, obj = objects[n]
        position = obj[POSITION_FIELD]
        if 1 <= position <= len(references):
            ids[n] = references.references[position - 1].id
        else:
            log.add(display, line, "unknown_id", f"record {position} has no item: the references hold "
                    f"{len(references):,} items", "id")
    return ids


def _ids_by_audio(
    objects: list[tuple[int, dict[str, Any]]], placed: list[int], references: ReferenceSet, log: ProblemLog,
    display: str,
) -> dict[int, str]:
    """Each placed record's item id, joined by audio file name in file order (see :func:`_joined`)."""
    items: dict[str, list[int]] = defaultdict(list)
    for index, reference in enumerate(references.references):
        name = _audio_name(reference.public.get("audio"))
        if name is not None:
            items[name].append(index)
    ids: dict[int, str] = {}
    keyed: list[tuple[int, list[int]]] = []
    for n in placed:
        line, obj = objects[n]
        position, audio = obj[POSITION_FIELD], obj.get("audio")
        name = _audio_name(audio)
        if name is None:
            log.add(display, line, "position_mismatch", f"record {position} names no audio, and the file is not "
                    "in the released order, so it cannot be joined to an item", "audio")
        elif name not in items:
            ids[n] = str(audio)
        else:
            keyed.append((n, items[name]))
    first, out_of_order = _first_fits(keyed)
    last = _last_fits([(n, indices) for n, indices in keyed if n not in out_of_order], len(references))
    for n, indices in keyed:
        line, obj = objects[n]
        position, audio = obj[POSITION_FIELD], _clip(str(obj["audio"]))
        if n in out_of_order:
            log.add(display, line, "position_mismatch", f'record {position} is for audio "{audio}", which no item '
                    "after the previous record's item has: a result file must keep the released order", "audio")
        elif first[n] != last[n]:
            log.add(display, line, "ambiguous_item", f'record {position} is for audio "{audio}", one of '
                    f"{len(indices)} items of that audio, not all of them answered: it could be item "
                    f"{first[n] + 1} or item {last[n] + 1}, so it is not joined", "audio")
        else:
            ids[n] = references.references[first[n]].id
    return ids


def _first_fits(keyed: list[tuple[int, list[int]]]) -> tuple[dict[int, int], set[int]]:
    """Each record's earliest item after the previous record's, and the records with none (out of order)."""
    chosen: dict[int, int] = {}
    out_of_order: set[int] = set()
    previous = -1
    for n, indices in keyed:
        k = bisect.bisect_right(indices, previous)
        if k == len(indices):
            out_of_order.add(n)
            continue
        chosen[n] = previous = indices[k]
    return chosen, out_of_order


def _last_fits(keyed: list[tuple[int, list[int]]], size: int) -> dict[int, int]:
    """Each record's latest item before the next record's (the same records in reverse)."""
    chosen: dict[int, int] = {}
    following = size
    for n, indices in reversed(keyed):
        k = bisect.bisect_left(indices, following) - 1
        if k >= 0:
            chosen[n] = following = indices[k]
    return chosen


def _prediction_objects(
    spec: BenchmarkSpec, path: str | Path, log: ProblemLog, display: str
) -> Iterator[tuple[int, dict[str, Any]]]:
    """JSON Lines, or, for a benchmark with a publisher format, the publisher's JSON array
    (then the "line" of a problem is the item's position in the array) or JSON Lines (MMAR, CMI-Bench)."""
    from scoring.publishers.importers import PREDICTION_IMPORTERS
    from scoring.publishers.mcq_importers import NOT_AN_OBJECT, not_an_object_problem

    if is_publisher_file(spec, path):
        assert spec.publisher_format is not None
        if _is_json_array(path):
            log.name_items(display)
        found = ProblemLog(keep=200)
        rows = PREDICTION_IMPORTERS[spec.publisher_format](path, found)
        copy_problems(found, log, display)
        if found:
            return
        for position, record in rows:
            if NOT_AN_OBJECT in record:
                not_an_object_problem(log, display, position)
                continue
            if isinstance(record.get("id"), (int, float)) and not isinstance(record.get("id"), bool):
                record["id"] = str(record["id"])
            yield position, record
        return
    yield from read_jsonl(path, log, name=display)


def is_publisher_file(spec: BenchmarkSpec, path: str | Path) -> bool:
    """True when ``path`` is in ``spec``'s publisher format: its JSON array, or its JSON Lines where it has them
    (the site reads such a file as uploaded, and ``python -m scoring`` reads it the same way)."""
    from scoring.publishers.importers import PUBLISHER_JSONL

    if not spec.publisher_format:
        return False
    publisher_jsonl = PUBLISHER_JSONL.get(spec.publisher_format)
    return _is_json_array(path) or (publisher_jsonl is not None and publisher_jsonl(path))


def _is_json_array(path: str | Path) -> bool:
    with open(path, "rb") as handle:
        head = handle.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"[")



def _raw_keys(path: str | Path, seen_keys: Counter[str], publisher_file: bool) -> tuple[Counter[str], list[str]]:
    """The keys of the file's records as written (a publisher's, before conversion) and their first ids."""
    if not publisher_file:
        return seen_keys, []
    from scoring.reading.jsonl import read_records

    keys: Counter[str] = Counter()
    ids: list[str] = []
    for _, record in read_records(path, ProblemLog(keep=1)):
        keys.update(record.keys())
        if len(ids) < 20 and isinstance(record.get("id"), (str, int)):
            ids.append(str(record["id"]))
    return keys, ids


ANSWER_KEYS = {"mmau": ("model_output", "model_prediction"), "muchomusic": ("model_output",),
               "mmar": ("answer_prediction",)}
"""The key holding the model's answer in a publisher's prediction file, by format (the first is the one to use)."""
_CONTRACT_KEYS = {"ranking": ("scores", "ranking"), "leave_one_out": ("responses",)}
_ANSWER_LIKE = ("prediction", "predictions", "model_output", "model_prediction", "answer_prediction", "output",
                "response", "responses", "pred", "predicted", "model_answer", "generated", "generated_text",
                "generation", "completion", "text", "result", "score", "scores", "ranking", "rank")
_NOT_ANSWERS = {"id", "question", "choices", "options", "answer", "answers", "audio", "audio_id", "audio_path",
                "prompt", "prompts", "metadata", "task", "category", "sub-category", "split", "dataset"}


def _misnamed_key(spec: BenchmarkSpec, path: str | Path, display: str, seen_keys: Counter[str], lines: int,
                  log: ProblemLog, publisher_file: bool) -> None:
    """One problem when most records lack the answer key but share one that reads like it: "found
    `model_prediction`; this format reads `answer_prediction`"."""
    if publisher_file and spec.publisher_format not in ANSWER_KEYS:
        return  # a publisher format whose answer key this table does not name: its importer says what is missing
    keys, _ = _raw_keys(path, seen_keys, publisher_file and spec.publisher_format is not None)
    publisher = publisher_file and spec.publisher_format in ANSWER_KEYS
    wanted = (ANSWER_KEYS[spec.publisher_format or ""] if publisher
              else _CONTRACT_KEYS.get(spec.task_type, ("prediction",)))
    candidates = [key for key, n in keys.most_common() if n * 2 > lines and key not in wanted
                  and key.lower() not in _NOT_ANSWERS and key != POSITION_FIELD
                  and (key.lower() in _ANSWER_LIKE or difflib.get_close_matches(key, wanted, n=1, cutoff=0.6))]
    if not candidates:
        return
    found = candidates[0]
    what = f"the {_short_title(spec)} format" if publisher else f"{spec.name}'s JSON Lines contract"
    reads = " or ".join(f'"{key}"' for key in wanted)
    unit = log.units.get(display, "line") + "s"
    log.explained(display, _EXPLAINED)
    log.add(display, 0, "misnamed_key",
            f'found "{_clip(found, 40)}" on {keys[found]:,} of {lines:,} {unit} and no {reads}: {what} reads {reads}; '
            f'rename the key', wanted[0])


_EXPLAINED = ("missing_field", "missing_answer_prediction", "unknown_id", "unknown_id_ignored")
"""What a misnamed key or another benchmark's file gives on every line: said once by the problem that explains it."""
_FILE_SIGNS: dict[str, tuple[str, frozenset[str], str | None]] = {
    # benchmark: (its name in a sentence, keys its publisher's files hold, its ids' pattern where it has its own)
    "mmau": ("an MMAU", frozenset({"audio_id", "choices"}),
             r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    "mmar": ("an MMAR", frozenset({"audio_path", "modality", "choices"}),
             r"[\w-]+_\d{1,2}(-\d\d){1,2}_\d{1,2}(-\d\d){1,2}"),
    "muchomusic": ("a MuChoMusic", frozenset({"answers", "answer_orders"}), None),
}


def _other_benchmark(spec: BenchmarkSpec, path: str | Path, display: str, seen_keys: Counter[str],
                     log: ProblemLog) -> None:
    """One problem refusing the file when most ids are no item of the split and its keys or ids are another
    benchmark's: "this looks like an MMAU file; this split is MMAR"."""
    keys, ids = _raw_keys(path, seen_keys, True) if spec.publisher_format else (seen_keys, [])
    if not ids:
        ids = [str(i) for i in _first_ids(path)]
    for name, (title, signs, pattern) in _FILE_SIGNS.items():
        if name == spec.name:
            continue
        by_keys = signs <= set(keys)
        by_ids = pattern is not None and bool(ids) and all(re.fullmatch(pattern, i) for i in ids)
        if by_keys or by_ids:
            how = (f'keys {", ".join(sorted(signs))}' if by_keys else "") + (" and " if by_keys and by_ids else "") + (
                f'ids like "{_clip(ids[0], 40)}"' if by_ids else "")
            log.explained(display, _EXPLAINED)
            log.refuse(display, 0, "wrong_benchmark", f"this looks like {title} file ({how}), not one of "
                       f"{_short_title(spec)} ({spec.name}): its ids are no items of this split; wrong benchmark or "
                       "split?")
            return


def _short_title(spec: BenchmarkSpec) -> str:
    return spec.title.split(":")[0]


def _first_ids(path: str | Path) -> list[Any]:
    from scoring.reading.jsonl import read_records

    out = []
    for _, record in read_records(path, ProblemLog(keep=1)):
        if "id" in record:
            out.append(record["id"])
        if len(out) >= 20:
            break
    return out


MISSING_IDS_LISTED = 10


def _missing_text(references: ReferenceSet, missing: list[int], display: str) -> str:
    first = ", ".join(f'"{_clip(references.references[i].id, 60)}"' for i in missing[:MISSING_IDS_LISTED])
    more = f" (first {MISSING_IDS_LISTED} listed)" if len(missing) > MISSING_IDS_LISTED else ""
    return f"{len(missing):,} of {len(references):,} items have no prediction in {display}: {first}{more}"


_EXPECTED_SHAPE = {"ranking": "ranking", "generation": "text", "comparative_qa": "text", "multiple_choice": "text",
                   "leave_one_out": "responses"}
_SHAPE_EXAMPLE = {"ranking": '{"id", "scores": {candidate: number}} or {"id", "ranking": [...]}',
                  "text": '{"id", "prediction": "..."}', "responses": '{"id", "responses": ["...", ...]}'}


def _shape(obj: dict[str, Any]) -> str:
    if "scores" in obj or "ranking" in obj:
        return "ranking"
    if "responses" in obj:
        return "responses"
    if "prediction" in obj:
        return "text"
    return "other"


def _check_benchmark_shape(spec: BenchmarkSpec, shapes: Counter[str], log: ProblemLog, display: str) -> None:
    """One clear problem when most lines are predictions for another kind of task."""
    expected = _EXPECTED_SHAPE[spec.task_type]
    total = sum(shapes.values())
    for shape, count in shapes.items():
        if shape not in (expected, "other") and count * 2 > total:
            log.add(display, 0, "wrong_benchmark",
                    f"{count} of {total} lines look like {shape} predictions, but {spec.name} is a "
                    f"{spec.task_type} benchmark expecting {_SHAPE_EXAMPLE[expected]}: wrong benchmark or split?")


def load_references(
    spec: BenchmarkSpec, path: str | Path, *, name: str | None = None, log: ProblemLog | None = None
) -> ReferenceSet:
    """Strict :func:`read_references`: raise :class:`InvalidInput` on any error
    (warnings are collected in ``log`` when given)."""
    log = log if log is not None else ProblemLog(keep=100)
    references = read_references(spec, path, log, name=name)
    if log:
        raise InvalidInput(log)
    return references


def load_predictions(
    spec: BenchmarkSpec,
    references: ReferenceSet,
    path: str | Path,
    *,
    name: str | None = None,
    log: ProblemLog | None = None,
    missing_as_empty: bool = False,
    publisher_file: bool = False,
) -> list[Prediction]:
    """Strict :func:`read_predictions`: raise :class:`InvalidInput` on any error
    (warnings are collected in ``log`` when given)."""
    log = log if log is not None else ProblemLog(keep=100)
    aligned = read_predictions(spec, references, path, log, name=name, missing_as_empty=missing_as_empty,
                               publisher_file=publisher_file)
    if log:
        raise InvalidInput(log)
    return [p for p in aligned if p is not None]


def validate_files(
    spec: BenchmarkSpec,
    references_path: str | Path,
    predictions_paths: Iterable[str | Path],
    *,
    keep: int | None = None,
) -> ProblemLog:
    """All problems of a reference file and its prediction files (empty log = valid)."""
    log = ProblemLog(keep=keep)
    references = read_references(spec, references_path, log)
    if log:
        return log
    for path in predictions_paths:
        read_predictions(spec, references, path, log)
    return log


def _clip(text: str, limit: int = 80) -> str:
    """``text`` shortened in the middle: ids that differ only at the end (a CMI clip's ``#2``) stay told apart."""
    if len(text) <= limit:
        return text
    tail = (limit - 3) // 3
    return text[: limit - 3 - tail] + "..." + text[len(text) - tail:]
