"""CMI-Bench captioning (Song Describer, MusicCaps) as ``music_captioning`` in its evaluate.py scores it.

Per item: NLTK ``sentence_bleu([reference], prediction)`` on the raw strings (character n-grams,
weights 0.25 x 4 and (0, 0, 0, 1), no smoothing); ``meteor_score([wordpunct_tokenize(reference)],
wordpunct_tokenize(prediction))``; rouge-score ROUGE-L recall with stemming; each averaged over
items. The publisher's calls are made here directly, on realistic captions, and compared with the
families the CMI-Bench captioning benchmarks use. METEOR's synonym stage is checked by hand-worked
values that hold only with WordNet.
"""

from __future__ import annotations

import numpy as np
import pytest
from nltk.tokenize import wordpunct_tokenize
from nltk.translate.bleu_score import sentence_bleu
from nltk.translate.meteor_score import meteor_score
from rouge_score import rouge_scorer

from scoring.metrics.base import ScoringContext
from scoring.metrics.bleu import SentenceBleu
from scoring.metrics.meteor import Meteor, load_wordnet, wordnet_dir, wordnet_missing
from scoring.metrics.rouge import Rouge

REFERENCES = [
    "The low quality recording features a pop folk song that consists of passionate female vocal singing over "
    "repetitive flute licks, stuttering hi hats, groovy piano chords, claps and a riser sweep.",
    "Electronic music that has a constant melody throughout with accompanying instruments used to supplement "
    "the melody which can be heard in possibly a casual setting",
    "acoustic guitar solo track with consistent rhythm and repeating progression, suitable for a relaxing "
    "afternoon tea",
    "A rock song with a country vibe, it has male vocals, drums, and acoustic guitar. It is an upbeat song",
    "This is an instrumental jazz piece. The saxophone plays the melody while the double bass and drums keep time.",
]
OUTPUTS = [
    "This is a pop folk song with a female singer, flute melodies, hi-hats and piano chords. Energetic.",
    "**Description:** An electronic track with a steady synth melody and supporting instruments.\n\n- Mood: chill",
    "A solo acoustic guitar piece with a steady rhythm, relaxing and calm, good for tea time.",
    "",
    "The audio features a saxophone, a double bass and drums. The saxophone plays the melody. The saxophone "
    "plays the melody. The saxophone plays the melody. It sounds like jazz. It sounds like jazz.",
]


def texts(synth, outputs: list[str]):
    return synth.text_objects(REFERENCES * 2, outputs + [o.upper() for o in outputs])


def test_character_bleu_equals_nltk_on_raw_strings(synth) -> None:
    refs, preds = texts(synth, OUTPUTS)
    scores = SentenceBleu({"tokenize": "char"}, ScoringContext()).score(refs, preds, ("bleu", "bleu4"))
    for i, (ref, pred) in enumerate(zip(refs, preds)):
        assert abs(scores["bleu"].values[i] - sentence_bleu([ref.answers[0]], pred.text)) < 1e-12
        expected4 = sentence_bleu([ref.answers[0]], pred.text, weights=(0.0, 0.0, 0.0, 1.0))
        assert abs(scores["bleu4"].values[i] - expected4) < 1e-12
    assert 0.05 < float(np.mean(scores["bleu"].values)) < 0.6


def test_rouge_l_recall_with_stemming_equals_rouge_score(synth) -> None:
    refs, preds = texts(synth, OUTPUTS)
    values = Rouge({"use_stemmer": True}, ScoringContext()).score(refs, preds, ("rougeL_recall",))["rougeL_recall"]
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    expected = [scorer.score(r.answers[0], p.text)["rougeL"].recall for r, p in zip(refs, preds)]
    assert abs(float(np.mean(values.values)) - float(np.mean(expected))) < 1e-9
    assert values.values.tolist() == expected


@pytest.fixture(scope="module")
def wordnet():
    reason = wordnet_missing(wordnet_dir())
    if reason:
        pytest.skip(reason)
    return load_wordnet(wordnet_dir())


def test_meteor_family_equals_the_publishers_call(synth, wordnet) -> None:
    refs, preds = texts(synth, OUTPUTS)
    values = Meteor({}, ScoringContext()).score(refs, preds, ("meteor",))["meteor"].values
    expected = [meteor_score([wordpunct_tokenize(r.answers[0])], wordpunct_tokenize(p.text), wordnet=wordnet.reader)
                for r, p in zip(refs, preds)]
    assert abs(float(np.mean(values)) - float(np.mean(expected))) < 1e-9
    assert values.tolist() == expected
    assert values[3] == 0.0 and values[8] == 0.0  # empty answer
    assert values[0] == values[5]  # lower-cased before matching


@pytest.mark.parametrize(("reference", "output", "expected"), [
    # P = R = 1 through the synonym vocalist~singer; 1 chunk of 2 matches: penalty 0.5 * (1/2)^3
    ("female vocalist", "female singer", 1 - 0.5 * 0.5**3),
    # fast~quick: 3 matches in 1 chunk
    ("a fast song", "a quick song", 1 - 0.5 * (1 / 3) ** 3),
    # NLTK looks synonyms up for the Porter stems left after the stem stage: "melodi" has none, so
    # tune~melody (synonyms in WordNet) does not match; 2 of 3 in 1 chunk, P = R = 2/3
    ("an upbeat tune", "an upbeat melody", (1 - 0.5 * (1 / 2) ** 3) * (2 / 3)),
    # stems: "drums"/"drum" and "playing"/"plays" match by the Porter stemmer
    ("drums playing", "drum plays", 1 - 0.5 * 0.5**3),
    ("Guitar, bass.", "guitar , bass .", 1 - 0.5 * (1 / 4) ** 3),  # wordpunct splits the punctuation
])
def test_meteor_hand_worked_values(synth, wordnet, reference: str, output: str, expected: float) -> None:
    refs, preds = synth.text_objects([reference], [output])
    assert Meteor({}, ScoringContext()).score(refs, preds, ("meteor",))["meteor"].values[0] == pytest.approx(
        expected, abs=1e-12)


def test_meteor_reports_wordnet_absent(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("SCORING_WORDNET_DIR", str(tmp_path))
    reason = Meteor({}, ScoringContext()).unavailable_reason()
    assert reason is not None and "wordnet-base" in reason and str(tmp_path) in reason
