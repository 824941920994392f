"""SongFormBench's reference file (``songformbench_segments.jsonl``) as generation-contract references.

Each record ``{id, subset, language, youtube_url, audio_duration_s, segments: [[start, end, label], ...]}``
becomes ``{id, answer, question, audio, context}``: ``answer`` is the song's MSA TXT as SongFormer's
``--ann_dir`` files hold it (``f"{start:.4f} {label}"`` per segment, then ``f"{end:.4f} end"``), ``context`` the
subset (``HarmonixSet`` or ``CN``: the columns' subsets), ``audio`` the YouTube address or the id, ``question``
the task with the audio's duration. A record the publisher's loader could not read (segments that do not join
up, an unknown label) is an error naming its line and field.

Predictions (``--predictions-format songformbench``, and uploads holding one): JSON Lines or a JSON array of
``{"id", "prediction"}`` whose ``prediction`` is an answer text or a list of ``[start, end, label]`` segments
(or ``[start, label]`` pairs); a list becomes its JSON text, which :mod:`scoring.metrics.songform.answers` reads.
Or SongFormer's own predictions folder (``eval_infer_results.py --est_dir``): one MSA TXT file ``<id>.txt`` per
song, read by :func:`msa_folder_rows`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scoring.metrics.songform.answers import LABEL_IDS
from scoring.metrics.songform.family import SongForm
from scoring.publishers.formats import PublisherFormat
from scoring.reading.jsonl import json_type, read_records, read_text_file
from scoring.reading.problems import ProblemLog

Record = dict[str, Any]
Row = tuple[int, Record]
SUBSETS = ("HarmonixSet", "CN")


def msa_text(segments: list[list[Any]]) -> str:
    """The MSA TXT of joined segments, at the release's 4 decimals."""
    lines = [f"{start:.4f} {label}" for start, _, label in segments]
    return "\n".join([*lines, f"{segments[-1][1]:.4f} end"]) + "\n"


def songform_reference_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """References from ``songformbench_segments.jsonl``."""
    name = Path(path).name
    rows: list[Row] = []
    for line, record in read_records(path, log):
        problem = _problem(record)
        if problem is not None:
            log.add(name, line, problem[0], problem[2], problem[1])
            continue
        duration = record.get("audio_duration_s")
        question = ("Segment the song into sections (intro, verse, pre-chorus, chorus, bridge, inst, outro, silence): "
                    "one 'start_seconds label' line per section, then 'end_seconds end'.")
        if isinstance(duration, int | float):
            question += f" The audio lasts {float(duration):.3f} s."
        rows.append((line, {"id": record["id"], "answer": msa_text(record["segments"]), "question": question,
                            "audio": record.get("youtube_url") or record["id"], "context": record["subset"]}))
    return rows


def _problem(record: Record) -> tuple[str, str, str] | None:
    """(kind, field, message) of the first thing SongFormer's loader could not read, or None."""
    if not isinstance(record.get("id"), str) or not record["id"]:
        return "missing_field", "id", f"id must be a non-empty string, got {json_type(record.get('id'))}"
    if record.get("subset") not in SUBSETS:
        return "invalid_value", "subset", f"subset must be one of {', '.join(SUBSETS)}, got {record.get('subset')!r}"
    segments = record.get("segments")
    if not isinstance(segments, list) or not segments:
        return "wrong_type", "segments", "segments must be a non-empty array of [start, end, label]"
    previous = None
    for index, segment in enumerate(segments):
        field = f"segments[{index}]"
        if (not isinstance(segment, list) or len(segment) != 3 or not isinstance(segment[2], str)
                or any(isinstance(t, bool) or not isinstance(t, int | float) for t in segment[:2])):
            return "wrong_type", field, f"{field} must be [start, end, label] with numeric times"
        start, end, label = segment
        if label not in LABEL_IDS:
            return "invalid_value", field, f"{field}: label {label!r} is not in SongFormer's vocabulary"
        if not 0 <= start < end or (previous is not None and f"{start:.4f}" != f"{previous:.4f}"):
            return "invalid_value", field, f"{field}: segments must be positive and each start where the last ended"
        previous = end
    return None


