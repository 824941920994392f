"""CMI-Bench Guzheng technique F1 against an independent reading of the released evaluate.py's rules.

The oracle below (``released_grid``) is written in this test from the rules of ``convert_to_frame_labels`` as
CMI-Bench releases it (nicolaus625/CMI-bench @ 4c15f410, the reader of commit f44d952), sharing no code with
``scoring``: the text from the first ``[`` to before the first ``)`` plus ``)]``, read with ``ast.literal_eval``
standing in for the publisher's ``eval`` (the same value on every literal); dicts by their ``start``, ``end``,
``technique``; 3-tuples kept when their start's first character is a digit; ``start % 10`` and
``(end - 1e-4) % 10 + 1e-4``; a lone "No Tech" is an empty grid. Scores come from scikit-learn's ``f1_score``
(``average="micro"`` pooled over every frame and class; ``"macro"`` the unweighted mean of the 7 class F1, 0
where undefined), which is what ``calculate_frame_f1`` computes. Where the publisher's code reads no event or
raises, the documented rule applies: the answer predicts no technique.

The publisher prints no table of Guzheng scores for its released result files (neither the repository nor
``../shared/data/cmi-bench-results/README.md``), so the released files are checked against the oracle.
"""

from __future__ import annotations

import ast
import gzip
import json
from typing import Any

import numpy as np
import pytest

from scoring.metrics import get_family
from scoring.metrics.base import ScoringContext
from scoring.metrics.bertscore import BertScoreConfig
from scoring.metrics.cmi_guzheng import OUTPUTS, CmiGuzheng, technique_frames
from scoring.specs import get_benchmark
from scoring.specs.cmi import CMI_TASKS
from tests.helpers.shared import shared_file

ORDER = ("vibrato", "pointnote", "upwardportamento", "downwardportamento", "plucks", "glissando", "tremolo")
REFERENCES = [
    "[('0.1741', '0.2785', 'Glissando'), ('0.2785', '0.4061', 'Glissando'), ('3.2260', '4.3051', 'Vibrato'), "
    "('4.3051', '4.8505', 'Vibrato'), ('5.4656', '6.6028', 'Vibrato'), ('8.3898', '9.0512', 'Vibrato')]",
    "[('9.6947', '10.0', 'Upward Portamento'), ('5.5035', '6.0724', 'Upward Portamento')]",
    "[('0.0', '10.0', 'No Tech')]",
    "[('10.0', '11.5', 'Tremolo'), ('12.25', '14.0', 'Plucks'), ('15.0', '16.2', 'Point Note')]",
    "[('1.0', '2.0', 'Downward Portamento'), ('2.5', '3.5', 'Point Note'), ('6.0', '9.5', 'Tremolo')]",
]
MODEL_OUTPUTS = [
    REFERENCES[0],                                                                  # exact copy
    "[('0.2', '0.4', 'Glissando'), ('3.3', '4.8', 'Vibrato'), ('5.5', '7.0', 'Vibrato')]",
    "The detected techniques are: [('9.0', '20.0', 'Upward Portamento')]. Hope this helps!",  # ends at 10 s
    "```python\n[('0.0', '10.0', 'No Tech')]\n```",
    "[('10.5', '11.5', 'tremolo'), ('12.0', '14.0', 'Plucks')]",                    # % 10: 0.5 to 1.5
    "[('1.0', '2.0', 'DOWNWARD-PORTAMENTO'), ('2.5', '3.5', 'point note')]",
    "[(' 0.1741', '0.3', 'Glissando')]",                                             # a leading space: dropped
    "[('.1741', '0.3', 'Glissando')]",                                               # a leading point: dropped
    "[('0.1', ' 0.3', 'Glissando')]",                                                # the end is only float()ed
    "[(0.5, 1.0, 'Vibrato')]",                                                       # a number has no [0]
    "[{'start': 3.0, 'end': 4.5, 'technique': 'Vibrato'}, ({'start': '6', 'end': '7', 'technique': ['Tremolo']})]",
    '[{"start": 3.0, "end": 4.5, "technique": "Vibrato"}]',                          # JSON: no ")" at all
    "[[2.5, 3.5, 'Point Note'], (6.0, 9.5, 'Tremolo')]",                            # neither dicts nor tuples
    "Techniques: [('0.5', '1.5', 'Tremolo')] and maybe [('2', '3', 'Plucks')]",    # two lists: up to the first ")"
    "Answer (two lists): [('0.5', '1.5', 'Tremolo')]",                              # ")" before "[": No Tech
    "I could not detect any playing technique in this audio.",
    "[]",
    "[('start_time', 'end_time', 'No Tech')]",                                      # the instruction's echo
    "[('0.5', '1.0', 'Harmonics')]",                                                 # not one of the 7
    '["[(\'0.5\', \'1.0\', \'Vibrato\')]"]',                                     # a list quoted in a list
    "[('0.5', '1.0', Vibrato)]",                                                     # a name: eval raises
    "[('1e999', '2', 'Vibrato')]",                                                   # inf % 10 is nan
    "[('\uff11.\uff15', '\uff12', 'Vibrato')]",                          # fullwidth digits: float() reads them
    "['0.5', '1.0', 'Vibrato']",                                                     # flat and no ")": No Tech
    "",
]
# the reference each output answers: the first six aimed at theirs, the rest in turn
PAIRED = [REFERENCES[i] for i in (0, 0, 1, 2, 3, 4)] + [REFERENCES[i % 5] for i in range(6, len(MODEL_OUTPUTS))]


