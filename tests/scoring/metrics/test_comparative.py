"""Jamendo-MT-QA's released evaluator rules (yes/no, short answer) and its example items."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu
from rouge_score import rouge_scorer

from scoring.engine import Scorer
from scoring.metrics.comparative import normalize, short_answer_correct, yes_no_correct, yes_no_label
from scoring.publishers.importers import import_jamendo
from scoring.reading.validation import load_predictions, load_references
from scoring.specs import get_benchmark


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  Hello   World \n", "hello world"),
        ("YES", "yes"),
        ("a\tb\n\nc", "a b c"),
        ("", ""),
        (None, ""),
        ("   ", ""),
    ],
)
def test_normalize(text, expected) -> None:
    assert normalize(text) == expected


@pytest.mark.parametrize(
    ("prediction", "gold", "correct"),
    [
        ("Yes", "yes", True),
        ("yes, it is faster", "Yes", True),
        ("  YES.", "Yes", True),  # stripped and lowercased first
        ("No", "No", True),
        ("Nope", "No", True),  # starts with "no"
        ("not really", "no", True),  # the released rule: startswith("no")
        ("True", "Yes", True),  # equals "true" -> yes
        ("FALSE", "No", True),  # equals "false" -> no
        ("true, it is", "Yes", False),  # only exactly "true" counts
        ("yes", "No", False),
        ("The answer is yes", "Yes", False),  # must start with yes/no
        ("maybe", "No", False),
        ("", "Yes", False),
        ("true", "True", False),  # the gold label does not accept true/false
        ("false", "False", False),
        ("yes", "True", False),
    ],
)
def test_yes_no_rule(prediction, gold, correct) -> None:
    assert yes_no_correct(prediction, gold) is correct


def test_yes_no_label() -> None:
    assert yes_no_label("True") == "yes"
    assert yes_no_label("True", accept_true_false=False) is None
    assert yes_no_label("no way") == "no"
    assert yes_no_label("unsure") is None


@pytest.mark.parametrize(
    ("prediction", "gold", "correct"),
    [
        ("guitar_FutureofTears", "guitar_FutureofTears", True),
        ("GUITAR_futureoftears", "guitar_FutureofTears", True),  # normalised
        ("The faster one is guitar_FutureofTears.", "guitar_FutureofTears", True),  # gold inside prediction
        ("guitar", "guitar_FutureofTears", True),  # prediction inside gold (two-way)
        ("track  2", "Track 2 is faster", True),  # whitespace collapsed
        ("indie_AboveandBelow", "guitar_FutureofTears", False),
        ("", "guitar_FutureofTears", False),  # empty prediction is wrong
        ("guitar_FutureofTears", "", False),  # empty gold is wrong
        ("   ", "a", False),
        ("a", " \n ", False),
    ],
)
def test_short_answer_two_way_substring(prediction, gold, correct) -> None:
    assert short_answer_correct(prediction, gold) is correct


def _examples_scorer(tmp_path, examples, jsonl):
    spec = get_benchmark("jamendo-mt-qa")
    references, _ = import_jamendo(examples)
    reference_set = load_references(spec, jsonl.write(tmp_path / "refs.jsonl", references))
    return spec, reference_set, Scorer(spec, reference_set.references)


def test_project_page_examples_scored_with_the_released_rules(tmp_path, jamendo_examples_json, jsonl) -> None:
    spec, reference_set, scorer = _examples_scorer(tmp_path, jamendo_examples_json, jsonl)
    by_type = {r.qa_type: r for r in reference_set.references}
    assert sorted(by_type) == ["sentence", "short_answer", "yes_no"]
    assert by_type["yes_no"].answers == ("No",)
    assert by_type["short_answer"].answers == ("guitar_FutureofTears",)
    sentence_gold = by_type["sentence"].answers[0]

    good = {"yes_no": "no, it is slower", "short_answer": "Track guitar_FutureofTears",
            "sentence": sentence_gold}
    bad = {"yes_no": "Yes", "short_answer": "indie_AboveandBelow",
           "sentence": "Both tracks are calm piano ballads with the same tempo."}
    for answers, accuracy in ((good, 1.0), (bad, 0.0)):
        predictions = [{"id": r.id, "prediction": answers[r.qa_type]} for r in reference_set.references]
        run = load_predictions(spec, reference_set, jsonl.write(tmp_path / "preds.jsonl", predictions))
        report = scorer.report([scorer.score_run(run)], n_bootstrap=10)
        assert report.metrics["yes_no_accuracy"] == accuracy
        assert report.metrics["short_answer_accuracy"] == accuracy
        sentence = answers["sentence"]
        assert report.metrics["bleu"] == sacrebleu.corpus_bleu([sentence], [[sentence_gold]]).score
        direct = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True).score(
            sentence_gold, sentence)
        for key in ("rouge1", "rouge2", "rougeL"):
            assert report.metrics[key] == pytest.approx(direct[key].fmeasure * 100, abs=1e-12)
        assert report.n_scored == {k: 1 for k in report.metrics}
    assert report.metrics["bleu"] < 10


def test_accuracy_counts_only_items_of_its_type(synth) -> None:
    answers = ["Yes", "No", "track_a", "track_b", "a warm bass line"]
    predictions = ["yes", "yes", "TRACK_A", "no idea", "a warm bass line"]
    qa_types = ["yes_no", "yes_no", "short_answer", "short_answer", "sentence"]
    refs, preds = synth.text_objects(answers, predictions, qa_types)
    scorer = Scorer(get_benchmark("jamendo-mt-qa"), refs)
    run = scorer.score_run(preds)
    np.testing.assert_array_equal(run["yes_no_accuracy"].values, [1.0, 0.0, np.nan, np.nan, np.nan])
    np.testing.assert_array_equal(run["short_answer_accuracy"].values, [np.nan, np.nan, 1.0, 0.0, np.nan])
    report = scorer.report([run], n_bootstrap=10)
    assert report.metrics["yes_no_accuracy"] == 0.5
    assert report.metrics["short_answer_accuracy"] == 0.5
    assert report.n_scored["bleu"] == 1
