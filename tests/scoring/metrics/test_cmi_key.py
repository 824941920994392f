"""CMI-Bench GiantSteps key (``cmi_key``) against an independent reading of evaluate.py's key_ensamble_score
(``tests/helpers/cmi_key_oracle.py``), on messy answers, the rebuilt test file and the publisher's released outputs."""

from __future__ import annotations

import json
import random
from pathlib import Path

import mir_eval
import numpy as np
import pytest

from scoring.engine import Scorer
from scoring.metrics.base import UNPARSED, ScoringContext
from scoring.metrics.cmi_key import CmiKey, cmi_key_read
from scoring.specs import get_benchmark
from scoring.task_types import Prediction, Reference
from tests.helpers.cmi_key_oracle import (
    KEYS_IN_ORDER,
    key_response,
    mirex_weight,
    oracle_key_item,
    oracle_key_pred,
    oracle_key_score,
    released_file,
    released_records,
    result_file,
)
from tests.helpers.parse_data import CMI_MODELS, cmi_records
from tests.helpers.shared import shared_file

MESSY = [
    "F#m", "f sharp minor", "Gb major", "The key is E minor.", "C# major or A# minor", "", "Bbm", "key: d",
    "E minor / G major", "D♭ major", "C♯ minor", "g♯m", "E♯ major", "e#", "B#m", "The song is in F# minor.",
    "Key: C4 minor", "**A minor**", "A", "am", "x", "Ebm", "db", "B\tminor", "D\nmajor", "Cb major",
    "C major\n\nThe progression stays diatonic.", "I cannot determine the key.", "Relative: C major, A minor",
    "²E minor", "٣Ab major", "ＣMajor", "İ major", "a minor key", "   ", "Bb major.", "G#", "m", "mm", "#",
]


def _oracle_or_none(response: str) -> str | None:
    try:
        return oracle_key_pred(response)
    except Exception:
        return None


@pytest.mark.parametrize("response", MESSY)
def test_the_key_read_is_the_publishers(response: str) -> None:
    assert cmi_key_read(response) == _oracle_or_none(response)


@pytest.mark.parametrize("response, key", [
    ("F#m", "Gb minor"), ("f sharp minor", None), ("Gb major", "Gb major"), ("E minor / G major", "G major"),
    ("The key is E minor.", "E minor"), ("C# major or A# minor", "Db major"), ("Bbm", "Bb minor"), ("key: d", None),
    ("D♭ major", None), ("C♯ minor", "Db minor"), ("The song is in F# minor.", None), ("A", "A major"),
    ("", None), ("e#", None),
])
def test_the_spellings_the_protocol_names_resolve_as_documented(response: str, key: str | None) -> None:
    assert _oracle_or_none(response) == key == cmi_key_read(response)


def test_mir_eval_weights_are_the_mirex_weights_on_every_pair_of_the_24_keys() -> None:
    for reference in KEYS_IN_ORDER:
        for estimate in KEYS_IN_ORDER:
            assert mir_eval.key.weighted_score(reference, estimate) == mirex_weight(reference, estimate)


def _family_scores(references: list[str], responses: list[str]) -> dict:
    refs = [Reference(str(n), n + 1, {}, (r,)) for n, r in enumerate(references)]
    preds = [Prediction(str(n), n + 1, text) for n, text in enumerate(responses)]
    return CmiKey({}, ScoringContext()).score(refs, preds, ("weighted_score",))


def test_per_item_values_notes_and_unparsed_equal_the_oracle_on_messy_answers() -> None:
    rng = random.Random(4)
    references = [rng.choice(KEYS_IN_ORDER) for _ in MESSY] * 3
    responses = MESSY + [key_response(r, rng) for r in references[len(MESSY):]]
    scores = _family_scores(references, responses)
    expected = [oracle_key_item(ref, res) for ref, res in zip(references, responses)]
    assert scores["weighted_score"].values.tolist() == [value for value, _ in expected]
    assert scores["weighted_score"].notes == [{"choice": key or "none"} for _, key in expected]
    assert scores[UNPARSED].values.tolist() == [float(key is None) for _, key in expected]
    assert {0.0, 0.2, 0.3, 0.5, 1.0} <= set(scores["weighted_score"].values.tolist())


def test_a_reference_that_is_not_a_key_is_an_error_naming_the_item() -> None:
    with pytest.raises(ValueError, match=r"item '0'.*'H major'"):
        _family_scores(["H major"], ["C major"])


@pytest.mark.slow
def test_cli_on_a_result_file_equals_the_publishers_score(tmp_path: Path, cli) -> None:
    for seed, jsonl in ((1, False), (2, True)):
        run = tmp_path / f"run{seed}.{'jsonl' if jsonl else 'json'}"
        items = result_file("cmi-gs-key", run, seed, jsonl=jsonl)
        references, responses = [i["output"] for i in items], [i["response"] for i in items]
        report = cli.score_json("--benchmark", "cmi-gs-key", "--references", released_file("cmi-gs-key"),
                                "--references-format", "cmi-bench", "--predictions", run,
                                "--predictions-format", "cmi-bench", "--bootstrap", "20")
        expected = oracle_key_score(references, responses)
        assert report["n_items"] == len(items) == 2406
        assert report["metrics"]["weighted_score"] == pytest.approx(expected, abs=1e-9)
        assert 0.2 < expected < 0.8
        unread = sum(1 for ref, res in zip(references, responses) if oracle_key_item(ref, res)[1] is None)
        assert report["diagnostics"]["unparsed"] == [unread] and unread > 100
        assert report["warnings"]["counts"]["unreadable_answer"] == unread
        assert "impl:nicolaus625/CMI-bench evaluate.py@4c15f410 key_ensamble_score" in \
            report["signatures"]["weighted_score"]


@pytest.mark.slow
def test_every_reference_as_its_own_answer_scores_one(tmp_path: Path, cli) -> None:
    items = [{**r, "response": r["output"]} for r in released_records("cmi-gs-key")]
    run = tmp_path / "gold.json"
    run.write_text(json.dumps(items))
    report = cli.score_json("--benchmark", "cmi-gs-key", "--references", released_file("cmi-gs-key"),
                            "--references-format", "cmi-bench", "--predictions", run, "--bootstrap", "5")
    assert report["n_items"] == 2406
    assert report["metrics"] == {"weighted_score": 1.0} and report["diagnostics"]["unparsed"] == [0]


def _released_run(model: str) -> tuple[list[str], list[str]]:
    records = cmi_records(model, "GS_key")
    return [str(r["correct_answer"]) for r in records], [r["response"] for r in records]


@pytest.mark.parametrize("model", CMI_MODELS)
def test_the_publishers_released_outputs_score_as_its_rules(model: str) -> None:
    shared_file("data", "cmi-bench-results", model, f"{model}_GS_key.jsonl.gz")
    references, responses = _released_run(model)
    refs = [Reference(str(n), n + 1, {}, (r,)) for n, r in enumerate(references)]
    preds = [Prediction(str(n), n + 1, text) for n, text in enumerate(responses)]
    scorer = Scorer(get_benchmark("cmi-gs-key"), refs)
    scores = scorer.score_run(preds)
    value = scorer.aggregate("weighted_score", [scores], np.ones((1, len(refs))))[0]
    assert value == pytest.approx(oracle_key_score(references, responses), abs=1e-9)
    assert len(refs) == 2406
    unread = [float(oracle_key_item(ref, res)[1] is None) for ref, res in zip(references, responses)]
    assert scores[f"diag:{UNPARSED}"].values.tolist() == unread