def _normalise(label: Any) -> str:
    if isinstance(label, list):
        label = label[0]
    return "".join(c for c in label.replace("#", "\u266f") if c not in "_-' .").lower()


def released_grid(text: str) -> np.ndarray | None:
    """The 1,000 x 7 grid the released reader gives, or None where it reads no event or raises."""
    opening, closing = text.find("["), text.find(")")
    if opening < 0 or closing <= opening:
        return None
    try:
        literal = text[opening:closing] + ")]"
        value = ast.literal_eval(literal[2:] if literal.startswith('["[') else literal)
        if isinstance(value[0], dict):
            events = [(float(d["start"]), float(d["end"]), d["technique"]) for d in value]
        elif all(type(e) is tuple and len(e) == 3 for e in value):
            events = [(float(a), float(b), str(c)) for a, b, c in value if a[0].isdigit()]
            if not events:
                return None
        else:
            events = [tuple(e) for e in value]
        placed = []
        for a, b, c in events:
            if isinstance(a, str) or isinstance(b, str):
                raise TypeError("str % 10 formats or raises; str - float raises")
            placed.append((a % 10, (b - 0.0001) % 10 + 0.0001, _normalise(c)))
        grid = np.zeros((1000, 7), dtype=int)
        if len(placed) == 1 and placed[0][2] == "notech":
            return grid
        for a, b, c in placed:
            if c in ORDER:  # another technique sets no frame
                grid[int(a * 100): int(b * 100), ORDER.index(c)] = 1
        return grid
    except Exception:  # the publisher's evaluation would stop here
        return None


def oracle_grid(text: str) -> np.ndarray:
    grid = released_grid(text)
    return np.zeros((1000, 7), dtype=int) if grid is None else grid


def oracle_scores(references: list[str], outputs: list[str]) -> tuple[float, float]:
    from sklearn.metrics import f1_score

    truth = np.vstack([oracle_grid(r) for r in references])
    predicted = np.vstack([oracle_grid(o) for o in outputs])
    return (float(f1_score(truth.ravel(), predicted.ravel(), zero_division=0)),
            float(f1_score(truth, predicted, average="macro", zero_division=0)))


def family_totals(synth, references: list[str], outputs: list[str]) -> dict[str, float]:
    refs, preds = synth.text_objects(references, outputs)
    family = CmiGuzheng({}, ScoringContext())
    scores = family.score(refs, preds, OUTPUTS)
    ones = np.ones((1, len(outputs)))
    result = {name: float(family.aggregate(name, scores[name], ones)[0]) for name in OUTPUTS}
    result["unparsed"] = float(scores["unparsed_outputs"].values.sum())
    return result


def assert_equals_oracle(synth, references: list[str], outputs: list[str]) -> dict[str, float]:
    result = family_totals(synth, references, outputs)
    micro, macro = oracle_scores(references, outputs)
    assert abs(result["micro_f1"] - micro) < 1e-9
    assert abs(result["macro_f1"] - macro) < 1e-9
    assert result["unparsed"] == sum(1 for o in outputs if released_grid(o) is None)
    return result


@pytest.mark.parametrize("text", MODEL_OUTPUTS + REFERENCES)
def test_each_answer_reads_to_the_oracle_grid(text: str) -> None:
    grid, expected = technique_frames(text), released_grid(text)
    assert (grid is None) == (expected is None)
    assert np.array_equal(oracle_grid(text), np.zeros((1000, 7)) if grid is None else grid)


