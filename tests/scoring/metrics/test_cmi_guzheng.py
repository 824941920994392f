"""CMI-Bench Guzheng technique F1 against an independent reading of the publisher's rules.

The oracle (``helpers.cmi_mir``) reads events with ``ast.literal_eval`` standing in for the publisher's ``eval`` (the
same value on every literal), builds the 1,000 x 7 frame grid its own way, and scores with
scikit-learn's ``f1_score`` (``average="micro"`` pooled over every frame and class; ``"macro"``
the unweighted mean of the 7 class F1, 0 where undefined), which is what
``calculate_frame_f1`` computes. Where the publisher's code would raise, the documented rule
applies: the answer predicts no technique.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from scoring.metrics.base import ScoringContext
from scoring.metrics.cmi_guzheng import OUTPUTS, CmiGuzheng, technique_frames
from tests.helpers.cmi_mir import oracle_grid, oracle_guzheng
from tests.helpers.shared import shared_file

REFERENCES = [
    "[('0.1741', '0.2785', 'Glissando'), ('0.2785', '0.4061', 'Glissando'), ('3.2260', '4.3051', 'Vibrato'), "
    "('4.3051', '4.8505', 'Vibrato'), ('5.4656', '6.6028', 'Vibrato'), ('8.3898', '9.0512', 'Vibrato')]",
    "[('5.5035', '6.0724', 'Upward Portamento'), ('7.0708', '8.0809', 'Upward Portamento'), "
    "('9.6947', '10.0', 'Upward Portamento')]",
    "[('0.0', '10.0', 'No Tech')]",
    "[('10.0', '11.5', 'Tremolo'), ('12.25', '14.0', 'Plucks'), ('15.0', '16.2', 'Point Note')]",
    "[('1.0', '2.0', 'Downward Portamento'), ('2.5', '3.5', 'Point Note'), ('6.0', '9.5', 'Tremolo')]",
]

MODEL_OUTPUTS = [
    REFERENCES[0],                                                                 # exact copy
    "[('0.2', '0.4', 'Glissando'), ('3.3', '4.8', 'Vibrato'), ('5.5', '7.0', 'Vibrato')]",
    "The detected techniques are: [(0.0, 2.5, 'Plucks'), (2.5, 4.0, 'Point Note')]. Hope this helps!",
    "```python\n[('5.4', '6.1', 'Upward Portamento'), ('7.0', '8.0', 'upward_portamento')]\n```",
    "[{'start': 1.0, 'end': 2.0, 'technique': 'Glissando'}, {'start': '6', 'end': '7', 'technique': ['Vibrato']}]",
    "[('0.0', '10.0', 'No Tech')]",                                                # nothing detected
    "[(1.0, 2.0, 'DOWNWARD-PORTAMENTO'), (2.5, 3.5, 'point note'), (6, 9.5, 'Tremolo')]",
    "[(10.5, 11.5, 'Tremolo'), (12.0, 14.0, 'Plucks'), (9.5, 10.5, 'Vibrato')]",  # % 10; the last wraps to empty
    "[[0.5, 1.5, 'Vibrato'], [2, 3, 'Plucks']]",                                   # lists, not tuples
    "[(0.5, 1.5, 'Vibrato'), [2, 3, 'Plucks'], {6.0: 0, 7.0: 0, 'Tremolo': 0}]",  # mixed: a dict unpacks its keys
    "[(4.0, 3.0, 'Vibrato'), (-0.5, 0.25, 'Glissando'), (True, 2, 'Tremolo')]",   # end before start; -0.5 % 10
    "I could not detect any playing technique in this audio.",                    # no '[': eval("]") raises
    "[]",                                                                          # events[0] raises
    "[('start_time', 'end_time', 'No Tech')]",                                     # the instruction's echo
    "[(0.5, 1.0, 'Harmonics')]",                                                   # not one of the 7
    "[(0.5, 1.0, Vibrato)]",                                                       # a name: eval raises
    "[('0.0', '10.0', 'No Tech'), ('1.0', '2.0', 'Vibrato')]",                     # No Tech beside others
    "[(0.5, 1.0, 'Vibrato'), (float('nan'), 2.0, 'Plucks')]",                      # a call: refused
    "[('0.5', '1.0', 'Vibrato'), ('1.0', '2.0', 'Plucks')",                        # unclosed: "...Plucks']"
    "Techniques: [('0.5', '1.5', 'Tremolo')] and maybe [('2', '3', 'Plucks')]",   # text between two lists: eval raises
    "[('1e999', '2', 'Vibrato')]",                                                 # inf % 10 is nan
    "['0.5', '1.0', 'Vibrato']",                                                   # flat: '0' % 10 raises
    "",
]


def oracle_tuple(references: list[str], outputs: list[str]) -> tuple[float, float]:
    result = oracle_guzheng(references, outputs)
    return result["micro_f1"], result["macro_f1"]


def family_totals(synth, references: list[str], outputs: list[str]) -> dict[str, float]:
    refs, preds = synth.text_objects(references, outputs)
    family = CmiGuzheng({}, ScoringContext())
    scores = family.score(refs, preds, OUTPUTS)
    ones = np.ones((1, len(outputs)))
    result = {name: float(family.aggregate(name, scores[name], ones)[0]) for name in OUTPUTS}
    result["unparsed"] = float(scores["unparsed_outputs"].values.sum())
    return result


def test_guzheng_family_equals_the_publisher_rules_on_model_outputs(synth) -> None:
    references = [REFERENCES[i % len(REFERENCES)] for i in range(len(MODEL_OUTPUTS))]
    result = family_totals(synth, references, MODEL_OUTPUTS)
    micro, macro = oracle_tuple(references, MODEL_OUTPUTS)
    assert abs(result["micro_f1"] - micro) < 1e-9
    assert abs(result["macro_f1"] - macro) < 1e-9
    assert 0.05 < macro < micro < 0.9  # a real mix of hits and misses
    unreadable = [o for o in MODEL_OUTPUTS if technique_frames(o) is None]
    assert result["unparsed"] == len(unreadable) == 12


@pytest.mark.parametrize("output", MODEL_OUTPUTS)
def test_each_output_reads_to_the_oracle_grid(output: str) -> None:
    grid = technique_frames(output)
    expected = oracle_grid(output)
    assert np.array_equal(np.zeros_like(expected) if grid is None else grid, expected)


def test_known_grids() -> None:
    grid = technique_frames("[(10.5, 11.5, 'Tremolo'), (9.5, 10.5, 'Vibrato'), (-0.5, 0.25, 'Glissando')]")
    assert grid is not None
    assert grid[:, 6].sum() == 100 and grid[50:150, 6].all()   # 10.5-11.5 -> 0.5-1.5
    assert grid[:, 0].sum() == 0                                # 9.5-10.5 -> 9.5-0.5: empty slice
    assert grid[:, 5].sum() == 0                                # -0.5 % 10 = 9.5 -> 9.5-0.25: empty
    assert technique_frames("[('0.0', '10.0', 'No Tech')]").sum() == 0
    assert technique_frames("[('0.0', '10.0', 'No Tech'), ('1', '2', 'Vibrato')]") is None


def test_times_in_fullwidth_digits_predict_no_technique(synth) -> None:
    # eval refuses U+FF11 in a number (SyntaxError, the publisher's script stops): no technique
    references = ["[('1.0', '2.0', 'Vibrato')]"] * 2
    outputs = ["[(1.0, 2.0, 'Vibrato')]", "[(\uff11.\uff10, 2.0, 'Vibrato')]"]
    assert technique_frames(outputs[1]) is None
    result = family_totals(synth, references, outputs)
    # Vibrato: 100 true positives, 100 false negatives; the other six classes count 0
    assert result == {"micro_f1": pytest.approx(2 / 3, abs=1e-12), "macro_f1": pytest.approx(2 / 21, abs=1e-12),
                      "unparsed": 1.0}


def test_micro_and_macro_are_not_the_printed_labels(synth) -> None:
    # one class predicted perfectly over many frames, one tiny class missed: pooled F1 stays high,
    # the class mean halves. The publisher prints the first as "Marco F1" and the second as "Micro F1".
    references = ["[('0.0', '9.0', 'Vibrato'), ('9.0', '9.1', 'Plucks')]"]
    outputs = ["[('0.0', '9.0', 'Vibrato')]"]
    result = family_totals(synth, references, outputs)
    assert result["micro_f1"] == pytest.approx(2 * 900 / (2 * 900 + 10))
    assert result["macro_f1"] == pytest.approx(1 / 7)  # 5 classes absent from both count 0


def test_bootstrap_totals_equal_the_aggregate_on_resampled_items(synth) -> None:
    references = [REFERENCES[i % len(REFERENCES)] for i in range(len(MODEL_OUTPUTS))]
    refs, preds = synth.text_objects(references, MODEL_OUTPUTS)
    family = CmiGuzheng({}, ScoringContext())
    scores = family.score(refs, preds, OUTPUTS)
    rng = np.random.default_rng(3)
    picks = rng.integers(0, len(MODEL_OUTPUTS), size=(4, len(MODEL_OUTPUTS)))
    weights = np.stack([np.bincount(p, minlength=len(MODEL_OUTPUTS)) for p in picks]).astype(float)
    for name in OUTPUTS:
        values = family.totals(name, scores[name]).of(weights)
        for row, pick in zip(values, picks):
            expected = oracle_tuple([references[i] for i in pick], [MODEL_OUTPUTS[i] for i in pick])
            assert abs(row - expected[OUTPUTS.index(name)]) < 1e-9


def test_guzheng_released_references_all_read_and_bound_macro_f1_at_six_sevenths(synth) -> None:
    lines = shared_file("data", "cmi-bench", "CMI_Guzheng_Tech_test.jsonl").read_text().splitlines()
    references = [json.loads(line)["output"] for line in lines]
    assert len(references) == 94
    assert all(technique_frames(r) is not None for r in references)
    result = family_totals(synth, references, references)
    # no test item has a Plucks frame: that class's F1 is 0 for every answer, so macro F1 <= 6/7
    assert result == {"micro_f1": 1.0, "macro_f1": 6 / 7, "unparsed": 0.0}
    shifted = [r.replace("'Vibrato'", "'Tremolo'") for r in references]
    result = family_totals(synth, references, shifted)
    assert (result["micro_f1"], result["macro_f1"]) == pytest.approx(oracle_tuple(references, shifted), abs=1e-9)
