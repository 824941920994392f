"""The publishers' released reference files this site knows, recognised by name and shape.

:data:`RELEASED_FILES` is the table ``manage.py import_references --from DIR`` reads: one row per
released file (its name as published, the benchmark and split it opens, the importer format of
``scoring.publishers.importers.REFERENCE_IMPORTERS``, where it is published, and a check of its shape that
also picks the split where one file name serves several). A benchmark whose files are released
under many names adds one row per file (a comprehension over a name table works, as for CMI-Bench). Rows with
``by_shape`` also recognise a file under another name when its shape matches (Jamendo-MT-QA
records, saved under any name by the publisher's scripts).
"""

from __future__ import annotations

import csv
import json
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scoring.publishers.importers import REFERENCE_IMPORTERS, convert_file
from scoring.publishers.label_exposure import RELEASED_ITEMS_DIR, released_items_write
from scoring.reading.problems import InvalidInput
from scoring.reading.validation import read_references
from scoring.specs import BENCHMARKS, get_benchmark


class NotShaped(Exception):
    """The file is not shaped as the released file (the message says how)."""


class NoSplit(NotShaped):
    """Shaped as the benchmark's file, but matching none of its released splits."""


Target = Callable[[Path], str]  # the split a file of this shape opens; raises NotShaped


@dataclass(frozen=True)
class ReleasedFile:
    """One publisher's file: what it is called, what it opens, where it comes from."""

    name: str
    benchmark: str
    splits: tuple[str, ...]  # the splits a file of this name can open (``target`` picks one)
    source_format: str
    release: str
    target: Target
    by_shape: bool = False
    labels_public: bool = True  # anyone can download its answers: its items can never be a hidden split's


@dataclass(frozen=True)
class Recognised:
    """A file recognised as ``row``'s release, to be imported into ``benchmark/split``."""

    path: Path
    row: ReleasedFile
    split: str

    @property
    def benchmark(self) -> str:
        return self.row.benchmark


@dataclass(frozen=True)
class Unrecognised:
    """A file that is no released file this site knows; ``named``: it bears a released file's name."""

    path: Path
    reason: str
    named: bool = False


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes().decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise NotShaped(f"not a JSON document ({type(exc).__name__})") from None