def test_family_equals_the_released_rules_on_model_outputs(synth) -> None:
    result = assert_equals_oracle(synth, PAIRED, MODEL_OUTPUTS)
    assert 0.05 < result["macro_f1"] < result["micro_f1"] < 0.9  # a real mix of hits and misses
    assert result["unparsed"] == sum(released_grid(o) is None for o in MODEL_OUTPUTS) == 12


def test_references_count_their_first_event_only(synth) -> None:
    grid = technique_frames(REFERENCES[0])
    assert grid is not None
    assert grid.sum() == grid[17:27, ORDER.index("glissando")].sum() == 10  # 0.1741-0.2785 s; the rest unread
    first_only = [r[: r.index(")") + 1] + "]" for r in REFERENCES]
    for full, first in zip(REFERENCES, first_only):
        assert np.array_equal(oracle_grid(full), oracle_grid(first))
    # a model that gives only the first event of each reference is perfect; one that gets the rest wrong too
    result = assert_equals_oracle(synth, REFERENCES, first_only)
    assert (result["micro_f1"], result["unparsed"]) == (1.0, 0.0)
    wrong_rest = [f[:-1] + ", ('0.0', '10.0', 'Plucks')]" for f in first_only]
    assert family_totals(synth, REFERENCES, wrong_rest) == result


@pytest.mark.parametrize(("end", "frames"), [("10.0", 31), ("10", 31), ("20.0", 31), ("9.99995", 30),
                                             ("9.9999", 30), ("10.5", 0), ("11.0", 0)])
def test_events_ending_at_ten_seconds_keep_their_frames(synth, end: str, frames: int) -> None:
    answer = f"[('9.6947', '{end}', 'Upward Portamento')]"
    grid = technique_frames(answer)
    assert grid is not None
    assert grid[:, ORDER.index("upwardportamento")].sum() == frames == oracle_grid(answer).sum()
    assert grid[969:969 + frames, ORDER.index("upwardportamento")].all()
    assert_equals_oracle(synth, [REFERENCES[1]] * 2, [answer, REFERENCES[1]])


def test_a_whole_clip_event_ends_at_frame_1000() -> None:
    grid = technique_frames("[('0.0', '10.0', 'Vibrato')]")
    assert grid is not None and grid[:, 0].sum() == 1000


@pytest.mark.parametrize(("answer", "frames"), [
    ("[(' 0.1741', '0.2785', 'Glissando')]", None),
    ("[('.1741', '0.2785', 'Glissando')]", None),
    ("[('\\t0.1741', '0.2785', 'Glissando')]", None),
    ("[('0.1741', ' 0.2785', 'Glissando')]", 10),
    ("[('0.1741 ', '0.2785\\n', 'Glissando')]", 10),
    ("  \n [('0.1741', '0.2785', 'Glissando')]", 10),
    ("[('0.1741s', '0.2785', 'Glissando')]", None),   # float() refuses: the publisher's script stops
    ("[('', '0.2785', 'Glissando')]", None),          # ''[0] raises
])
def test_leading_spaces_and_point_times(synth, answer: str, frames: int | None) -> None:
    grid = technique_frames(answer)
    assert (None if grid is None else int(grid.sum())) == frames
    assert (None if released_grid(answer) is None else int(oracle_grid(answer).sum())) == frames
    assert_equals_oracle(synth, [REFERENCES[0]] * 2, [answer, REFERENCES[0]])


@pytest.mark.parametrize(("answer", "frames"), [
    ('[{"start": 3.0, "end": 4.5, "technique": "Vibrato"}]', None),                 # no ")": No Tech
    ('{"events": [{"start": 3.0, "end": 4.5, "technique": "Vibrato"}]}', None),
    ('[{"start": "3.0", "end": "4.5", "technique": "Vibrato"}] (one event)', None),  # "(one event)]" does not parse
    ('[{"start": 3.0, "end": 4.5, "technique": "Vibrato", "sure": true}, ({"start": 6})]', None),  # true: a name
    ("[{'start': 3.0, 'end': 4.5, 'technique': 'Vibrato'}, ({'start': '6', 'end': '7', 'technique': 'Tremolo'})]",
     {"vibrato": 150, "tremolo": 100}),
    ("[{'start': '3', 'end': '4.5', 'technique': ['Vibrato']}, ({'start': 6, 'end': 7, 'technique': 'Harmonics'})]",
     {"vibrato": 150}),                                                # an unknown technique sets no frame
    ("[{'start': 3.0, 'technique': 'Vibrato'}, ({'start': 6, 'end': 7, 'technique': 'Tremolo'})]", None),
])
def test_json_object_answers(synth, answer: str, frames: dict[str, int] | None) -> None:
    grid = technique_frames(answer)
    got = None if grid is None else {ORDER[c]: int(n) for c, n in enumerate(grid.sum(0)) if n}
    assert got == frames
    assert (released_grid(answer) is None) == (frames is None)
    assert_equals_oracle(synth, [REFERENCES[0]] * 2, [answer, REFERENCES[0]])


