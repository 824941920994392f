"""A CMI-Bench-style task of an existing family is one row: the row alone makes the benchmark listed, scorable,
and its released file importable (docs/adding-a-benchmark.md, first example)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import ScoringOptions, score_files
from scoring.cli import main
from scoring.publishers.importers import convert_file
from scoring.publishers.released import Recognised, Unrecognised, recognise, references_reader, release_of
from scoring.reading.problems import ProblemLog
from scoring.reading.validation import read_references
from scoring.specs import BENCHMARKS, registered
from scoring.specs.audio import AUDIO_SOURCES
from scoring.specs.cmi import CmiTask, cmi_spec, label_accuracy

ROW = CmiTask("cmi-toy-genre", "CMI-Bench: toy genre", "CMI_Toy_genre_test.jsonl", 4,
              "Three-genre classification from a free-text answer, by the genre rule.", label_accuracy(), "accuracy",
              audio_example="data/Toy/blues.00001.wav")

# the publisher's task file: instruction, output (the label), the audio and its seconds
RELEASED = [
    {"instruction": "Which genre is this?", "output": label, "audio_path": [f"data/Toy/{label}.0000{n}.wav"],
     "audio_start": 0.0, "audio_end": 30.0, "task_type": "genre", "source": "toy", "split": "test"}
    for n, label in enumerate(("blues", "jazz", "rock", "blues"), start=1)
]
ANSWERS = ["It sounds like Blues.", "jazz or rock", "ROCK", "classical"]


def _normalised(text: str) -> str:
    """CMI-Bench's normalisation, written out here: separators and dots dropped, lower case."""
    for character in "_-' .":
        text = text.replace(character, "")
    return text.lower()


def _expected_accuracy() -> float:
    """evaluate.py's rule, independently: the gold label in the answer and no other label of the file."""
    labels = {_normalised(r["output"]) for r in RELEASED}
    correct = [_normalised(r["output"]) in _normalised(a)
               and not any(other in _normalised(a) for other in labels - {_normalised(r["output"])})
               for r, a in zip(RELEASED, ANSWERS, strict=True)]
    return sum(correct) / len(correct)


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _listed(capsys: pytest.CaptureFixture[str]) -> set[str]:
    assert main(["benchmarks", "--json"]) == 0
    return {row["name"] for row in json.loads(capsys.readouterr().out)}


def test_one_row_lists_scores_and_imports_a_cmi_style_task(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    released = _write(tmp_path / ROW.file, RELEASED)
    assert ROW.name not in _listed(capsys) and isinstance(recognise(released), Unrecognised)
    with registered(cmi_spec(ROW)) as spec:
        assert ROW.name in _listed(capsys)
        assert spec.publisher_format == "cmi-bench" and spec.audio.example == ROW.audio_example

        found = recognise(released)  # the released file, by its name and shape
        assert isinstance(found, Recognised) and (found.benchmark, found.split) == (ROW.name, "test")
        assert release_of(ROW.name, "test", ROW.file) == f"github.com/nicolaus625/CMI-bench {ROW.file} @ 4c15f410 " \
                                                         "(the test split, with its labels)"
        reader = references_reader(found.row)
        assert reader is not None
        references = tmp_path / "references.jsonl"
        assert not convert_file(reader, released, references)
        read = read_references(spec, references, ProblemLog())
        ids = [f"data/Toy/{r['output']}.0000{n}.wav[0.0:30.0]" for n, r in enumerate(RELEASED, start=1)]
        assert [(r.id, list(r.answers)) for r in read.references] == [
            (i, [r["output"]]) for i, r in zip(ids, RELEASED, strict=True)]

        predictions = _write(tmp_path / "predictions.jsonl",
                             [{"id": i, "prediction": a} for i, a in zip(ids, ANSWERS, strict=True)])
        report = score_files(ROW.name, references, [predictions], ScoringOptions(bertscore=False, n_bootstrap=0))
        assert report.metrics == {"accuracy": _expected_accuracy()} == {"accuracy": 0.5} and report.n_items == 4
    assert ROW.name not in BENCHMARKS and ROW.name not in AUDIO_SOURCES and ROW.name not in _listed(capsys)
