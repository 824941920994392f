"""Released model outputs (``scoring/publishers/released_outputs.py``): the table of released output sets, a folder
sorted by it, the join of a publisher's result records to the items (by place, else by audio and segment in file order),
incomplete runs (the missing items scored as empty answers, with a warning, as ``--missing-as-empty`` does),
and the reasons a file is refused (file, line, field)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from scoring import ProblemLog, Scorer, get_benchmark, read_references
from scoring.publishers.importers import REFERENCE_IMPORTERS, convert_file
from scoring.publishers.released_outputs import (
    OutputFile,
    output_jsonl,
    output_read,
    output_recognise,
    output_sets,
    outputs_find,
)
from scoring.reading.validation import ReferenceSet
from scoring.specs.cmi import BENCHMARKS as CMI_BENCHMARKS
from tests.helpers.released_outputs import every_nth_removed, release_records, release_write, shared_release
from tests.helpers.shared import shared_file

SPEC = get_benchmark("cmi-gtzan")
# (audio under data/GTZAN/, start, end, label): clip a and clip c in two segments each
ITEMS = [("blues/a.wav", 0.0, 10.0, "blues"), ("blues/a.wav", 10.0, 20.0, "blues"), ("rock/b.wav", 0.0, 30.0, "rock"),
         ("jazz/c.wav", 0.0, 10.0, "jazz"), ("jazz/c.wav", 10.0, 20.0, "jazz"), ("rock/d.wav", 0.0, 30.0, "rock")]
RESPONSES = ["blues", "It is blues.", "rock", "jazz", "I hear rock.", "rock"]


@pytest.fixture
def references(tmp_path: Path) -> ReferenceSet:
    task = tmp_path / "CMI_GTZAN_test.jsonl"
    task.write_text("".join(json.dumps({
        "instruction": "Identify the genre of the given music.", "input": "<|SOA|><AUDIO><|EOA|>", "output": label,
        "uuid": "", "split": ["test"], "task_type": {"major": ["multi-class"], "minor": ["genre_classification"]},
        "audio_path": [f"data/GTZAN/{audio}"], "audio_start": start, "audio_end": end, "source": "GTZAN"}) + "\n"
        for audio, start, end, label in ITEMS))
    converted = tmp_path / "references.jsonl"
    assert not convert_file(REFERENCE_IMPORTERS["cmi-bench"], task, converted)
    log = ProblemLog()
    found = read_references(SPEC, converted, log)
    assert not log
    return found


def _records(keep: list[int]) -> list[dict[str, Any]]:
    """The inference scripts' records (question, response, correct_answer, audioid, other) of items ``keep``."""
    return [{"question": "Identify the genre of the given music.", "response": RESPONSES[n],
             "correct_answer": ITEMS[n][3], "audioid": f"../testdata/GTZAN/{ITEMS[n][0]}", "other": ""} for n in keep]


def _release(folder: Path, records: list[dict[str, Any]] | bytes, model: str = "qwen2") -> OutputFile:
    path = release_write(folder, model, "GTZAN", records)
    found = output_recognise(path, path.relative_to(folder).as_posix(), output_sets())
    assert found is not None
    return found


def _texts(predictions: list[Any]) -> list[tuple[str, int]]:
    return [(p.text, p.line) for p in predictions]


# --- the table and a folder ------------------------------------------------------------------------------------


def test_the_table_holds_the_cmi_release_each_hosted_task_and_the_readmes_models() -> None:
    (cmi,) = [s for s in output_sets() if s.name == "cmi-bench"]
    assert cmi.repository == "https://github.com/nicolaus625/CMI-bench"
    assert cmi.commit == "4c15f410bf0c7ff59d654b2a96f3295f3dec5aa5" and cmi.licence == "CC BY 4.0"
    assert sorted(cmi.tasks.values()) == sorted(CMI_BENCHMARKS)  # every hosted task, each once
    names = {key: model.name for key, model in cmi.models.items()}
    assert len(names) == 11 and names["qwen2"] == "Qwen2-Audio-Instruct" and names["mullama"] == "MU-LLaMA"
    assert cmi.models["pengi"].parameters == "323M" and cmi.models["salmonn"].parameters == "13B"