@pytest.mark.parametrize(("answer", "frames"), [
    ("Techniques: [('0.5', '1.5', 'Tremolo')] and maybe [('2', '3', 'Plucks')]", {"tremolo": 100}),
    ("[('0.5', '1.5', 'Tremolo')]\n[('2', '3', 'Plucks')]", {"tremolo": 100}),
    ("[('2', '3', 'Plucks')\n[('0.5', '1.5', 'Tremolo')]", {"plucks": 100}),
    ("First (most likely): [('0.5', '1.5', 'Tremolo')] then [('2', '3', 'Plucks')]", None),
    ("[[0.5, 1.5, 'Tremolo'], [2, 3, 'Plucks']] and (3, 4, 'Vibrato')", None),
    ("[[0.5, 1.5, 'Tremolo'], (2, 3, 'Plucks')]", {"plucks": 100, "tremolo": 100}),
    ("[[0.5, 1.5, 'Tremolo'], ('2', 3, 'Plucks')]", None),  # a string time outside the tuple branch
])
def test_two_lists_in_one_answer(synth, answer: str, frames: dict[str, int] | None) -> None:
    grid = technique_frames(answer)
    got = None if grid is None else {ORDER[c]: int(n) for c, n in enumerate(grid.sum(0)) if n}
    assert got == frames
    assert (released_grid(answer) is None) == (frames is None)
    assert_equals_oracle(synth, [REFERENCES[4]] * 2, [answer, REFERENCES[4]])


@pytest.mark.parametrize("answer", [
    "[[0.5*2, 2, 'Vibrato'], (3, 4, 'Plucks')]",                       # arithmetic: eval computes it
    "[{'start': 1+1, 'end': 3, 'technique': 'Vibrato'}, ({'start': 6, 'end': 7, 'technique': 'Tremolo'})]",
    "[[float('1'), 2, 'Vibrato'], (3, 4, 'Plucks')]",                  # a call
    "[[\uff11, 2, 'Vibrato'], (3, 4, 'Plucks')]",                      # eval refuses U+FF11 outside a string
])
def test_what_only_evaluating_code_reads_predicts_no_technique(answer: str) -> None:
    # nothing is evaluated: where evaluate.py's eval would compute a value (or raise), no event is read here
    assert technique_frames(answer) is None
    assert CmiGuzheng.answer_warning(answer) is not None


def test_answer_warning_names_answers_without_an_event() -> None:
    assert CmiGuzheng.answer_warning(REFERENCES[0]) is None
    assert CmiGuzheng.answer_warning("[('0.0', '10.0', 'No Tech')]") is None
    message = CmiGuzheng.answer_warning("[(0.5, 1.0, 'Vibrato')]")
    assert message is not None and "predicting no technique" in message


def test_micro_and_macro_are_not_the_printed_labels(synth) -> None:
    # one class predicted perfectly over many frames, one tiny class missed: pooled F1 stays high,
    # the class mean halves. The publisher prints the first as "Marco F1" and the second as "Micro F1".
    references = ["[[0.0, 9.0, 'Vibrato'], (9.0, 9.1, 'Plucks')]"]
    outputs = ["[('0.0', '9.0', 'Vibrato')]"]
    result = assert_equals_oracle(synth, references, outputs)
    assert result["micro_f1"] == pytest.approx(2 * 900 / (2 * 900 + 10))
    assert result["macro_f1"] == pytest.approx(1 / 7)  # 5 classes absent from both count 0


