"""ROUGE through our family (memoised stemmer) against rouge-score called directly."""

from __future__ import annotations

import random
import re

import pytest
from rouge_score import rouge_scorer

from scoring.metrics.base import ScoringContext
from scoring.metrics.rouge import OUTPUTS, ROUGE_TYPES, STATS, Rouge

# words with suffixes the Porter stemmer changes, so memoisation matters
STEMMY = ["playing", "played", "plays", "guitars", "guitar", "drums", "drumming", "melodies", "melodic",
          "energetic", "energy", "the", "a", "and", "with", "slowly", "slow", "tempo", "tempos", "Bass", "BASS!"]


def family(use_stemmer: bool = True) -> Rouge:
    return Rouge({"use_stemmer": use_stemmer}, ScoringContext())


def test_rouge_family_equals_rouge_score_called_directly(synth) -> None:
    rng = random.Random(2)
    answers = [" ".join(rng.choices(STEMMY, k=rng.randint(1, 25))) for _ in range(200)]
    hyps = [" ".join(rng.choices(STEMMY, k=rng.randint(1, 25))) for _ in range(200)]
    refs, preds = synth.text_objects(answers, hyps)
    result = family().score(refs, preds, OUTPUTS)
    direct = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=True)
    for i, (answer, hyp) in enumerate(zip(answers, hyps)):
        expected = direct.score(answer, hyp)  # reference first, as the publishers call it
        for output in OUTPUTS:
            rouge_type, stat = output.rsplit("_", 1)
            assert result[output].values[i] == getattr(expected[rouge_type], STATS[stat]), (i, output)


def test_rouge_family_multi_reference_equals_score_multi(synth) -> None:
    rng = random.Random(3)
    answers = [[" ".join(rng.choices(STEMMY, k=rng.randint(1, 12))) for _ in range(3)] for _ in range(60)]
    hyps = [" ".join(rng.choices(STEMMY, k=rng.randint(1, 12))) for _ in range(60)]
    refs, preds = synth.text_objects(answers, hyps)
    result = family().score(refs, preds, ["rouge1_f1", "rougeL_recall"])
    direct = rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=True)
    for i, (answer, hyp) in enumerate(zip(answers, hyps)):
        expected = direct.score_multi(answer, hyp)
        assert result["rouge1_f1"].values[i] == expected["rouge1"].fmeasure
        assert result["rougeL_recall"].values[i] == expected["rougeL"].recall


def test_rouge_without_stemmer_equals_rouge_score_without_stemmer(synth) -> None:
    refs, preds = synth.text_objects(["the drums playing slowly"], ["drum played slow"])
    result = family(use_stemmer=False).score(refs, preds, ["rouge1_f1"])
    assert result["rouge1_f1"].values[0] == 0.0
    stemmed = family(use_stemmer=True).score(refs, preds, ["rouge1_f1"])
    expected = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True).score(
        "the drums playing slowly", "drum played slow")["rouge1"].fmeasure
    assert stemmed["rouge1_f1"].values[0] == expected > 0


def lcs_length(a: list[str], b: list[str]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a, 1):
        for j, y in enumerate(b, 1):
            table[i][j] = table[i - 1][j - 1] + 1 if x == y else max(table[i - 1][j], table[i][j - 1])
    return table[-1][-1]


def simple_tokens(text: str) -> list[str]:
    # rouge-score's tokenizer: lowercase, non-alphanumerics to spaces (no stemming needed for <=3 letters)
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).split()


@pytest.mark.parametrize(
    ("reference", "prediction"),
    [
        ("the cat sat on the mat", "the cat on mat"),
        ("A big red dog ran", "red dog ran big"),
        ("one two six ten", "ten six two one"),
        ("low hum, odd mix!", "odd low hum mix"),
        ("abc def", "xyz uvw"),
    ],
)
def test_rouge_l_equals_an_independent_lcs(reference, prediction, synth) -> None:
    ref_tokens, pred_tokens = simple_tokens(reference), simple_tokens(prediction)
    lcs = lcs_length(ref_tokens, pred_tokens)
    precision, recall = lcs / len(pred_tokens), lcs / len(ref_tokens)
    f1 = 0.0 if lcs == 0 else 2 * precision * recall / (precision + recall)
    refs, preds = synth.text_objects([reference], [prediction])
    result = family().score(refs, preds, ["rougeL_precision", "rougeL_recall", "rougeL_f1"])
    assert result["rougeL_precision"].values[0] == pytest.approx(precision, abs=1e-15)
    assert result["rougeL_recall"].values[0] == pytest.approx(recall, abs=1e-15)
    assert result["rougeL_f1"].values[0] == pytest.approx(f1, abs=1e-15)


def test_hand_value_rouge_l() -> None:
    # LCS("the cat sat on the mat", "the cat on mat") = 4: P = 4/4, R = 4/6
    assert lcs_length(simple_tokens("the cat sat on the mat"), simple_tokens("the cat on mat")) == 4