def _json_records(path: Path) -> list[Any]:
    """A JSON array, or the first record of JSON Lines (a bad later line is the importer's to report)."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise NotShaped("not UTF-8 text") from None
    if text.lstrip().startswith("["):
        data = _load_json(path)
        return data if isinstance(data, list) else []
    first = next((line for line in text.split("\n") if line.strip()), "")
    try:
        return [json.loads(first)]
    except ValueError:
        raise NotShaped("neither a JSON array nor JSON Lines") from None


def _all_records(path: Path) -> list[Any]:
    """Every record of a JSON array or of JSON Lines."""
    records = _json_records(path)
    if path.read_bytes().lstrip()[:1] == b"[":
        return records
    try:
        return [json.loads(line) for line in path.read_bytes().decode("utf-8-sig").split("\n") if line.strip()]
    except ValueError:
        raise NotShaped("a line is not valid JSON") from None


def _first_has(records: list[Any], keys: Iterable[str], what: str) -> None:
    wanted = tuple(keys)
    first = records[0] if records else None
    if not isinstance(first, dict) or any(k not in first for k in wanted):
        raise NotShaped(f"{what}: the first record should have {', '.join(wanted)}")


def _csv_header(path: Path, keys: Iterable[str], what: str) -> None:
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle), [])
    except (UnicodeDecodeError, csv.Error):
        raise NotShaped(f"{what}: not a readable CSV file") from None
    missing = [k for k in keys if k not in header]
    if missing:
        raise NotShaped(f"{what}: the CSV header lacks {', '.join(missing)}")


def json_array_of(split: str, keys: tuple[str, ...], what: str) -> Target:
    """A JSON array whose first item has ``keys``."""

    def target(path: Path) -> str:
        data = _load_json(path)
        if not isinstance(data, list):
            raise NotShaped(f"{what}: expected a JSON array")
        _first_has(data, keys, what)
        return split

    return target


def json_lines_of(split: str, keys: tuple[str, ...], what: str) -> Target:
    """JSON Lines (or a JSON array) whose first record has ``keys``."""

    def target(path: Path) -> str:
        _first_has(_json_records(path), keys, what)
        return split

    return target


def csv_with(split: str, keys: tuple[str, ...], what: str) -> Target:
    def target(path: Path) -> str:
        _csv_header(path, keys, what)
        return split

    return target


def json_object_of(split: str, keys: tuple[str, ...], what: str) -> Target:
    """A JSON object whose first value has ``keys`` (RUL-MuChoMusic: question id -> item)."""

    def target(path: Path) -> str:
        data = _load_json(path)
        if not isinstance(data, dict) or not data:
            raise NotShaped(f"{what}: expected a JSON object of items")
        _first_has([next(iter(data.values()))], keys, what)
        return split

    return target


JAMENDO_SPLITS = {12_173: "full", 2_010: "subset-2010"}  # track pairs of each split (Jamendo-MT-QA paper)


def jamendo_split(path: Path) -> str:
    """Jamendo-MT-QA records: the split is told by the number of track pairs."""
    records = _all_records(path)
    what = "Jamendo-MT-QA records"
    _first_has(records, ("qa_type", "question"), what)
    if not all(isinstance(r, dict) and ("gold_answer" in r or "answer" in r) for r in records):
        raise NotShaped(f"{what}: every record needs a gold_answer")
    pairs = {(r.get("pair_id"), r.get("audio1"), r.get("audio2")) for r in records}
    if len(pairs) not in JAMENDO_SPLITS:
        known = " or ".join(f"{n:,} ({s})" for n, s in JAMENDO_SPLITS.items())
        raise NoSplit(f"{what} over {len(pairs):,} track pairs, not a released split's {known}; import it "
                        "into a split by name: import_references jamendo-mt-qa SPLIT PATH --format jamendo")
    return JAMENDO_SPLITS[len(pairs)]


_MMAU_KEYS = ("id", "question", "choices", "answer", "task")
_MMAR_KEYS = ("id", "question", "choices", "answer", "modality")
_MUCHOMUSIC_KEYS = ("question", "correct_answer", "distractor_1_answer", "dataset_identifier")

_CMI_KEYS = ("instruction", "output", "audio_path")
_CMI_RELEASE = "github.com/nicolaus625/CMI-bench {} @ 4c15f410 (the test split, with its labels)"
_CMI_FILES = {  # released test file -> benchmark (scoring/specs/cmi.py)
    "CMI_GTZAN_test.jsonl": "cmi-gtzan", "CMI_VocalSet_tech_test.jsonl": "cmi-vocalset-tech",
    "CMI_Nsynth_instrument_test.jsonl": "cmi-nsynth-instrument", "CMI_EMO_arousal_test.jsonl": "cmi-emo-arousal",
    "CMI_EMO_valence_test.jsonl": "cmi-emo-valence", "CMI_DSing_test.jsonl": "cmi-dsing",
    "CMI_gtzan_beat_test.jsonl": "cmi-gtzan-beat", "CMI_ballroom_beat_test.jsonl": "cmi-ballroom-beat",
    "CMI_gtzan_downbeat_test.jsonl": "cmi-gtzan-downbeat", "CMI_ballroom_downbeat_test.jsonl": "cmi-ballroom-downbeat",
    "CMI_Guzheng_Tech_test.jsonl": "cmi-guzheng-tech", "CMI_SDD_test.jsonl": "cmi-sdd",
    "CMI_MusicCaps_test.jsonl": "cmi-musiccaps",
}

KNOWN_FILES: tuple[ReleasedFile, ...] = (  # every file known; RELEASED_FILES: those this build can open
    ReleasedFile("EvalMusicQA.json", "musicqa", ("test",), "musicqa",
                 "github.com/shansongliu/MU-LLaMA MusicQA/MusicQA/EvalMusicQA.json @ d760f206 (2023-08-23)",
                 json_array_of("test", ("audio_name", "conversation"), "EvalMusicQA.json")),
    ReleasedFile("musiccaps-public.csv", "musiccaps", ("test",), "musiccaps",
                 "Google MusicCaps (kaggle.com/datasets/googleai/musiccaps); the copy in github.com/shansongliu/"
                 "MU-LLaMA MusicQA/MusicCaps @ a5acbb1a; is_audioset_eval rows",
                 csv_with("test", ("ytid", "start_s", "end_s", "caption", "is_audioset_eval"), "musiccaps-public.csv")),
    ReleasedFile("multi_qa.json", "jamendo-mt-qa", tuple(JAMENDO_SPLITS.values()), "jamendo",
                 "huggingface.co/datasets/m-a-a-p/Jamendo-MT-QA (split train), as saved by github.com/MAAP-LAB/"
                 "Jamendo-MT-QA download_data.py", jamendo_split, by_shape=True),
    ReleasedFile("mmau-test-mini.json", "mmau", ("test-mini",), "mmau",
                 "github.com/Sakshi113/MMAU mmau-test-mini.json @ f0a4a97d (MMAU-v05.15.25)",
                 json_array_of("test-mini", _MMAU_KEYS, "mmau-test-mini.json")),
    ReleasedFile("mmau-test.json", "mmau", ("test",), "mmau",
                 "github.com/Sakshi113/MMAU mmau-test.json, with the answers the authors withhold",
                 json_array_of("test", _MMAU_KEYS, "mmau-test.json with answers"), labels_public=False),
    ReleasedFile("muchomusic.csv", "muchomusic", ("test",), "muchomusic",
                 "Zenodo 10.5281/zenodo.12709974 (MuChoMusic)",
                 csv_with("test", _MUCHOMUSIC_KEYS, "muchomusic.csv")),
    ReleasedFile("MMAR-meta.jsonl", "mmar", ("test",), "mmar",
                 "github.com/ddlBoJack/MMAR MMAR-meta.jsonl @ 3bce090a",
                 json_lines_of("test", _MMAR_KEYS, "MMAR-meta.jsonl")),
    ReleasedFile("MMAR-meta.json", "mmar", ("test",), "mmar",
                 "github.com/ddlBoJack/MMAR MMAR-meta.json (the name its README gives; a JSON array)",
                 json_array_of("test", _MMAR_KEYS, "MMAR-meta.json")),
    ReleasedFile("RUL-MuchoMusic.json", "rul-muchomusic", ("test",), "rul-muchomusic",
                 "github.com/yongyizang/AreYouReallyListening RUL-MuchoMusic.json @ d3971de1",
                 json_object_of("test", ("question", "correct_answer", "distractors"), "RUL-MuchoMusic.json")),
    *(ReleasedFile(name, benchmark, ("test",), "cmi-bench", _CMI_RELEASE.format(name),
                   json_lines_of("test", _CMI_KEYS, name)) for name, benchmark in _CMI_FILES.items()),
    ReleasedFile("lp-musiccaps-test-subset.csv", "lp-musiccaps", ("test",), "lp-musiccaps",
                 "github.com/seungheondoh/lp-music-caps @ 12fcb31d: the 2,839 clips of lpmc/llm_captioning/exp/*/"
                 "inference.json, captioned from musiccaps-public.csv beside it",
                 csv_with("test", ("order", "ytid", "start_s", "end_s"), "lp-musiccaps-test-subset.csv")),
    *(ReleasedFile(name, benchmark, ("test",), "cmi-bench", release, json_lines_of("test", _CMI_KEYS, name))
      for name, benchmark, release in (
          ("CMI_GS_key_test.jsonl", "cmi-gs-key", "github.com/nicolaus625/CMI-bench GS-key test split @ 4c15f410, "
           "rebuilt from the publisher's result files (the task file is in no stored snapshot), with its labels"),
          ("CMI_Nsynth_pitch_test.jsonl", "cmi-nsynth-pitch", "github.com/nicolaus625/CMI-bench "
           "data/NSynth/CMI_Nsynth_pitch.jsonl @ 7dd61d9a with the instruction of 4c15f410 (the test split, with its "
           "labels)"))),
    *(ReleasedFile(name, benchmark, ("test",), "cmi-bench", f"github.com/nicolaus625/CMI-bench {source} test split @ "
                   "4c15f410, rebuilt item for item (the task file is in no stored snapshot; "
                   "../shared/data/cmi-bench-tags/README.md), with its labels", json_lines_of("test", _CMI_KEYS, name))
      for name, benchmark, source in (
          ("CMI_MTG_genre_test.jsonl", "cmi-mtg-genre", "MTG genre (from MTG/mtg-jamendo-dataset split-0 TSVs)"),
          ("CMI_MTG_instrument_test.jsonl", "cmi-mtg-instrument",
           "MTG instrument (from MTG/mtg-jamendo-dataset split-0 TSVs)"),
          ("CMI_MTG_emotion_test.jsonl", "cmi-mtg-mood", "MTG mood/theme (from MTG/mtg-jamendo-dataset split-0 TSVs)"),
          ("CMI_MTG_top50tags_test.jsonl", "cmi-mtg-top50", "MTG top-50 (from MTG/mtg-jamendo-dataset split-0 TSVs)"),
          ("CMI_MTT_test.jsonl", "cmi-mtt", "MTT (from the publisher's result files)"))),
    ReleasedFile("songformbench_segments.jsonl", "songformbench", ("test",), "songformbench",
                 "ASLP-lab/SongFormBench (all 300 songs), reconstructed from github.com/nicolaus625/CMI-bench "
                 "data/songformer/CMI_SongFormBench.jsonl @ 35235cb0 into SongFormer's annotation format",
                 json_lines_of("test", ("id", "subset", "segments"), "songformbench_segments.jsonl")),
)
# rows whose benchmark or importer is not registered in this build are left out
RELEASED_FILES: tuple[ReleasedFile, ...] = tuple(
    row for row in KNOWN_FILES if row.benchmark in BENCHMARKS and row.source_format in REFERENCE_IMPORTERS)


def recognise(path: Path, table: Iterable[ReleasedFile] = RELEASED_FILES) -> Recognised | Unrecognised:
    """Which released file ``path`` is (by its name, then by shape for ``by_shape`` rows), and its split."""
    rows = tuple(table)
    named = [row for row in rows if row.name == path.name]
    reasons = []
    for row in named:
        try:
            return Recognised(path, row, row.target(path))
        except NotShaped as exc:
            reasons.append(str(exc))
    if named:
        return Unrecognised(path, f"named as released but not shaped so: {'; '.join(reasons)}", named=True)
    for row in rows:
        if row.by_shape and path.suffix.lower() in (".json", ".jsonl"):
            try:
                return Recognised(path, row, row.target(path))
            except NoSplit as exc:  # shaped as the benchmark's records: say why it was not taken
                return Unrecognised(path, str(exc))
            except NotShaped:
                continue
    return Unrecognised(path, "not a released file this site knows")


def release_of(benchmark: str, split: str, references_name: str,
               table: Iterable[ReleasedFile] = RELEASED_FILES) -> str:
    """Where a split's stored references were released, from the file name they were imported as."""
    return next((row.release for row in table
                 if row.benchmark == benchmark and split in row.splits and row.name == references_name), "")


def released_items_record(folder: Path, table: Iterable[ReleasedFile] = RELEASED_FILES, *,
                          into: Path = RELEASED_ITEMS_DIR) -> list[Path]:
    """Write the item fingerprints of every public release found under ``folder`` (``scripts/released-items``):
    what refuses their items as a hidden split's, under any id and in any option order."""
    written = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        found = recognise(path, table)
        if not isinstance(found, Recognised) or not found.row.labels_public:
            continue
        with tempfile.TemporaryDirectory(prefix="released-") as tmp:
            converted = Path(tmp) / "references.jsonl"
            problems = convert_file(REFERENCE_IMPORTERS[found.row.source_format], path, converted)
            references = read_references(get_benchmark(found.benchmark), converted, problems, name=path.name)
        if problems:
            raise InvalidInput(problems)
        written.append(released_items_write(found.benchmark, path.name, found.row.release, references.references,
                                            folder=into))
    return written
