"""Real model outputs and real reference files, scored as the publishers' evaluators score them.

Empty, whitespace-only and null predictions, 30,000-character answers, oddities of reference
files (empty gold answers, unknown qa_types, BOM, CRLF, U+2028 inside strings): each is scored or
left out exactly as the publisher's code does, reported as a warning with file, line and field.
Expected values come from the libraries the publishers call (NLTK, rouge-score, sacrebleu) and
from an independent re-implementation of Jamendo-MT-QA's evaluate.py (tests/helpers/evaluate_py.py).
"""

from __future__ import annotations

import json
import math
import warnings

import pytest
import sacrebleu
from nltk.translate.bleu_score import sentence_bleu
from rouge_score import rouge_scorer

from scoring import ProblemLog, Scorer, get_benchmark, read_predictions, read_references
from scoring.cli import main
from scoring.publishers.importers import import_jamendo, jamendo_rows, m2ugen_prediction_rows, musicqa_rows
from tests.helpers.evaluate_py import evaluate_py, evaluate_py_records, write_records

REF = "The track has a warm bass line and a bright synth lead."


def _run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# --- each publisher's rule on an empty answer ------------------------------------------------


def test_jamendo_rules_count_empty_answers_wrong(synth) -> None:
    answers = ["No", "No", "guitar_FutureofTears", "guitar_FutureofTears", "Yes"]
    predictions = ["", " ", "", "\n", "yes"]
    refs, preds = synth.text_objects(answers, predictions, ["yes_no", "yes_no", "short_answer", "short_answer",
                                                            "yes_no"])
    scorer = Scorer(get_benchmark("jamendo-mt-qa"), refs)
    run = scorer.score_run(preds)
    # evaluate.py: "" and " " give no yes/no label (wrong); an empty side of the substring test is wrong
    assert run["yes_no_accuracy"].values[[0, 1, 4]].tolist() == [0.0, 0.0, 1.0]
    assert run["short_answer_accuracy"].values[[2, 3]].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("hypothesis", [" ", "", "  \n", "."])
def test_m2ugen_evaluator_nltk_bleu_on_blank_answers(synth, hypothesis) -> None:
    refs, preds = synth.text_objects([REF], [hypothesis])
    scorer = Scorer(get_benchmark("musicqa"), refs, context=None)
    run = {k: v for k, v in scorer.score_run(preds).items() if not k.startswith("bertscore")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NLTK warns on zero n-gram overlaps, as in the evaluator's run
        expected = {
            "bleu1": sentence_bleu([REF], hypothesis, weights=(1, 0, 0, 0)),
            "bleu": sentence_bleu([REF], hypothesis),
            "bleu4": sentence_bleu([REF], hypothesis, weights=(0, 0, 0, 1)),
        }
    for key, value in expected.items():
        assert run[key].values[0] == pytest.approx(value, rel=1e-12, abs=0), key
    if hypothesis == " ":
        # the space matches a space of the reference (precision 1); brevity penalty exp(1 - r/c), c = 1
        assert run["bleu1"].values[0] == pytest.approx(math.exp(1 - len(REF)), rel=1e-12)
    direct = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True).score(REF, hypothesis)["rougeL"].recall
    assert run["rougeL_recall"].values[0] == direct


def test_rouge_and_sacrebleu_on_empty_hypotheses(synth) -> None:
    golds = [REF, "Both tracks are calm.", "The second is faster than the first.", "Drums and piano."]
    hyps = ["", "   ", "The second is faster.", "\t"]
    refs, preds = synth.text_objects(golds, hyps, ["sentence"] * 4)
    scorer = Scorer(get_benchmark("jamendo-mt-qa"), refs)
    report = scorer.report([scorer.score_run(preds)], n_bootstrap=10)
    assert report.metrics["bleu"] == sacrebleu.corpus_bleu(hyps, [golds]).score
    direct = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    for key in ("rouge1", "rouge2", "rougeL"):
        expected = sum(direct.score(g, h)[key].fmeasure for g, h in zip(golds, hyps)) / 4 * 100
        assert report.metrics[key] == pytest.approx(expected, rel=1e-12), key


# --- a real-shaped Jamendo-MT-QA run in evaluate.py's record format -----------------------------


@pytest.fixture
def records_file(tmp_path):
    records = evaluate_py_records()
    return records, write_records(records, tmp_path / "run_benchmark_output.jsonl")


