"""Every benchmark says where its audio comes from (``scoring.specs.audio``), and its layout resolves the audio
names of its real ``inputs.jsonl``; every "run a model" example (``scoring.kit_examples``) writes a file that
validates, run on real inputs with its stand-in model."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from scoring import BENCHMARKS, ProblemLog, get_benchmark, read_references
from scoring.publishers.importers import REFERENCE_IMPORTERS, convert_file
from scoring.reading.validation import load_predictions
from scoring.site.inputs import inputs_lines
from scoring.site.kit import SAMPLES, example_command, example_module, example_script
from scoring.specs.audio import AUDIO_SOURCES, DEMO, NOT_STATED, audio_source
from scoring.specs.cmi import CMI_TASKS
from tests.helpers.datagen import dialbgm_references, write_jsonl
from tests.helpers.shared import REPO_ROOT, shared_file

Record = dict[str, Any]

# The released file of each benchmark under ../shared/data, and the publisher's format it is read in.
CMI_TAGS = ("CMI_GS_key", "CMI_MTG_", "CMI_MTT", "CMI_Nsynth_pitch")
RELEASED: dict[str, tuple[tuple[str, ...], str]] = {
    "musicqa": (("musicqa", "EvalMusicQA.json"), "musicqa"),
    "musiccaps": (("musiccaps", "musiccaps-public.csv"), "musiccaps"),
    "lp-musiccaps": (("musiccaps", "lp-musiccaps-test-subset.csv"), "lp-musiccaps"),
    "jamendo-mt-qa": (("jamendo-mt-qa", "examples_from_project_page.json"), "jamendo"),
    "mmau": (("mmau", "mmau-test-mini.json"), "mmau"),
    "mmar": (("mmar", "MMAR-meta.jsonl"), "mmar"),
    "rul-muchomusic": (("rul-muchomusic", "RUL-MuchoMusic.json"), "rul-muchomusic"),
    "songformbench": (("songformbench", "songformbench_segments.jsonl"), "songformbench"),
    **{task.name: (("cmi-bench-tags" if task.file.startswith(CMI_TAGS) else "cmi-bench", task.file), "cmi-bench")
       for task in CMI_TASKS},
}
# Why a benchmark has no released item file here: its example path cannot be checked against real items.
UNRELEASED = {
    "dialbgm": "the authors released no data",
    "muchomusic": "muchomusic.csv is not under ../shared/data",
    **{name: "DeepResonance's test files are only on Hugging Face, not under ../shared/data" for name in (
        "music4way-musiccaps", "music4way-mi2t", "music4way-mv2t", "music4way-any2t", "gtzan", "musicnet",
        "musicinstruct-long", "musicinstruct-short", "mtg-jamendo")},
}


def _drop_dot(value: str) -> str:
    return value[2:] if value.startswith("./") else value


# Where each publisher's own code or README opens an item's audio, relative to its root folder, written out
# independently of the layouts in scoring.specs.audio.
EXPECTED: dict[str, Callable[[Record], list[str]]] = {
    # MU-LLaMA / M2UGen evaluators: os.path.join(".../MusicQA/audios", audio_name)
    "musicqa": lambda r: ["audios/" + r["audio"]],
    # the 10 s YouTube window <ytid>[start-end], stored as <ytid>.wav (CMI-Bench's MusicCaps/audio/<ytid>.wav)
    "musiccaps": lambda r: [r["audio"].split("[")[0] + ".wav"],
    "lp-musiccaps": lambda r: [r["audio"].split("[")[0] + ".wav"],
    # Jamendo-MT-QA README: data/audio/<track_id>.wav, both tracks of the pair
    "jamendo-mt-qa": lambda r: [f"audio/{r['audio1']}.wav", f"audio/{r['audio2']}.wav"],
    # MMAU audio_id, MMAR audio_path: ./<folder>/<file>, relative to where the archive is extracted
    "mmau": lambda r: [_drop_dot(r["audio"])],
    "mmar": lambda r: [_drop_dot(r["audio"])],
    # AreYouReallyListening qwen_2_audio.py: f"{audio_dir}/{question_id}.mp3"
    "rul-muchomusic": lambda r: [f"{r['id']}.mp3"],
    "songformbench": lambda r: [f"{r['id']}.wav"],
    # CMI-Bench inference: "../testdata/" + audio_path, so relative to testdata the path is audio_path itself
    **{task.name: (lambda r: [r["audio"]]) for task in CMI_TASKS},
}


def _released_inputs(benchmark: str, tmp_path: Path, limit: int | None = None) -> tuple[list[Record], Path]:
    """The benchmark's ``inputs.jsonl`` records from its released file (as ``python -m scoring inputs`` writes
    them), and the converted reference file of the same items."""
    parts, source_format = RELEASED[benchmark]
    refs = tmp_path / f"{benchmark}-references.jsonl"
    assert not convert_file(REFERENCE_IMPORTERS[source_format], shared_file("data", *parts), refs)
    if limit is not None:
        kept = refs.read_text(encoding="utf-8").splitlines(keepends=True)[:limit]
        refs.write_text("".join(kept), encoding="utf-8")
    log = ProblemLog()
    references = read_references(get_benchmark(benchmark), refs, log)
    assert not log, log
    lines = inputs_lines((r.id, r.public) for r in references.references)
    return [json.loads(line) for line in lines], refs


def test_every_registered_benchmark_has_one_audio_source_and_no_row_is_stale() -> None:
    assert set(AUDIO_SOURCES) == set(BENCHMARKS)
    assert set(RELEASED) | set(UNRELEASED) == set(BENCHMARKS) and not set(RELEASED) & set(UNRELEASED)
    for name, spec in BENCHMARKS.items():
        source = spec.audio
        assert source is audio_source(name) and source.name and source.how and source.licence, name
        assert source.url.startswith("https://") if source.available else not source.example, name
    assert audio_source("dialbgm", demo=True) is DEMO and not DEMO.available
    with pytest.raises(KeyError, match="no audio source"):
        audio_source("no-such-benchmark")


def test_unknown_licences_say_so_and_unreleased_audio_is_never_given_a_link() -> None:
    assert not BENCHMARKS["dialbgm"].audio.available and BENCHMARKS["dialbgm"].audio.url == ""
    assert NOT_STATED in BENCHMARKS["gtzan"].audio.licence
    assert "no public audio" in BENCHMARKS["songformbench"].audio.how


@pytest.mark.parametrize("benchmark", sorted(BENCHMARKS))
def test_layout_resolves_every_real_item_and_its_example_is_a_real_items_file(benchmark: str, tmp_path: Path) -> None:
    if benchmark in UNRELEASED:
        pytest.skip(f"{benchmark}: {UNRELEASED[benchmark]}; its example path is not checked against real items")
    records, _ = _released_inputs(benchmark, tmp_path)
    source = get_benchmark(benchmark).audio
    expected = [EXPECTED[benchmark](record) for record in records]
    assert [source.paths(record) for record in records] == expected
    assert source.example in {path for paths in expected for path in paths}
    assert all(path and not path.startswith(("/", "./")) for paths in expected for path in paths)


def test_paths_of_messy_records() -> None:
    musiccaps = get_benchmark("musiccaps").audio
    assert musiccaps.paths({"id": "x", "audio": "-a_b[30.5-40.5]"}) == ["-a_b.wav"]
    assert musiccaps.paths({"id": "x", "audio": "no window"}) == ["no window"]  # an unexpected value stays itself
    jamendo = get_benchmark("jamendo-mt-qa").audio
    assert jamendo.paths({"id": "p", "audio1": "rock_É x", "audio2": ""}) == ["audio/rock_É x.wav"]
    assert get_benchmark("dialbgm").audio.paths({"id": "d", "candidates": ["c1", 2, "c3"]}) == ["c1.wav", "c3.wav"]
    assert get_benchmark("mmau").audio.paths({"id": "m"}) == []


def _run_example(module: str, benchmark: str, inputs: Path, root: Path, out: Path) -> subprocess.CompletedProcess[str]:
    command = example_command(module, benchmark).split()
    command = [sys.executable if word == "python" else word for word in command]
    command = [str(inputs) if word == "inputs.jsonl" else str(root) if word == "ROOT" else
               str(out) if word == "predictions.jsonl" else word for word in command]
    return subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False)


# (benchmark, items) each example runs on: real released items where they are at hand
EXAMPLE_RUNS: dict[str, list[tuple[str, int]]] = {
    "generation": [("musicqa", 40), ("musiccaps", 20), ("lp-musiccaps", 20)],
    "multiple_choice": [("mmau", 60), ("mmar", 60)],
    "comparative_qa": [("jamendo-mt-qa", 3)],
    "leave_one_out": [("rul-muchomusic", 40)],
    "text_shapes": [(task.name, 15) for task in CMI_TASKS] + [("songformbench", 300)],
}


def _example_cases() -> list[tuple[str, str, int]]:
    return [(example, benchmark, n) for example, runs in EXAMPLE_RUNS.items() for benchmark, n in runs]


@pytest.mark.parametrize(("example", "benchmark", "items"), _example_cases())
def test_example_writes_a_file_that_validates_on_real_inputs(example: str, benchmark: str, items: int,
                                                             tmp_path: Path) -> None:
    spec = get_benchmark(benchmark)
    module = example_module(spec.task_type, spec.publisher_format)
    assert module.endswith("." + example)
    records, refs = _released_inputs(benchmark, tmp_path, limit=items)
    inputs, root, out = tmp_path / "inputs.jsonl", tmp_path / "audio", tmp_path / "predictions.jsonl"
    inputs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    present = spec.audio.paths(records[0])
    for relative in present:  # the first item's audio is there, the others are missing
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(b"RIFF")
    done = _run_example(module, benchmark, inputs, root, out)
    assert done.returncode == 0, done.stderr
    expected_missing = sum(path not in present for r in records for path in EXPECTED[benchmark](r))
    assert (f"{expected_missing} audio files are not under" in done.stderr) == bool(expected_missing), done.stderr
    log = ProblemLog()
    references = read_references(spec, refs, ProblemLog())
    predictions = load_predictions(spec, references, out, log=log)
    assert [p.id for p in predictions] == [r["id"] for r in records]
    if example == "text_shapes":  # every answer is in the shape the publisher's parser reads
        assert not log.warnings, log.warnings
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert written == [_independent_answer(example, r) for r in records]


def _independent_answer(example: str, record: Record) -> Record:
    """What each stand-in answers, restated from the examples' documented behaviour."""
    question = record.get("question", "")
    if example == "generation":
        return {"id": record["id"], "prediction": "A placeholder answer: replace model() with your own."}
    if example == "multiple_choice":
        options = record["options"]
        prompt = "\n".join([question, "Choose one option:", *(f"({'ABCDEFGHIJ'[i]}) {o}" for i, o in
                                                                 enumerate(options))])
        return {"id": record["id"], "prediction": random.Random(prompt).choice(options)}
    if example == "comparative_qa":
        if record["qa_type"] == "yes_no":
            return {"id": record["id"], "prediction": random.Random(f"Answer yes or no. {question}").choice(
                ("Yes.", "No."))}
        return {"id": record["id"], "prediction": f"{record['audio1']} (a placeholder answer)."}
    if example == "leave_one_out":
        return {"id": record["id"], "responses": [f"My guess is [[{random.Random(p['prompt']).choice('ABCD')}]]."
                                                  for p in record["prompts"]]}
    return {"id": record["id"], "prediction": _shape_of(question)}


