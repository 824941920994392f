"""CMI-Bench beat/downbeat scoring against an independent reading of the publisher's ``beat_tracking``.

The oracle (``helpers.cmi_mir``) is written from the rules of CMI-Bench's ``evaluate.py`` (``get_beat`` and the
per-track try/except around ``mir_eval``), with its own control flow: it splits with a regular
expression, drops every ``s`` character by character, and decides an unreadable answer by catching
whatever the conversion raises, as the publisher's bare ``except`` does.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from scoring.metrics.base import ScoringContext
from scoring.metrics.cmi_beat import OUTPUTS, CmiBeat, cmi_timestamps
from tests.helpers.cmi_mir import oracle_times, oracle_track
from tests.helpers.shared import shared_file

REFERENCE = ("0.38s,0.82s,1.26s,1.7s,2.15s,2.58s,3.03s,3.47s,3.91s,4.39s,4.83s,5.27s,5.72s,6.16s,6.6s,7.03s,"
             "7.47s,7.92s,8.36s,8.8s,9.24s,9.66s,10.12s,10.56s,11.01s,11.47s,11.9s,12.35s,12.79s,13.24s")
DOWNBEATS = "1.61s,3.42s,5.25s,7.04s,8.85s,10.65s,12.47s,14.27s,16.08s,17.88s,19.68s,21.5s,23.32s,25.12s"

# what instruction-following models answer to "list the timestamps of all beats"
MODEL_OUTPUTS = [
    REFERENCE,                                                     # perfect
    "0.4s,0.85s,1.3s,1.71s,2.1s,2.6s,3.0s,3.5s,3.9s,4.4s,4.8s,5.3s",  # good start, then stops
    "0.0s,0.54s,1.0ss,1.5s,2.0s,2.5s,3.0s",                        # the instruction's example, echoed
    "Sure! Here are the beat timestamps: 0.46s, 0.92s, 1.38s, 1.84s, 2.3s. I hope this helps",
    "The beats are at 0.5s, 1.0s, 1.5s and 2.0s.",                # "and" breaks float(): whole answer 0
    "0:00.38, 0:00.82, 0:01.26, 0:01.70, 0:02.15",                 # m:ss
    "0:10, 0:20, 1:02:03, 0:30.5",                                 # h:m:s keeps only the first two fields
    "[0.38, 0.82, 1.26, 1.7]",                                     # a Python list: "1.7]" is unreadable
    "```\n0.38s, 0.82s, 1.26s\n```",                               # markdown fence
    "- 0.38s\n- 0.82s\n- 1.26s",                                   # bullets without commas: nothing read
    "",                                                            # empty
    "The tempo is about 120 BPM.",                                 # no timestamps
    "120 BPM",                                                     # starts with a digit, float fails
    "2.15s, 0.38s, 1.26s, 0.82s, 0.82s",                           # unsorted, duplicated
    "0.5 s, 1 s, 1.5 s, 2 s, 2.5 s, 3 s,",                         # spaces and a trailing comma
    "0.38s,0.82s,40000s",                                          # above mir_eval's 30,000 s
    "0:nan, 0.82s, 1.26s",                                         # float("nan") through m:ss
    "1:",                                                          # empty seconds field: skipped
    "1.5:30",                                                      # int("1.5") fails: whole answer 0
    "\u0663.5s, 4.39s",                                            # Arabic-Indic digit: isdigit and float agree
    "\u00b2s, 1.0s",                                               # superscript two: isdigit, float refuses
    "0.38s,0.82s,1.26s,1.7s,2.15s,2.58s,3.03s,3.47s,3.91s,4.39s,4.83s,5.27s,5.72s,6.16s,6.6s,7.03s,7.47s,"
    "7.92s,8.36s,8.8s,9.24s,9.66s,10.12s,10.56s,11.01s,11.47s,11.9s,12.35s,12.79s,13.24s,13.67s,14.1s",
    "0.19s,0.38s,0.6s,0.82s,1.04s,1.26s,1.48s,1.7s,1.92s,2.15s,2.36s,2.58s,2.8s,3.03s,3.25s,3.47s",  # double tempo
    "0.6s,1.04s,1.48s,1.92s,2.36s,2.8s,3.25s,3.69s,4.15s,4.61s,5.05s",  # off-beat
    "1.61s, 3.42s, 5.25s, 7.04s",                                  # a downbeat-like answer
    "Beat 1: 0.38s, Beat 2: 0.82s, Beat 3: 1.26s",                 # labelled: nothing starts with a digit
]


def family_scores(synth, references: list[str], outputs: list[str]) -> dict:
    refs, preds = synth.text_objects(references, outputs)
    return CmiBeat({}, ScoringContext()).score(refs, preds, OUTPUTS)


def test_beat_family_equals_the_publisher_rules_on_model_outputs(synth) -> None:
    references = [REFERENCE] * len(MODEL_OUTPUTS)
    scores = family_scores(synth, references, MODEL_OUTPUTS)
    expected = np.array([oracle_track(r, o) for r, o in zip(references, MODEL_OUTPUTS)])
    for column, name in enumerate(OUTPUTS):
        np.testing.assert_allclose(scores[name].values, expected[:, column], rtol=0, atol=1e-12, err_msg=name)
        ones = np.ones((1, len(MODEL_OUTPUTS)))
        aggregate = CmiBeat({}, ScoringContext()).aggregate(name, scores[name], ones)[0]
        assert abs(aggregate - np.mean(expected[:, column])) < 1e-9
    unread = [o for o in MODEL_OUTPUTS if oracle_times(o) is None]
    assert scores["unparsed_outputs"].values.tolist() == [float(o in unread) for o in MODEL_OUTPUTS]
    # "2.3s. I hope this helps" starts with a digit and float() refuses it, as it refuses "1.5s and 2.0s."
    assert [MODEL_OUTPUTS.index(o) for o in unread] == [3, 4, 7, 8, 12, 18, 20]


def test_beat_outputs_with_known_values() -> None:
    assert cmi_timestamps("0:10, 0:20, 1:02:03, 0:30.5").tolist() == [10.0, 20.0, 30.5, 62.0]
    assert cmi_timestamps("0.5 s, 1 s,").tolist() == [0.5, 1.0]
    assert cmi_timestamps("The beats are at 0.5s, 1.0s and 2.0s.") is None
    assert cmi_timestamps("Beat 1: 0.38s, Beat 2: 0.82s").tolist() == []
    assert cmi_timestamps("1:").tolist() == []
    assert cmi_timestamps("1.5:30") is None
    assert cmi_timestamps("9" * 400 + ":1") is None  # int * 60 + float overflows


def test_perfect_and_untrimmed_downbeats_score_one(synth) -> None:
    # mir_eval.beat.evaluate would trim beats before 5 s; the publisher does not
    scores = family_scores(synth, [DOWNBEATS, DOWNBEATS], [DOWNBEATS, "1.61s, 3.42s"])
    assert scores["f_measure"].values.tolist()[0] == 1.0
    assert scores["cmlt"].values.tolist()[0] == 1.0
    assert scores["f_measure"].values[1] == pytest.approx(2 * 2 / (14 + 2))


@pytest.mark.parametrize("name", ["CMI_gtzan_beat_test.jsonl", "CMI_ballroom_downbeat_test.jsonl"])
def test_beat_family_on_released_references_with_perturbed_outputs(synth, name: str) -> None:
    lines = shared_file("data", "cmi-bench", name).read_text().splitlines()[:60]
    references = [json.loads(line)["output"] for line in lines]
    rng = np.random.default_rng(7)
    outputs = []
    for i, reference in enumerate(references):
        times = np.array(oracle_times(reference) or [])
        shifted = times + rng.normal(0, 0.04, len(times))
        kind = i % 5
        if kind == 0:
            outputs.append(",".join(f"{t:.2f}s" for t in shifted))
        elif kind == 1:
            outputs.append(", ".join(f"{int(t // 60)}:{t % 60:05.2f}" for t in np.abs(shifted)))
        elif kind == 2:
            outputs.append("Here are the timestamps: " + ", ".join(f"{t:.2f}s" for t in shifted[::2]))
        elif kind == 3:
            outputs.append(str([round(t, 2) for t in shifted]))
        else:
            outputs.append(",".join(f"{t:.3f}s" for t in shifted[: len(shifted) // 2]) + " and so on.")
    scores = family_scores(synth, references, outputs)
    expected = np.array([oracle_track(r, o) for r, o in zip(references, outputs)])
    for column, output in enumerate(OUTPUTS):
        assert abs(np.mean(scores[output].values) - np.mean(expected[:, column])) < 1e-9
        np.testing.assert_allclose(scores[output].values, expected[:, column], rtol=0, atol=1e-12)
    assert 0.3 < np.mean(expected[:, 0]) < 0.9  # the perturbations leave real work to the metric