def test_a_folder_is_sorted_into_hosted_tasks_tasks_not_hosted_and_other_files(tmp_path: Path) -> None:
    release_write(tmp_path, "qwen2", "GTZAN", _records([0]))
    release_write(tmp_path, "gama", "MedleyDB", _records([0]))
    release_write(tmp_path / "gama_it", "stray", "GTZAN", _records([0]))  # not <model>/<model>_<task>
    (tmp_path / "README.md").write_text("the release's notes")
    found = dict(outputs_find(tmp_path))
    assert found["README.md"] is None and found["gama_it/stray/stray_GTZAN.jsonl.gz"] is not None
    qwen2, gama = found["qwen2/qwen2_GTZAN.jsonl.gz"], found["gama/gama_MedleyDB.jsonl.gz"]
    assert qwen2 is not None and gama is not None
    assert (qwen2.benchmark, qwen2.task, qwen2.name) == ("cmi-gtzan", "GTZAN", "qwen2_GTZAN.jsonl")
    assert qwen2.source_path == "model/results/qwen2/qwen2_GTZAN.jsonl"
    assert qwen2.source_url == ("https://github.com/nicolaus625/CMI-bench/blob/4c15f410bf0c7ff59d654b2a96f3295f3dec5aa5"
                                "/model/results/qwen2/qwen2_GTZAN.jsonl")
    assert gama.benchmark == "" and gama.source_path == "eval/output/gama/gama_MedleyDB.jsonl"  # not hosted here


# --- the join ---------------------------------------------------------------------------------------------------


def test_a_complete_run_in_the_released_order_is_joined_by_place(tmp_path: Path, references: ReferenceSet) -> None:
    run = output_read(SPEC, references, _release(tmp_path, _records(list(range(6)))))
    assert not run.log and run.log.warning_total == 0
    assert (run.answered, run.items) == (6, 6)
    assert [p.id for p in run.predictions] == [r.id for r in references.references]
    assert _texts(run.predictions) == [(text, n) for n, text in enumerate(RESPONSES, start=1)]