def _shape_of(question: str) -> str:
    if question.startswith("Segment the song"):
        return "0.000 intro\n12.500 verse\n45.000 chorus\n80.250 end"
    if "timestamps of all" in question:
        return "0.52s,1.04s,1.57s,2.09s"
    if "Guzheng" in question:
        return "[('0.0', '1.5', 'Vibrato'), ('2.0', '2.5', 'Point Note')]"
    for words, answer in (("musical key", "C major"), ("pitch", "60"), ("arousal score", "5.5"),
                          ("valence score", "5.5"), ("tag", "rock, pop, electronic")):
        if words in question:
            return answer
    return "A placeholder answer from the stand-in."


def test_ranking_example_scores_every_candidate(tmp_path: Path) -> None:
    """DialBGM released no items: generated ones, with dialogue lines, captions and non-ASCII ids."""
    spec = get_benchmark("dialbgm")
    refs = write_jsonl(dialbgm_references(12, seed=3), tmp_path / "refs.jsonl")
    references = read_references(spec, refs, ProblemLog())
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text("".join(inputs_lines((r.id, r.public) for r in references.references)), encoding="utf-8")
    out = tmp_path / "predictions.jsonl"
    module = example_module("ranking")
    done = _run_example(module, "dialbgm", inputs, tmp_path / "none", out)
    assert done.returncode == 0, done.stderr
    assert "48 audio files are not under" in done.stderr
    predictions = load_predictions(spec, references, out)
    assert len(predictions) == 12
    for line, reference in zip(out.read_text(encoding="utf-8").splitlines(), references.references, strict=True):
        scores = json.loads(line)["scores"]
        assert list(scores) == list(reference.candidates)
        for candidate, score in scores.items():
            prompt = _ranking_prompt(reference.public, candidate)
            assert score == float(f"{random.Random(prompt).uniform(0, 10):.1f}")


def _ranking_prompt(public: Mapping[str, Any], candidate: str) -> str:
    dialogue = public.get("dialogue", public.get("summary", ""))
    text = "\n".join(dialogue) if isinstance(dialogue, list) else str(dialogue)
    caption = (public.get("candidate_captions") or {}).get(candidate, "")
    return (f"Dialogue:\n{text}\nCandidate {candidate}: {caption}\n"
            "Rate from 0 to 10 how well this music fits as the dialogue's background music.")


def test_every_task_type_has_an_example_that_ships_with_the_package() -> None:
    for task_type in SAMPLES:
        module = example_module(task_type)
        assert module == f"scoring.kit_examples.{task_type}"
        script = example_script(module)
        assert "def model(audio_paths: list[Path], prompt: str) -> str:" in script
        assert (REPO_ROOT / "scoring" / "kit_examples" / f"{task_type}.py").read_text(encoding="utf-8") == script
    assert example_module("generation", "cmi-bench") == example_module("generation", "songformbench") \
        == "scoring.kit_examples.text_shapes"
    assert example_module("generation", "musicqa") == "scoring.kit_examples.generation"
    with pytest.raises(KeyError, match="no run-a-model example"):
        example_module("transcription")
