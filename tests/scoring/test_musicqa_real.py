"""MusicQA on the real EvalMusicQA.json (5,040 items), scored as the M2UGen evaluator does (METEOR where
WordNet is installed: without it the column is listed as not computed)."""

from __future__ import annotations

import random
import warnings

import pytest
from nltk.tokenize import wordpunct_tokenize
from nltk.translate.bleu_score import sentence_bleu
from nltk.translate.meteor_score import meteor_score
from rouge_score import rouge_scorer

from scoring import ScoringOptions, load_predictions, load_references, score_files
from scoring.api import build_scorer, score_runs
from scoring.metrics.meteor import load_wordnet, wordnet_dir, wordnet_missing
from scoring.publishers.importers import import_musicqa
from scoring.specs import get_benchmark

NO_BERT = ScoringOptions(bertscore=False, n_bootstrap=20)


@pytest.fixture
def musicqa_refs(tmp_path, musicqa_json, jsonl):
    records = import_musicqa(musicqa_json)
    return records, jsonl.write(tmp_path / "musicqa_refs.jsonl", records)


def test_import_gives_every_item_a_unique_id(musicqa_refs) -> None:
    records, _ = musicqa_refs
    assert len(records) == 5040
    assert len({r["id"] for r in records}) == 5040
    assert len({r["audio"] for r in records}) == 560
    assert records[0]["id"] == "012542.wav::Describe the audio"


@pytest.mark.slow
def test_references_as_predictions_score_exactly_one(tmp_path, musicqa_refs, jsonl) -> None:
    records, refs_path = musicqa_refs
    preds = jsonl.write(tmp_path / "perfect.jsonl", [{"id": r["id"], "prediction": r["answer"]} for r in records])
    report = score_files("musicqa", refs_path, [preds], NO_BERT)
    assert report.n_items == 5040
    for key in ("bleu", "bleu1", "bleu4", "rougeL_recall"):
        assert report.metrics[key] == 1.0, key
    assert report.metrics.keys() | report.not_computed.keys() == {
        "bleu", "bleu1", "bleu4", "meteor", "rougeL_recall", "bertscore_recall"}
    assert report.not_computed["bertscore_recall"] == "BERTScore disabled"
    assert ("meteor" in report.metrics) == (wordnet_missing(wordnet_dir()) is None)


@pytest.mark.slow
def test_shuffled_answers_equal_nltk_and_rouge_score_directly(tmp_path, musicqa_refs, jsonl) -> None:
    records, refs_path = musicqa_refs
    answers = [r["answer"] for r in records]
    shuffled = answers[:]
    random.Random(2024).shuffle(shuffled)
    preds = jsonl.write(tmp_path / "shuffled.jsonl",
                        [{"id": r["id"], "prediction": s} for r, s in zip(records, shuffled)])

    spec = get_benchmark("musicqa")
    reference_set = load_references(spec, refs_path)
    run = load_predictions(spec, reference_set, preds)
    scorer = build_scorer(spec, reference_set.references, NO_BERT)
    report, (run_scores,) = score_runs(scorer, [run], NO_BERT)

    # the M2UGen evaluator: sentence_bleu([ref], cand) on raw strings, RougeScorer(...).score(ref, cand)
    weights = {"bleu1": (1, 0, 0, 0), "bleu": (0.25, 0.25, 0.25, 0.25), "bleu4": (0, 0, 0, 1)}
    rouge = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    expected: dict[str, list[float]] = {k: [] for k in (*weights, "rougeL_recall")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for reference, candidate in zip(answers, shuffled):
            values = sentence_bleu([reference], candidate, weights=list(weights.values()))
            for key, value in zip(weights, values):
                expected[key].append(value)
            expected["rougeL_recall"].append(rouge.score(reference, candidate)["rougeL"].recall)
    if wordnet_missing(wordnet_dir()) is None:  # the evaluator's meteor_scorer([ref_split], cand_split)
        reader = load_wordnet(wordnet_dir()).reader
        expected["meteor"] = [meteor_score([wordpunct_tokenize(reference)], wordpunct_tokenize(candidate),
                                           wordnet=reader) for reference, candidate in zip(answers, shuffled)]
    for key, values in expected.items():
        mean = sum(values) / len(values)
        assert report.metrics[key] == pytest.approx(mean, abs=1e-9), key
        # and item by item
        assert run_scores[key].values.tolist() == pytest.approx(values, abs=1e-12), key
    assert 0.0 < report.metrics["bleu4"] < report.metrics["bleu1"] < 1.0