def test_evaluate_py_file_scores_like_evaluate_py(capsys, records_file) -> None:
    records, path = records_file
    code, out, err = _run_cli(capsys, "score", "--benchmark", "jamendo-mt-qa", "--references", path,
                              "--references-format", "jamendo", "--predictions", path,
                              "--predictions-format", "jamendo", "--no-bertscore", "--bootstrap", "10")
    assert code == 0, err
    report = json.loads(out)
    expected = evaluate_py(records)
    for key, value in expected.items():
        assert math.isclose(report["metrics"][key], value, rel_tol=0, abs_tol=1e-9), (key, report["metrics"][key])
    assert report["n_items"] == len(records) - 1  # the unknown qa_type is left out
    warnings_ = report["warnings"]
    assert warnings_["counts"] == {"empty_prediction": 2, "blank_prediction": 3, "null_prediction": 1,
                                   "empty_gold_answer": 2, "unknown_qa_type": 1}
    assert "2 empty prediction(s), scored as the publisher scores them" in warnings_["summary"]
    first = {(w["kind"], w["line"], w["field"]) for w in warnings_["first"]}
    assert ("unknown_qa_type", len(records), "qa_type") in first  # the maintainer's own line numbers
    assert ("empty_gold_answer", 10, "answer") in first and ("null_prediction", 130, "prediction") in first
    assert report["missing_as_empty"] == 0


def test_validate_exits_zero_with_only_warnings(capsys, records_file) -> None:
    _, path = records_file
    code, out, err = _run_cli(capsys, "validate", "--benchmark", "jamendo-mt-qa", "--references", path,
                              "--references-format", "jamendo", "--predictions", path,
                              "--predictions-format", "jamendo")
    assert code == 0, out + err
    lines = out.splitlines()
    assert "run_benchmark_output.jsonl (converted):6: prediction: warning: prediction is empty; " \
           "scored as the publisher scores an empty answer" in lines
    assert "9 warning(s): " in err and "valid: 180 items" in err


def test_missing_items_error_or_scored_as_empty_when_asked(capsys, tmp_path, records_file) -> None:
    records, path = records_file
    references, predictions = import_jamendo(path)
    refs = tmp_path / "refs.jsonl"
    refs.write_text("".join(json.dumps(r) + "\n" for r in references))
    partial = tmp_path / "partial.jsonl"
    kept = [p for i, p in enumerate(predictions) if i % 10 != 7]  # 18 items without a prediction
    partial.write_text("".join(json.dumps(p) + "\n" for p in kept))
    args = ("--benchmark", "jamendo-mt-qa", "--references", refs, "--predictions", partial)
    code, _, err = _run_cli(capsys, "score", *args, "--no-bertscore", "--bootstrap", "10")
    assert code == 1
    missing_ids = ", ".join(f'"{predictions[i]["id"]}"' for i in range(7, 107, 10))
    assert f"partial.jsonl:0: id: 18 of 180 items have no prediction in partial.jsonl: {missing_ids} " \
           "(first 10 listed); every item needs a prediction" in err
    code, out, err = _run_cli(capsys, "score", *args, "--no-bertscore", "--bootstrap", "10", "--missing-as-empty")
    assert code == 0, err
    report = json.loads(out)
    assert report["missing_as_empty"] == 18 and report["warnings"]["counts"]["missing_as_empty"] == 18
    as_empty = [{**r, "prediction": "" if i % 10 == 7 else r["prediction"]} for i, r in enumerate(records[:-1])]
    for key, value in evaluate_py(as_empty).items():
        assert math.isclose(report["metrics"][key], value, rel_tol=0, abs_tol=1e-9), key


# --- reference files and importers ---------------------------------------------------------------


def test_jamendo_importer_reads_json_lines_by_newline_only(tmp_path) -> None:
    record = {"pair_id": "p", "audio1": "a", "audio2": "b", "qa_type": "sentence", "question": "Q?",
              "gold_answer": "x\u2028y\u2029z\u0085w", "prediction": "one\u2028two"}
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + (json.dumps(record, ensure_ascii=False) + "\r\n").encode() * 2)
    references, predictions = import_jamendo(path)
    assert [r["answer"] for r in references] == ["x\u2028y\u2029z\u0085w"] * 2
    assert [p["prediction"] for p in predictions] == ["one\u2028two"] * 2
    assert [r["id"] for r in references] == ["p::sentence", "p::sentence::2"]