def songform_prediction_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """Predictions whose ``prediction`` may be a list of segments (kept as its JSON text), or a folder of MSA TXT."""
    if Path(path).is_dir():
        return msa_folder_rows(path, log)
    name = Path(path).name
    rows: list[Row] = []
    for line, record in read_records(path, log):
        prediction = record.get("prediction")
        if isinstance(prediction, list):
            record = {**record, "prediction": json.dumps(prediction, ensure_ascii=False)}
        elif prediction is not None and not isinstance(prediction, str):
            log.add(name, line, "wrong_type", f"prediction must be a string or a list of segments, got "
                    f"{json_type(prediction)}", "prediction")
            continue
        rows.append((line, record))
    return rows


def has_segment_lists(path: str | Path) -> bool:
    """Whether a JSON Lines file holds a prediction given as a list (read by :func:`songform_prediction_rows`)."""
    try:
        with open(path, "rb") as handle:
            for raw in handle:
                if b"[" in raw and raw.strip(b"\xef\xbb\xbf \t\r\n"):
                    record = json.loads(raw.decode("utf-8-sig"))
                    if isinstance(record, dict) and isinstance(record.get("prediction"), list):
                        return True
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return False
    return False


def msa_folder_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """SongFormer's predictions folder: each ``<id>.txt`` (in the folder or a subfolder, such as one per subset)
    is ``{"id": <id>, "prediction": <its text>}``, row N the N-th file by path.

    The script reads the folder's files named ``*.txt`` and nothing else: other files are left out with one
    warning naming them. A file the script would skip but that is read here with repairs is warned on under its
    own name (the answer reader's message); an empty one is an empty answer. A file that is not UTF-8 text, or a
    second file of one id, is an error naming the file (and the line of the first bad byte)."""
    root = Path(path)
    folder = root.resolve().name or str(root)
    files = sorted((p for p in root.rglob("*") if p.is_file()), key=lambda p: p.relative_to(root).as_posix())
    others = [p.relative_to(root).as_posix() for p in files if not p.name.endswith(".txt")]
    if others:
        listed = ", ".join(f'"{name}"' for name in others[:FILES_LISTED]) + (", ..." if len(others) > FILES_LISTED
                                                                           else "")
        log.warn(folder, 0, "not_msa_txt", f"{len(others):,} file(s) not named <id>.txt left out, as "
                 f"eval_infer_results.py leaves them out: {listed}", count=len(others))
    rows: list[Row] = []
    seen: dict[str, str] = {}
    for number, file in enumerate((p for p in files if p.name.endswith(".txt")), start=1):
        shown = f"{folder}/{file.relative_to(root).as_posix()}"
        if file.stem in seen:
            log.add(shown, 0, "duplicate_id", f'id "{file.stem}" is also {seen[file.stem]}; keep one file per song')
            continue
        seen[file.stem] = shown
        text = _file_text(file, shown, log)
        if text is None:
            continue
        if not text.strip():
            log.warn(shown, 0, "blank_prediction" if text else "empty_prediction",
                     f"the file is {'blank' if text else 'empty'}; scored as an empty answer")
        warning = SongForm.answer_warning(text)
        if warning:
            log.warn(shown, 0, "unreadable_answer", warning)
        rows.append((number, {"id": file.stem, "prediction": text}))
    if not seen:
        log.add(folder, 0, "empty_file", "the folder holds no <id>.txt file (SongFormer's MSA TXT, one per song)")
    return rows


FILES_LISTED = 10


def _file_text(file: Path, shown: str, log: ProblemLog) -> str | None:
    """The file's text ("" when empty, an empty answer), or None with the problem logged."""
    try:
        if file.stat().st_size == 0:
            return ""
        return read_text_file(file, shown, log)
    except OSError as exc:
        log.add(shown, 0, "unreadable_file", f"cannot be read: {exc.strerror or exc}")
        return None


FORMAT = PublisherFormat("songformbench", songform_reference_rows, songform_prediction_rows, has_segment_lists,
                         prediction_folders=True)
