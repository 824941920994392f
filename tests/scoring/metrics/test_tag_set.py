"""The site's tag-set micro-F1 (``tag_set_f1``) against a brute-force oracle written in this test.

The oracle shares no code with ``scoring``: it cuts a response at every ``,``, ``;``, ``/`` and line break by
walking its characters, keeps the letters and digits of each piece (``str.isalnum``) in lower case, and then, for
every (item, vocabulary tag) pair, decides "predicted" (some piece equals the tag so reduced) and "true" (the
tag is one of the item's comma-separated reference tags), counting TP, FP and FN over all pairs. Values are
compared to 1e-9 (they are ratios of integers). On the released files each reference given as its own response
scores 1.0 with TP equal to the number of reference tags (checked against the README's counts).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest

from scoring.engine import Scorer
from scoring.metrics.base import ScoringContext
from scoring.metrics.cmi_tag_vocabularies import NO_TAG, VOCABULARIES
from scoring.metrics.tag_set import TagSetF1
from scoring.specs import get_benchmark
from scoring.task_types import Prediction, Reference
from tests.helpers.shared import shared_file

TOLERANCE = 1e-9
MTT = VOCABULARIES["MTT"]

# (reference, response): messy model outputs against MagnaTagATune references
ITEMS = [
    ("rock, pop, guitar", "Rock, Pop; electronic / ambient"),
    ("female vocal, pop", "FEMALE VOCAL"),
    ("female vocal, pop", "female, vocal"),  # two tags of their own, not "female vocal"
    ("guitar, classical", "acoustic-guitar"),  # not in the MTT vocabulary: ignored
    ("no vocals, piano", "No-Vocals\npiano\n\nPIANO"),  # duplicated tag: once
    ("techno, beat, electronic", ""),
    ("", "rock, metal"),  # a clip without tags: every predicted tag is a false positive
    (NO_TAG, "classical"),  # the importer's form of that clip
    ("", ""),
    ("harpsichord", "The music features a harpsichord, and strings."),  # a sentence is not a tag
    ("new age, ambient", "new-age; ambient; new age; Ambient."),
    ("male vocal, male", "male vocal / male voice / man"),
    ("sitar, indian", "Indian\r\nsitar"),  # CR LF: the CR is not alphanumeric
    ("drums, beats", "drum and bass, beat"),
    ("slow, soft, quiet", "  slow ,, soft ;; loud //"),
]


def oracle_pieces(response: str) -> list[str]:
    pieces: list[str] = []
    current: list[str] = []
    for ch in response:
        if ch in ",;/\n":
            pieces.append("".join(current))
            current = []
        else:
            current.append(ch)
    pieces.append("".join(current))
    return ["".join(c for c in piece.lower() if c.isalnum()) for piece in pieces]


def oracle_counts(pairs: Sequence[tuple[str, str]], vocabulary: Sequence[str]) -> tuple[int, int, int]:
    tp = fp = fn = 0
    for reference, response in pairs:
        pieces = oracle_pieces(response)
        truth = [] if reference in ("", NO_TAG) else [t.strip() for t in reference.split(",")]
        for tag in vocabulary:
            squeezed = "".join(c for c in tag.lower() if c.isalnum())
            predicted = any(piece == squeezed for piece in pieces)
            true = tag in truth
            tp += predicted and true
            fp += predicted and not true
            fn += true and not predicted
    return tp, fp, fn


def oracle_f1(pairs: Sequence[tuple[str, str]], vocabulary: Sequence[str]) -> tuple[float, float, float]:
    tp, fp, fn = oracle_counts(pairs, vocabulary)
    return (2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0, tp / (tp + fp) if tp + fp else 0.0,
            tp / (tp + fn) if tp + fn else 0.0)


def objects(pairs: Sequence[tuple[str, str]]) -> tuple[list[Reference], list[Prediction]]:
    references = [Reference(id=f"i{n}", line=n + 1, public={}, answers=(ref,)) for n, (ref, _) in enumerate(pairs)]
    predictions = [Prediction(id=f"i{n}", line=n + 1, text=resp) for n, (_, resp) in enumerate(pairs)]
    return references, predictions


def family(vocabulary: str = "MTT") -> TagSetF1:
    return TagSetF1({"vocabulary": vocabulary}, ScoringContext())


def test_messy_responses_equal_the_brute_force_oracle() -> None:
    references, predictions = objects(ITEMS)
    fam = family()
    scores = fam.score(references, predictions, ["micro_f1", "micro_precision", "micro_recall"])
    f1, precision, recall = oracle_f1(ITEMS, MTT)
    ones = np.ones((1, len(ITEMS)))
    assert fam.aggregate("micro_f1", scores["micro_f1"], ones)[0] == pytest.approx(f1, abs=TOLERANCE)
    assert fam.aggregate("micro_precision", scores["micro_precision"], ones)[0] == pytest.approx(precision,
                                                                                               abs=TOLERANCE)
    assert fam.aggregate("micro_recall", scores["micro_recall"], ones)[0] == pytest.approx(recall, abs=TOLERANCE)
    for n, pair in enumerate(ITEMS):  # each item's own F1 (NaN where it has no tag and reads none)
        tp, fp, fn = oracle_counts([pair], MTT)
        expected = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None
        value = scores["micro_f1"].values[n]
        assert (np.isnan(value) if expected is None else value == pytest.approx(expected, abs=TOLERANCE)), pair


def test_hand_counted_items() -> None:
    """A few items counted by hand, so that the oracle itself is checked."""
    assert oracle_counts([ITEMS[0]], MTT) == (2, 2, 1)  # rock, pop right; electronic, ambient extra; guitar missed
    assert oracle_counts([ITEMS[1]], MTT) == (1, 0, 1)
    assert oracle_counts([ITEMS[2]], MTT) == (0, 2, 2)  # "female" and "vocal" are tags of their own
    assert oracle_counts([ITEMS[3]], MTT) == (0, 0, 2)
    assert oracle_counts([ITEMS[6]], MTT) == oracle_counts([(NO_TAG, "rock, metal")], MTT) == (0, 2, 0)
    references, predictions = objects(ITEMS)
    scores = family().score(references, predictions, ["micro_f1"])
    assert scores["micro_f1"].stats is not None
    assert scores["micro_f1"].stats[:4].tolist() == [[2, 2, 1], [1, 0, 1], [0, 2, 2], [0, 0, 2]]
    assert scores["out_of_vocabulary"].values[:4].tolist() == [0, 0, 0, 1]
    assert scores["out_of_vocabulary"].values[9] == 2  # the two halves of the sentence


def test_out_of_vocabulary_and_no_tag_diagnostics_match_the_oracle() -> None:
    references, predictions = objects(ITEMS)
    scores = family().score(references, predictions, ["micro_f1"])
    squeezed = {"".join(c for c in t.lower() if c.isalnum()) for t in MTT}
    for n, (_, response) in enumerate(ITEMS):
        pieces = [p for p in oracle_pieces(response) if p]
        assert scores["out_of_vocabulary"].values[n] == sum(p not in squeezed for p in pieces), response
        assert scores["no_tag"].values[n] == float(not any(p in squeezed for p in pieces)), response


def test_bootstrap_weights_equal_the_resampled_list() -> None:
    references, predictions = objects(ITEMS)
    fam = family()
    scores = fam.score(references, predictions, ["micro_f1"])
    rng = np.random.default_rng(5)
    weights = rng.multinomial(len(ITEMS), np.full(len(ITEMS), 1 / len(ITEMS)), size=30).astype(float)
    for name, at in (("micro_f1", 0), ("micro_precision", 1), ("micro_recall", 2)):
        values = fam.aggregate(name, scores["micro_f1"], weights)
        for row, value in zip(weights, values):
            picked = [pair for pair, count in zip(ITEMS, row.astype(int)) for _ in range(count)]
            assert value == pytest.approx(oracle_f1(picked, MTT)[at], abs=TOLERANCE)


def test_engine_reports_the_oracle_values_and_its_own_signature() -> None:
    references, predictions = objects(ITEMS)
    scorer = Scorer(get_benchmark("cmi-mtt"), references, context=ScoringContext())  # BERTScore off
    report = scorer.report([scorer.score_run(predictions)], n_bootstrap=50)
    f1, precision, recall = oracle_f1(ITEMS, MTT)
    assert report.metrics["micro_f1"] == pytest.approx(f1, abs=TOLERANCE)
    assert report.metrics["micro_precision"] == pytest.approx(precision, abs=TOLERANCE)
    assert report.metrics["micro_recall"] == pytest.approx(recall, abs=TOLERANCE)
    assert set(report.not_computed) == {"bertscore_roc_auc", "bertscore_pr_auc"}
    assert "impl:site tag-set micro-F1|vocabulary:MTT:50|" in report.signatures["micro_f1"]
    assert "empty_reference:kept" in report.signatures["micro_f1"]


def test_an_unknown_vocabulary_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown vocabulary 'MTG'"):
        family("MTG")


TAG_FILES = {"MTG_genre": ("CMI_MTG_genre_test.jsonl", 27658), "MTG_instrument": ("CMI_MTG_instrument_test.jsonl",
             12468), "MTG_emotion": ("CMI_MTG_emotion_test.jsonl", 7564),
             "MTG_top50tags": ("CMI_MTG_top50tags_test.jsonl", 34878), "MTT": ("CMI_MTT_test.jsonl", 14149)}


@pytest.mark.parametrize("vocabulary", list(TAG_FILES))
def test_each_released_reference_as_its_own_response_scores_one(vocabulary: str) -> None:
    """No two tags of a vocabulary normalise alike, so nothing merges: TP = the README's count of reference tags."""
    name, memberships = TAG_FILES[vocabulary]
    outputs = [json.loads(line)["output"] for line in shared_file("data", "cmi-bench-tags", name).open()]
    pairs = [(output, output) for output in outputs]
    references, predictions = objects(pairs)
    fam = family(vocabulary)
    scores = fam.score(references, predictions, ["micro_f1"])
    assert scores["micro_f1"].stats is not None
    assert scores["micro_f1"].stats.sum(axis=0).tolist() == [memberships, 0, 0]
    assert fam.aggregate("micro_f1", scores["micro_f1"], np.ones((1, len(pairs))))[0] == 1.0
    squeezed = ["".join(c for c in t.lower() if c.isalnum()) for t in VOCABULARIES[vocabulary]]
    assert len(set(squeezed)) == len(squeezed)
    assert int(scores["no_tag"].values.sum()) == sum(not o for o in outputs)  # MTT's 997 clips without a tag
    # the same tags written the vocabulary's way without spaces, upper-cased and ';'-separated also score 1
    squashed = [(o, "; ".join(t.replace(" ", "").upper() for t in o.split(", "))) for o in outputs[:500]]
    references, predictions = objects(squashed)
    counts = fam.score(references, predictions, ["micro_f1"])["micro_f1"].stats
    assert counts is not None and counts[:, 1:].sum() == 0