def test_bootstrap_totals_equal_the_aggregate_on_resampled_items(synth) -> None:
    references = PAIRED
    refs, preds = synth.text_objects(references, MODEL_OUTPUTS)
    family = CmiGuzheng({}, ScoringContext())
    scores = family.score(refs, preds, OUTPUTS)
    rng = np.random.default_rng(3)
    picks = rng.integers(0, len(MODEL_OUTPUTS), size=(4, len(MODEL_OUTPUTS)))
    weights = np.stack([np.bincount(p, minlength=len(MODEL_OUTPUTS)) for p in picks]).astype(float)
    for name in OUTPUTS:
        values = family.totals(name, scores[name]).of(weights)
        for row, pick in zip(values, picks):
            expected = oracle_scores([references[i] for i in pick], [MODEL_OUTPUTS[i] for i in pick])
            assert abs(row - expected[OUTPUTS.index(name)]) < 1e-9


def test_signature_names_the_released_commit() -> None:
    fields = CmiGuzheng({}, ScoringContext()).signature_fields("micro_f1")
    assert "evaluate.py@4c15f410" in fields["impl"]
    assert CmiGuzheng.rules == 2


def test_every_cmi_family_signature_names_the_evaluate_py_commit_it_reproduces() -> None:
    # the captioning columns are computed by the shared BLEU, METEOR, ROUGE and BERTScore families
    commits = {}
    for task in CMI_TASKS:
        for metric in get_benchmark(task.name).profile().metrics:
            if metric.family.startswith("cmi_"):
                family = get_family(metric.family)(metric.params, ScoringContext(bertscore=BertScoreConfig.default()))
                fields = family.signature_fields(metric.output)
                impl = fields.get("use", fields["impl"])  # the tagging AUCs: impl names bert-score, use the code
                commits[metric.family] = impl.split("evaluate.py@")[1].split()[0]
    assert commits == {"cmi_label": "2cafca5d", "cmi_r2": "2cafca5d", "cmi_wer": "2cafca5d", "cmi_beat": "2cafca5d",
                       "cmi_guzheng": "4c15f410", "cmi_key": "4c15f410", "cmi_tag_auc": "4c15f410"}


def test_released_references_all_read_and_bound_macro_f1_at_six_sevenths(synth) -> None:
    lines = shared_file("data", "cmi-bench", "CMI_Guzheng_Tech_test.jsonl").read_text().splitlines()
    references = [json.loads(line)["output"] for line in lines]
    assert len(references) == 94
    assert all(technique_frames(r) is not None for r in references)
    result = assert_equals_oracle(synth, references, references)
    # no first event of a test item is Plucks: that class's F1 is 0 for every answer, so macro F1 <= 6/7
    assert result == {"micro_f1": 1.0, "macro_f1": 6 / 7, "unparsed": 0.0}
    first_only = [r[: r.index(")") + 1] + "]" for r in references]
    assert family_totals(synth, references, first_only) == result
    shifted = [r.replace("'Vibrato'", "'Tremolo'") for r in references]
    assert_equals_oracle(synth, references, shifted)


RESULT_MODELS = ("flamingo", "mullama", "musilingo", "qwen", "qwen2", "salmonn",  # model/results/ in the repository
                 "gama", "gama_it", "ltu", "ltu_as", "pengi")                      # eval/output/


@pytest.mark.parametrize("model", RESULT_MODELS)
def test_released_model_outputs_equal_the_released_rules(synth, model: str) -> None:
    path = shared_file("data", "cmi-bench-results", model, f"{model}_Guzheng_Tech.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        records = json.load(handle)
    assert len(records) == 94
    task_file = shared_file("data", "cmi-bench", "CMI_Guzheng_Tech_test.jsonl")
    released = [json.loads(line) for line in task_file.read_text().splitlines()]
    # the result file lists the test items in file order, each with the publisher's copy of its reference
    assert all(r["audioid"].endswith("/" + t["audio_path"][0].removeprefix("data/")) for r, t in zip(records, released))
    references = [t["output"] for t in released]
    assert references == [r["correct_answer"] for r in records]
    assert_equals_oracle(synth, references, [r["response"] for r in records])


def test_every_cmi_benchmarks_signatures_name_the_evaluate_py_commit_they_reproduce() -> None:
    from scoring import Scorer
    from scoring.specs import suite_members
    from scoring.task_types import Reference

    for spec in suite_members("cmi-bench"):
        references = [Reference(id="clip", line=1, public={}, answers=("[('0.5', '1.0', 'Vibrato')]",))]
        scorer = Scorer(spec, references)
        commit = next(t.commit for t in CMI_TASKS if t.name == spec.name)  # the rules each task is scored by
        assert scorer.columns, spec.name
        for key in scorer.columns:
            assert f"|evaluator:nicolaus625/CMI-bench evaluate.py@{commit}|" in scorer.signature(key), (spec.name, key)
