"""CMI-Bench NSynth pitch: the ``cmi_label`` family on MIDI numbers against an independent reading of evaluate.py's
get_multiclass_acc (class strings: ``str(correct_answer)`` over the test file), on messy answers, the rebuilt test
file (its ceiling of 0.7686) and the publisher's released outputs; the integer references read as evaluate.py reads
them."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from scoring.engine import Scorer
from scoring.metrics.base import UNPARSED
from scoring.publishers.importers import REFERENCE_IMPORTERS
from scoring.reading.problems import ProblemLog
from scoring.specs import get_benchmark
from scoring.task_types import Prediction, Reference
from tests.helpers.cmi_key_oracle import (
    oracle_pitch_items,
    pitch_response,
    publisher_normalise,
    released_file,
    released_records,
    result_file,
)
from tests.helpers.parse_data import CMI_MODELS, cmi_records
from tests.helpers.shared import shared_file

MESSY = ["MIDI 60", "60.", "C4 (60)", "sixty", "The pitch is 60 (C4).", "6 0", "060", "60-61", "pitch: 60\n",
         "60 or 61", "A4", "69 Hz", "#60", "1e2", "100", "9", "19", "MIDI number: 109", "60.0", "[60]", "",
         "The note is MIDI 60, an octave above 48.", "**60**", "６０", "60\u00a0", "Example 1: 33. Answer: 60"]
# the README's list: every class string that contains another class string of the file
NEVER_CREDITED = {19, 29, 39, 49, 59, 69, 79, 89, *range(90, 109), 110, 113, 115, 116, 118, 119}


def _scorer(references: list[str]) -> tuple[Scorer, list[Reference]]:
    refs = [Reference(str(n), n + 1, {}, (r,)) for n, r in enumerate(references)]
    return Scorer(get_benchmark("cmi-nsynth-pitch"), refs), refs


def _score(references: list[str], responses: list[str]) -> tuple[list[float], list[float], float]:
    scorer, refs = _scorer(references)
    scores = scorer.score_run([Prediction(str(n), n + 1, t) for n, t in enumerate(responses)])
    value = scorer.aggregate("accuracy", [scores], np.ones((1, len(refs))))[0]
    return scores["accuracy"].values.tolist(), scores[f"diag:{UNPARSED}"].values.tolist(), float(value)


def test_messy_pitch_answers_score_as_get_multiclass_acc() -> None:
    rng = random.Random(3)
    gold = [str(r["output"]) for r in released_records("cmi-nsynth-pitch")]
    references = ["60"] * len(MESSY) + rng.sample(gold, 400)
    responses = MESSY + [pitch_response(int(r), rng) for r in references[len(MESSY):]]
    # the class strings are those of the whole test file, as in the publisher's run over it
    references_all = references + [g for g in sorted(set(gold)) if g not in references]
    responses_all = responses + [""] * (len(references_all) - len(references))
    values, unparsed, _ = _score(references_all, responses_all)
    assert values == oracle_pitch_items(references_all, responses_all)
    classes = {publisher_normalise(c) for c in references_all}
    assert unparsed == [float(sum(c in publisher_normalise(r) for c in classes) != 1) for r in responses_all]
    credited = dict(zip(MESSY, values[: len(MESSY)]))
    assert credited["MIDI 60"] == credited["60."] == credited["C4 (60)"] == 1.0  # "4" and "c4" are no class
    assert credited["sixty"] == credited["60 or 61"] == credited["69 Hz"] == 0.0
    assert credited["6 0"] == credited["060"] == credited["60.0"] == 1.0  # spaces and dots removed: only "60" is held
    assert credited["100"] == credited["MIDI number: 109"] == 0.0  # not the gold, and the gold is not held


def test_integer_references_read_as_their_decimal_strings_and_bad_ones_are_problems(tmp_path: Path) -> None:
    records = released_records("cmi-nsynth-pitch")[:4]
    records[1]["output"] = True
    records[2]["output"] = 60.0
    path = tmp_path / "CMI_Nsynth_pitch_test.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    log = ProblemLog()
    rows = REFERENCE_IMPORTERS["cmi-bench"](path, log)
    assert [(line, row["answer"]) for line, row in rows] == [(1, str(records[0]["output"])),
                                                             (4, str(records[3]["output"]))]
    assert {(p.line, p.field, p.kind) for p in log.problems} == {(2, "output", "wrong_type"),
                                                                  (3, "output", "wrong_type")}


@pytest.mark.slow
def test_each_reference_as_its_own_answer_scores_the_ceiling_of_0_7686(tmp_path: Path, cli) -> None:
    records = released_records("cmi-nsynth-pitch")
    items = [{**r, "response": str(r["output"])} for r in records]
    run = tmp_path / "gold.json"
    run.write_text(json.dumps(items))
    report = cli.score_json("--benchmark", "cmi-nsynth-pitch", "--references", released_file("cmi-nsynth-pitch"),
                            "--references-format", "cmi-bench", "--predictions", run, "--bootstrap", "5")
    per_item = oracle_pitch_items([r["output"] for r in records], [i["response"] for i in items])
    never = {r["output"] for r, ok in zip(records, per_item) if not ok}
    assert never == NEVER_CREDITED and len(never) == 33 and len({r["output"] for r in records}) == 106
    assert sum(1 for r in records if r["output"] in never) == 948
    assert report["metrics"]["accuracy"] == pytest.approx(sum(per_item) / len(per_item), abs=1e-12)
    assert report["metrics"]["accuracy"] == pytest.approx(3148 / 4096, abs=1e-12)
    assert round(report["metrics"]["accuracy"], 4) == 0.7686


@pytest.mark.slow
def test_cli_on_a_result_file_equals_the_publishers_accuracy(tmp_path: Path, cli) -> None:
    for seed, jsonl in ((1, True), (2, False)):
        run = tmp_path / f"run{seed}.{'jsonl' if jsonl else 'json'}"
        items = result_file("cmi-nsynth-pitch", run, seed, jsonl=jsonl)
        report = cli.score_json("--benchmark", "cmi-nsynth-pitch", "--references",
                                released_file("cmi-nsynth-pitch"), "--references-format", "cmi-bench",
                                "--predictions", run, "--predictions-format", "cmi-bench", "--bootstrap", "20")
        expected = oracle_pitch_items([i["output"] for i in items], [i["response"] for i in items])
        assert report["n_items"] == 4096
        assert report["metrics"]["accuracy"] == pytest.approx(sum(expected) / len(expected), abs=1e-9)
        assert 0.1 < report["metrics"]["accuracy"] < 0.6
        assert report["warnings"]["counts"].get("empty_prediction", 0) == sum(1 for i in items if i["response"] == "")


@pytest.mark.parametrize("model", [m for m in CMI_MODELS if m not in ("ltu_as", "pengi")])  # no released file
def test_the_publishers_released_outputs_score_as_its_rules(model: str) -> None:
    shared_file("data", "cmi-bench-results", model, f"{model}_Nsynth_pitch.jsonl.gz")
    records = cmi_records(model, "Nsynth_pitch")
    references, responses = [str(r["correct_answer"]) for r in records], [r["response"] for r in records]
    values, unparsed, value = _score(references, responses)
    expected = oracle_pitch_items([r["correct_answer"] for r in records], responses)
    assert values == expected and len(values) == 4096
    classes = {publisher_normalise(c) for c in references}
    assert unparsed == [float(sum(c in publisher_normalise(r) for c in classes) != 1) for r in responses]
    assert value == pytest.approx(sum(expected) / len(expected), abs=1e-9)
