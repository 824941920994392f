"""LP-MusicCaps's captioning metrics written out from the publisher's calls, independently of ``scoring``.

``lpmc/utils/metrics.py`` (seungheondoh/lp-music-caps @ 12fcb31d) calls Hugging Face ``evaluate`` 0.4.0 on the whole
test list: ``bleu`` (max_order 1..4), ``meteor``, ``rouge`` (``rougeL``) and ``bertscore`` (``lang="en"``, mean F1).
What those metric scripts do is reproduced here from their source: ``evaluate``'s own copy of the mteval-v13a
tokenizer (regular expressions, not sacrebleu), the tensorflow/nmt ``compute_bleu`` it fetches, and NLTK's
``word_tokenize`` + ``single_meteor_score`` as the meteor script calls them for NLTK >= 3.6.5.

NLTK's Punkt English model is not installed on these machines; :func:`write_punkt_model` writes a small one of the
same format (``punkt_tab``), whose abbreviations make sentence splitting matter, for both sides to read.
"""

from __future__ import annotations

import collections
import math
import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

# evaluate's metrics/bleu/tokenizer_13a.py: TokenizerRegexp's rules, then a whitespace split
_13A_RULES = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


def tokenize_13a(line: str) -> list[str]:
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} "
    for pattern, replacement in _13A_RULES:
        line = pattern.sub(replacement, line)
    return line.split()


def _get_ngrams(segment: Sequence[str], max_order: int) -> collections.Counter[tuple[str, ...]]:
    counts: collections.Counter[tuple[str, ...]] = collections.Counter()
    for order in range(1, max_order + 1):
        for i in range(0, len(segment) - order + 1):
            counts[tuple(segment[i : i + order])] += 1
    return counts


def compute_bleu(reference_corpus: list[list[list[str]]], translation_corpus: list[list[str]],
                 max_order: int = 4) -> float:
    """tensorflow/nmt ``compute_bleu(..., smooth=False)[0]``; raises ZeroDivisionError where it does."""
    matches_by_order = [0] * max_order
    possible_matches_by_order = [0] * max_order
    reference_length = 0
    translation_length = 0
    for references, translation in zip(reference_corpus, translation_corpus):
        reference_length += min(len(r) for r in references)
        translation_length += len(translation)
        merged: collections.Counter[tuple[str, ...]] = collections.Counter()
        for reference in references:
            merged |= _get_ngrams(reference, max_order)
        overlap = _get_ngrams(translation, max_order) & merged
        for ngram in overlap:
            matches_by_order[len(ngram) - 1] += overlap[ngram]
        for order in range(1, max_order + 1):
            possible = len(translation) - order + 1
            if possible > 0:
                possible_matches_by_order[order - 1] += possible
    precisions = [0.0] * max_order
    for i in range(max_order):
        if possible_matches_by_order[i] > 0:
            precisions[i] = float(matches_by_order[i]) / possible_matches_by_order[i]
    geo_mean = math.exp(sum((1.0 / max_order) * math.log(p) for p in precisions)) if min(precisions) > 0 else 0.0
    ratio = float(translation_length) / reference_length
    bp = 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio)
    return geo_mean * bp


def evaluate_bleu(predictions: list[str], references: list[str], max_order: int) -> float:
    """``evaluate.load("bleu").compute(predictions, references, max_order=n)["bleu"]`` (one reference each)."""
    return compute_bleu([[tokenize_13a(r)] for r in references], [tokenize_13a(p) for p in predictions], max_order)


def evaluate_meteor(predictions: list[str], references: list[str], wordnet: Any) -> float:
    """``evaluate.load("meteor")`` with NLTK >= 3.6.5: the mean of ``single_meteor_score`` on word_tokenize tokens."""
    from nltk import word_tokenize
    from nltk.translate.meteor_score import single_meteor_score

    return float(np.mean([single_meteor_score(word_tokenize(r), word_tokenize(p), wordnet=wordnet,
                                              alpha=0.9, beta=3, gamma=0.5)
                          for r, p in zip(references, predictions)]))


def evaluate_rouge_l(predictions: list[str], references: list[str]) -> float:
    """``evaluate.load("rouge")``'s rougeL with ``use_aggregator=False`` (default tokenizer, no stemming), averaged."""
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    return float(np.mean([scorer.score(r, p)["rougeL"].fmeasure for r, p in zip(references, predictions)]))


PUNKT_ABBREVIATIONS = ("etc", "e.g", "i.e", "approx", "vs", "feat", "st")
PUNKT_STARTERS = ("the", "this", "it", "a", "there")


def write_punkt_model(root: Path) -> Path:
    """A small Punkt English model (``<root>/tokenizers/punkt_tab/english``) in NLTK's ``punkt_tab`` format."""
    model = root / "tokenizers" / "punkt_tab" / "english"
    model.mkdir(parents=True, exist_ok=True)
    (model / "abbrev_types.txt").write_text("".join(f"{a}\n" for a in PUNKT_ABBREVIATIONS), encoding="utf-8")
    (model / "sent_starters.txt").write_text("".join(f"{s}\n" for s in PUNKT_STARTERS), encoding="utf-8")
    (model / "collocations.tab").write_text("st\tjames\n", encoding="utf-8")
    (model / "ortho_context.tab").write_text("the\t46\nguitar\t32\ndrums\t32\n", encoding="utf-8")
    return root


def messy_captions(references: list[str], seed: int = 11) -> list[str]:
    """Model-like captions: other clips' captions, mangled as real captioners' outputs are (empty, emoji, one
    word repeated, markdown with HTML entities, run-on, upper case), and now and then the clip's own caption."""
    rng = random.Random(seed)
    outputs = []
    for i, own in enumerate(references):
        text = rng.choice(references)
        kind = i % 9
        if kind == 1:
            text = text.lower().replace(".", " .")
        elif kind == 2:
            text = rng.choice(["", "   ", "...", "!!!", "\U0001f3b8\U0001f3b6"])
        elif kind == 3:
            text = " ".join([text.split()[0]] * rng.randint(3, 40))
        elif kind == 4:
            text = f"**Caption:** {text}\n\n- Genre: rock &amp; roll\n- Tempo: approx. 120 bpm"
        elif kind == 5:
            text = text + " " + " ".join(rng.choice(references) for _ in range(6))
        elif kind == 6:
            text = text.upper()
        elif kind == 7:
            text = own
        outputs.append(text)
    return outputs
