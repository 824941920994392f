"""This site's exact-pitch column on CMI-Bench NSynth pitch (``exact_pitch``): a hand-made table of answers and the
MIDI pitch each names (worked out by hand from C4 = 60, A4 = 69 and 69 + 12 log2(f / 440)), real answers of the
publisher's released outputs, the family's per-item values and diagnostics beside the publisher's, and the perfect
answer (each note's number, each note's name) on the real test file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from scoring.engine import Scorer
from scoring.metrics.base import UNPARSED, ScoringContext
from scoring.metrics.exact_pitch import ExactPitch, read_pitch
from scoring.specs import get_benchmark
from scoring.task_types import Prediction, Reference
from tests.helpers.cmi_key_oracle import released_file, released_records

# answer -> the MIDI pitch it names (None: unparsed)
NAMED: dict[str, int | None] = {
    # MIDI numbers
    "60": 60, "0": 0, "127": 127, "60.": 60, "The pitch is 60.": 60, "pitch:\t60\n": 60, "\u00a060\u2003": 60,
    "**60**": 60, "[60]": 60, "<s> 69</s>": 69, "-1": None, "128": None, "60.5": None, "60.0": None, "0060": None,
    "060": None, "+12": None, "\u22125": None, "1e2": None, "60th": None, "\uff16\uff10": None, "MIDI60": None,
    # note names
    "C4": 60, "c4": 60, "A4": 69, "a1": 33, "A0": 21, "A_0": 21, "C-1": 0, "G9": 127, "G#9": None, "B#3": 60,
    "Cb4": 59, "E#4": 65, "Fb4": 64, "C\u266f4": 61, "D\u266d4": 61, "G\u266f4": 68, "A#4": 70, "Bb4": 70, "bb4": 70,
    "b4": 71, "DB4": None, "C sharp 4": 61, "c SHARP 4": 61, "C-sharp4": 61, "E flat 3": 51, "B-flat 2": 46,
    "C\u00a0sharp\u20094": 61, "B 8": 119, "C": None, "A sharp": None, "C10": None, "C4.5": None, "C4D4": None,
    "A440": 69,
    # frequencies
    "440 Hz": 69, "440Hz": 69, "440 hz": 69, "261.63 Hz": 60, "13.75Hz": 9, "7902.13 Hz": 119, "1 kHz": 83,
    "60 Hz": 35, "0 Hz": None, "20000 Hz": None, "-440 Hz": None, "C4 = 261.63 Hz": 60,
    # agreement
    "C4 (60)": 60, "MIDI 60, which is C4": 60, "A440 (A4): 69": 69, "C4 (61)": None, "60 or 61": None,
    "C4 or D4": None, "60-61": None, "6 0": None, "1. A4 (69)": 69, "2) C4": 60, "x 2) C4": None,
    # nothing
    "": None, " \t\n\u00a0\u2003": None, "sixty": None, "middle C": None,
    # as the released outputs write them
    "The pitch is A4, which is 69 MIDI numbers.": 69,
    "The given audio contains the note A4. The MIDI pitch number of A4 is 69.": 69,
    "The pitch of the given audio is 119, which corresponds to the MIDI note B 8.": 119,
    "The given audio contains the note B4. The MIDI pitch number of B4 is 79.": None,
    "Example 1: 33 Example 2: 77 Example 3: 69": None,
    "<s> Example 3, when the note is A4: 69</s>": None,
    "One octave higher = +12 MIDI numbers": None,
    "The lowest pitch in the audio is 9 (1 octave below A_0, 13.75Hz).": None,
    "The given audio is a high pitched note.": None,
}


@pytest.mark.parametrize(("answer", "midi"), NAMED.items(), ids=[repr(a)[:40] for a in NAMED])
def test_each_answer_names_the_pitch_worked_out_by_hand(answer: str, midi: int | None) -> None:
    assert read_pitch(answer) == midi


def test_very_long_answers_are_read_whole() -> None:
    assert read_pitch("la " * 50_000 + "C4") == 60
    assert read_pitch("60 " * 20_000 + "61") is None
    assert read_pitch("x" * 200_000) is None


def _family(answers: list[str], responses: list[str]) -> dict[str, list[object]]:
    refs = [Reference(f"n{i}", i + 1, {}, (a,)) for i, a in enumerate(answers)]
    preds = [Prediction(f"n{i}", i + 1, t) for i, t in enumerate(responses)]
    scores = ExactPitch({}, ScoringContext()).score(refs, preds, ("pitch_accuracy",))
    return {"values": scores["pitch_accuracy"].values.tolist(), "unparsed": scores["pitch_unparsed"].values.tolist(),
            "notes": list(scores["pitch_accuracy"].notes or [])}


def test_the_family_scores_one_when_the_answer_names_exactly_the_reference() -> None:
    got = _family(["60", "61", "9", "119", "60", "69"], ["C4", "C4", "13.75 Hz", "B 8", "60 or 61", "The note."])
    assert got["values"] == [1.0, 0.0, 1.0, 1.0, 0.0, 0.0]
    assert got["unparsed"] == [0.0, 0.0, 0.0, 0.0, 1.0, 1.0]
    assert got["notes"] == [{"choice": "60"}, {"choice": "60"}, {"choice": "9"}, {"choice": "119"},
                            {"choice": "disagree: 60, 61"}, {"choice": "none"}]


@pytest.mark.parametrize("reference", ["C4", "128", "-1", "60.0", ""])
def test_a_reference_that_is_not_a_midi_number_is_an_error_naming_the_item(reference: str) -> None:
    with pytest.raises(ValueError, match=r"item 'n0': the reference .* is not a MIDI pitch 0-127"):
        _family([reference], ["60"])


def test_the_site_column_sits_beside_the_publishers_with_its_own_diagnostic() -> None:
    references, answers = ["19", "9", "60", "100"], ["19", "9", "C4 (60)", "100"]
    refs = [Reference(f"n{i}", i + 1, {}, (a,)) for i, a in enumerate(references)]
    scorer = Scorer(get_benchmark("cmi-nsynth-pitch"), refs)
    scores = scorer.score_run([Prediction(f"n{i}", i + 1, t) for i, t in enumerate(answers)])
    # the publisher's rule: "19" holds "9" too, so it is no label; the others hold exactly their own
    assert scores["accuracy"].values.tolist() == [0.0, 1.0, 1.0, 1.0]
    assert scores[f"diag:{UNPARSED}"].values.tolist() == [1.0, 0.0, 0.0, 0.0]
    assert scores["pitch_accuracy"].values.tolist() == [1.0, 1.0, 1.0, 1.0]
    assert scores["diag:pitch_unparsed"].values.tolist() == [0.0, 0.0, 0.0, 0.0]
    weights = np.ones((1, 4))
    assert scorer.aggregate("accuracy", [scores], weights)[0] == 0.75
    assert scorer.aggregate("pitch_accuracy", [scores], weights)[0] == 1.0


_NAMES = ("C", "C#", "D", "Eb", "E", "F", "F\u266f", "G", "Ab", "A", "B\u266d", "B")


@pytest.mark.slow
@pytest.mark.parametrize("spelling", ["number", "name"])
def test_the_perfect_answer_scores_one_on_every_note_of_the_real_test_file(spelling: str, tmp_path: Path,
                                                                           cli: Any) -> None:
    records = released_records("cmi-nsynth-pitch")
    assert len(records) == 4096
    answers = [str(r["output"]) if spelling == "number" else f"{_NAMES[r['output'] % 12]}{r['output'] // 12 - 1}"
               for r in records]
    run = tmp_path / "perfect.json"
    run.write_text(json.dumps([{**r, "response": a} for r, a in zip(records, answers)], ensure_ascii=False))
    report = cli.score_json("--benchmark", "cmi-nsynth-pitch", "--references", released_file("cmi-nsynth-pitch"),
                            "--references-format", "cmi-bench", "--predictions", run, "--bootstrap", "5")
    assert report["metrics"]["pitch_accuracy"] == 1.0
    assert report["diagnostics"]["pitch_unparsed"] == [0]
    if spelling == "number":  # the publisher's column keeps its ceiling
        assert report["metrics"]["accuracy"] == pytest.approx(3148 / 4096, abs=1e-12)
        assert report["diagnostics"][UNPARSED] == [948]
    assert "impl:site exact MIDI pitch|" in report["signatures"]["pitch_accuracy"]