def test_a_run_without_whole_clips_is_joined_by_audio_and_its_missing_items_are_scored_empty_with_a_warning(
        tmp_path: Path, references: ReferenceSet) -> None:
    run = output_read(SPEC, references, _release(tmp_path, _records([0, 1, 3, 4])))  # b and d not answered
    assert not run.log
    assert (run.answered, run.items) == (4, 6)
    assert dict(run.log.warning_counts) == {"missing_as_empty": 2}
    (warning,) = run.log.warnings
    assert warning.field == "id" and "2 of 6 items have no prediction in qwen2_GTZAN.jsonl" in warning.message
    assert "rock/b.wav[0.0:30.0]" in warning.message and "scored as empty predictions" in warning.message
    # each record on its own item (c's segments keep their order), the missing ones empty (line 0: no record)
    assert _texts(run.predictions) == [("blues", 1), ("It is blues.", 2), ("", 0), ("jazz", 3), ("I hear rock.", 4),
                                       ("", 0)]
    blanked = output_read(SPEC, references, _release(tmp_path / "blanked", [
        {**r, "response": ""} if n in (2, 5) else r for n, r in enumerate(_records(list(range(6))))]))
    scorer = Scorer(SPEC, references.references)
    incomplete = scorer.score_run([p for p in run.predictions if p is not None])
    assert (incomplete["accuracy"].values == scorer.score_run(
        [p for p in blanked.predictions if p is not None])["accuracy"].values).all()
    assert incomplete["accuracy"].values.tolist() == [1.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    # what the site stores for such a run: one line per item, in the references' order
    lines = [json.loads(line) for line in output_jsonl(SPEC, references, run).decode().splitlines()]
    assert [(line["id"], line["prediction"]) for line in lines] == [
        (r.id, p.text) for r, p in zip(references.references, run.predictions, strict=True) if p is not None]


def test_a_truncated_run_keeps_its_records_on_their_places(tmp_path: Path, references: ReferenceSet) -> None:
    run = output_read(SPEC, references, _release(tmp_path, _records([0, 1, 2, 3])))  # the last segment and d lost
    assert not run.log and (run.answered, run.items) == (4, 6)
    assert [text for text, _ in _texts(run.predictions)] == [*RESPONSES[:4], "", ""]


def test_a_segment_missing_from_a_clip_is_an_error_never_a_guess(tmp_path: Path, references: ReferenceSet) -> None:
    run = output_read(SPEC, references, _release(tmp_path, _records([1, 2, 3, 4, 5])))  # a[0:10] not answered
    assert dict(run.log.counts) == {"ambiguous_item": 1}
    problem = run.log.problems[0]
    assert (problem.file, problem.line, problem.field) == ("qwen2_GTZAN.jsonl", 1, "audio")
    assert "blues/a.wav" in problem.message and "could be item 1 or item 2" in problem.message


# --- refusals ---------------------------------------------------------------------------------------------------


def test_a_refused_file_names_file_line_and_field(tmp_path: Path, references: ReferenceSet) -> None:
    records = _records(list(range(6)))
    del records[2]["response"]
    unanswered = output_read(SPEC, references, _release(tmp_path / "unanswered", records)).log
    assert [str(p) for p in unanswered.problems] == [
        "qwen2_GTZAN.jsonl:3: response: required field \"response\" (the model's answer) is missing"]
    records = _records([0, 1, 2, 5, 3, 4])
    swapped = [str(p) for p in output_read(SPEC, references, _release(tmp_path / "swapped", records)).log.problems]
    assert len(swapped) == 2 and all(p.startswith(f"qwen2_GTZAN.jsonl:{n}: audio: record {n} is for audio")
                                     for n, p in zip((5, 6), swapped, strict=True)), swapped
    assert "must keep the released order" in swapped[0] and "correct_answer" not in " ".join(swapped)
    broken = output_read(SPEC, references, _release(tmp_path / "broken", b"")).log
    assert [(p.file, p.line, p.kind) for p in broken.problems] == [("qwen2_GTZAN.jsonl", 0, "empty_file")]
    path = tmp_path / "cut" / "qwen2" / "qwen2_GTZAN.jsonl.gz"
    path.parent.mkdir(parents=True)
    path.write_bytes(gzip.compress(b"[" * 100)[:20])
    cut = output_read(SPEC, references, OutputFile(path, "qwen2/qwen2_GTZAN.jsonl.gz", output_sets()[0], "qwen2",
                                                   "GTZAN")).log
    assert [(p.file, p.line, p.kind) for p in cut.problems] == [("qwen2_GTZAN.jsonl", 0, "unreadable_file")]


# --- a released file with items taken out, against the CLI --------------------------------------------------------


@pytest.mark.slow
def test_a_released_file_with_items_removed_is_scored_as_the_cli_scores_it_with_missing_as_empty(
        tmp_path: Path, cli) -> None:
    task = shared_file("data", "cmi-bench", "CMI_VocalSet_tech_test.jsonl")
    records = release_records(shared_release("qwen2", "VocalSet_tech"))
    kept, removed = every_nth_removed(records, 40)
    found = _release_of(tmp_path / "release", "qwen2", "VocalSet_tech", kept)
    spec = get_benchmark("cmi-vocalset-tech")
    converted = tmp_path / "references.jsonl"
    assert not convert_file(REFERENCE_IMPORTERS["cmi-bench"], task, converted)
    references = read_references(spec, converted, ProblemLog())
    run = output_read(spec, references, found)
    assert not run.log and (run.answered, run.items) == (1100, 1140)
    assert run.log.warning_counts["missing_as_empty"] == 40

    incomplete = tmp_path / "qwen2_VocalSet_tech.jsonl"
    incomplete.write_bytes(run.content)
    blanked = tmp_path / "blanked.json"
    blanked.write_text(json.dumps([{**r, "response": ""} if n in removed else r for n, r in enumerate(records)]))
    stored = tmp_path / "stored.jsonl"
    stored.write_bytes(output_jsonl(spec, references, run))
    common = ("--benchmark", "cmi-vocalset-tech", "--references", task, "--references-format", "cmi-bench",
              "--bootstrap", "0")
    cli_incomplete = cli.score_json(*common, "--predictions", incomplete, "--predictions-format", "cmi-bench",
                                    "--missing-as-empty")
    assert cli_incomplete["missing_as_empty"] == 40
    assert cli_incomplete["metrics"] == cli.score_json(*common, "--predictions", blanked, "--predictions-format",
                                                       "cmi-bench")["metrics"]
    assert cli_incomplete["metrics"] == cli.score_json(*common, "--predictions", stored)["metrics"]
    without = cli.run("score", *common, "--predictions", incomplete, "--predictions-format", "cmi-bench")
    assert without.returncode == 1 and "40 of 1,140 items have no prediction" in without.stderr


def _release_of(folder: Path, model: str, task: str, records: list[dict[str, Any]]) -> OutputFile:
    path = release_write(folder, model, task, records)
    found = output_recognise(path, path.relative_to(folder).as_posix(), output_sets())
    assert found is not None
    return found
