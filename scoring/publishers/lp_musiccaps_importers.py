"""LP-MusicCaps's MusicCaps test list as references: ``lp-musiccaps-test-subset.csv`` beside ``musiccaps-public.csv``.

The list (``order,ytid,start_s,end_s``: the 2,839 clips seungheondoh/lp-music-caps scores, in its order) names
clips; their single reference caption is the ``caption`` of the same clip in Google's ``musiccaps-public.csv``,
read from the same folder by the ``musiccaps`` importer (:data:`LP_MUSICCAPS` passes it in). Records are
that importer's (id = ``ytid``), in the list's order, each on the list's line.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scoring.publishers.formats import PublisherFormat
from scoring.publishers.qa_importers import musiccaps_rows
from scoring.reading.problems import ProblemLog

Row = tuple[int, dict[str, Any]]
CaptionRows = Callable[..., list[Row]]  # scoring.publishers.qa_importers.musiccaps_rows(path, log, split="all")
CAPTIONS_FILE = "musiccaps-public.csv"
LIST_FIELDS = ("order", "ytid", "start_s", "end_s")


def lp_musiccaps_rows(path: str | Path, log: ProblemLog, musiccaps_rows: CaptionRows) -> list[Row]:
    """References of the clips ``path`` lists, captioned from ``musiccaps-public.csv`` in its folder."""
    path = Path(path)
    captions = path.parent / CAPTIONS_FILE
    if not captions.is_file():
        log.add(path.name, 0, "missing_file", f"the clips' captions are read from {CAPTIONS_FILE} beside this list, "
                "which is not there")
        return []
    by_id = {record["id"]: (line, record) for line, record in musiccaps_rows(captions, log, split="all")}
    rows: list[Row] = []
    for line, clip in _listed_clips(path, log):
        found = by_id.get(clip["ytid"])
        if found is None:
            log.add(path.name, line, "unknown_clip", f"ytid {clip['ytid']!r} is not in {CAPTIONS_FILE}", "ytid")
            continue
        record = found[1]
        if record["audio"] != f"{clip['ytid']}[{clip['start_s']}-{clip['end_s']}]":
            log.add(path.name, line, "clip_mismatch", f"{clip['ytid']}: start_s/end_s {clip['start_s']}-"
                    f"{clip['end_s']} differ from {CAPTIONS_FILE}'s {record['audio']}", "start_s")
            continue
        rows.append((line, dict(record)))
    return rows


def _listed_clips(path: Path, log: ProblemLog) -> list[tuple[int, dict[str, str]]]:
    clips: list[tuple[int, dict[str, str]]] = []
    seen: dict[str, int] = {}
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            missing = [f for f in LIST_FIELDS if f not in (reader.fieldnames or ())]
            if missing:
                log.add(path.name, 1, "missing_field", f"the header lacks {', '.join(missing)}")
                return []
            for row in reader:
                line = reader.line_num
                ytid = (row.get("ytid") or "").strip()
                if not ytid:
                    log.add(path.name, line, "missing_field", "a listed clip needs a ytid", "ytid")
                elif ytid in seen:
                    log.add(path.name, line, "duplicate_id", f"ytid {ytid!r} is listed on line {seen[ytid]} already",
                            "ytid")
                else:
                    seen[ytid] = line
                    clips.append((line, {"ytid": ytid, "start_s": row.get("start_s") or "",
                                         "end_s": row.get("end_s") or ""}))
    except UnicodeDecodeError as exc:
        log.add(path.name, 0, "encoding", f"not valid UTF-8: {exc.reason}")
    except csv.Error as exc:
        log.add(path.name, 0, "not_csv", f"not a readable CSV file: {exc}")
    return clips


def lp_musiccaps_reference_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """References of the listed clips, captioned by the ``musiccaps`` reader."""
    return lp_musiccaps_rows(path, log, musiccaps_rows)


LP_MUSICCAPS = PublisherFormat("lp-musiccaps", lp_musiccaps_reference_rows)