def test_importers_report_bad_records_with_lines_never_a_traceback(tmp_path) -> None:
    path = tmp_path / "bad.jsonl"
    good = json.dumps({"pair_id": "p", "qa_type": "yes_no", "gold_answer": "Yes", "prediction": "no"})
    path.write_text(f'{good}\n{{"pair_id": \n[1]\n{good[:-1]}, "prediction": "a\\u0000b"}}\n')
    log = ProblemLog()
    jamendo_rows(path, log)
    assert [(p.kind, p.line, p.field) for p in log.problems] == [("not_json", 2, None), ("not_object", 3, None)]
    assert [(w.kind, w.line, w.field) for w in log.warnings] == [("nul_removed", 4, "prediction")]  # scored
    musicqa = tmp_path / "EvalMusicQA.json"
    musicqa.write_bytes(b"\xef\xbb\xbf" + json.dumps([{"audio_name": "a.wav", "conversation": [
        {"value": "Q?"}, {"value": "A"}]}, {"audio_name": "b.wav"}]).encode())
    log = ProblemLog()
    rows = musicqa_rows(musicqa, log)
    assert rows == [(1, {"id": "a.wav::Q?", "audio": "a.wav", "question": "Q?", "answer": "A"})]
    assert [(p.kind, p.line) for p in log.problems] == [("missing_field", 2)]
    results = tmp_path / "results.json"
    results.write_text('{"a.wav": {"Q?": null, "Q2?": "\\ud800"}}')
    log = ProblemLog()
    assert m2ugen_prediction_rows(results, log) == [(1, {"id": "a.wav::Q?", "prediction": None})]
    assert [(p.kind, p.line, p.field) for p in log.problems] == [("unstorable_text", 2, "prediction")]


@pytest.mark.parametrize(("escaped", "what"), [("\\ud800", "lone surrogate (U+D800)"),
                                               ("\\udfff tail", "lone surrogate (U+DFFF)")])
def test_nul_and_lone_surrogates_are_rejected_with_line_and_field(tmp_path, escaped, what) -> None:
    spec = get_benchmark("musicqa")
    refs = tmp_path / "refs.jsonl"
    refs.write_text("".join(json.dumps({"id": f"g{i}", "answer": "a b"}) + "\n" for i in range(3)))
    log = ProblemLog()
    references = read_references(spec, refs, log)
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"id": "g0", "prediction": "ok"}\n{"id": "g1", "prediction": "x' + escaped + 'y"}\n'
                     '{"id": "g2", "prediction": "ok", "meta": {"k": ["' + escaped + '"]}}\n')
    read_predictions(spec, references, preds, log)
    problems = [(p.kind, p.line, p.field) for p in log.problems if p.kind == "unstorable_text"]
    assert problems == [("unstorable_text", 2, "prediction"), ("unstorable_text", 3, "meta.k[0]")]
    assert what in log.problems[0].message
    pairs = ('{"id": "d0", "scores": {"c\\u0000": 1}}\n', "scores")
    ranking = tmp_path / "ranking.jsonl"
    ranking.write_text(pairs[0])
    log = ProblemLog()
    dial_refs = tmp_path / "d.jsonl"
    dial_refs.write_text(json.dumps({"id": "d0", "candidates": ["c0", "c1"], "gold_ranking": ["c1", "c0"]}) + "\n")
    read_predictions(get_benchmark("dialbgm"), read_references(get_benchmark("dialbgm"), dial_refs, log), ranking, log)
    assert [(p.kind, p.line, p.field) for p in log.problems if p.kind == "unstorable_text"] == [
        ("unstorable_text", 1, pairs[1])]


def test_references_with_empty_gold_and_unknown_qa_type_follow_evaluate_py(tmp_path) -> None:
    spec = get_benchmark("jamendo-mt-qa")
    path = tmp_path / "refs.jsonl"
    base = {"pair_id": "p", "audio1": "a", "audio2": "b", "question": "Q?"}
    rows = [{**base, "id": "1", "qa_type": "yes_no", "answer": ""},
            {**base, "id": "2", "qa_type": "rating", "answer": "5"},
            {**base, "id": "3", "qa_type": "yes_no", "answer": "Perhaps"},
            {**base, "id": "4", "qa_type": "sentence", "answer": "Calm."}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    log = ProblemLog()
    references = read_references(spec, path, log)
    assert not log and [r.id for r in references.references] == ["1", "3", "4"]
    assert [(w.kind, w.line, w.field) for w in log.warnings] == [
        ("empty_gold_answer", 1, "answer"), ("unknown_qa_type", 2, "qa_type"), ("unlabelled_gold_answer", 3, "answer")]
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps({"id": i, "prediction": p}) + "\n"
                                   for i, p in (("1", "yes"), ("3", "no"), ("4", "Calm."))))
    run = read_predictions(spec, references, predictions, log)
    scorer = Scorer(spec, references.references)
    values = scorer.score_run([p for p in run if p is not None])
    assert values["yes_no_accuracy"].values[:2].tolist() == [0.0, 0.0]  # always wrong, still counted
