"""BLEU and METEOR as Hugging Face ``evaluate`` (0.4.0) computes them: LP-MusicCaps's captioning metrics.

* :class:`EvaluateBleu` (``evaluate_bleu``): ``evaluate.load("bleu").compute(predictions, references,
  max_order=n)["bleu"]``, the tensorflow/nmt ``compute_bleu`` on ``Tokenizer13a`` tokens (sacrebleu's 13a
  rules, case-sensitive). Corpus BLEU: clipped n-gram matches (against the union of an item's references'
  counts) and candidate n-gram counts are summed over the corpus; the score is the geometric mean of the
  orders' precisions 1..n with no smoothing (0 when an order has no match), times the brevity penalty
  ``exp(1 - r/c)`` when ``c <= r`` (``c``: prediction tokens, ``r``: each item's *shortest* reference,
  summed). Outputs ``bleu1``..``bleu4`` are cumulative BLEU with max order 1..4. Where ``compute_bleu``
  divides by zero (no prediction token in the whole corpus) the value is 0, its geometric mean's value.
* :class:`EvaluateMeteor` (``evaluate_meteor``): ``evaluate.load("meteor")`` with NLTK >= 3.6.5:
  ``single_meteor_score(word_tokenize(reference), word_tokenize(prediction))`` per item (several references:
  ``meteor_score``, the best), alpha 0.9, beta 3, gamma 0.5, averaged over items. ``word_tokenize`` splits
  sentences with NLTK's Punkt English model (``punkt_tab``) before the Treebank word rules, so a period
  inside a caption is a token of its own exactly where Punkt ends a sentence. That model is read from a
  local NLTK data folder (``$SCORING_PUNKT_DIR``, else NLTK's data path), never downloaded; without it the
  column is not computed. WordNet comes from :mod:`scoring.metrics.meteor`.
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
from collections import Counter
from collections.abc import Collection, Sequence
from functools import cache
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import ItemScores, MetricFamily, Totals, register_family
from scoring.metrics.meteor import load_wordnet, wordnet_dir, wordnet_missing
from scoring.task_types import Prediction, Reference
from scoring.versions import library_version

MAX_ORDER = 4
BLEU_OUTPUTS = tuple(f"bleu{n}" for n in range(1, MAX_ORDER + 1))
STATS_WIDTH = 2 + 2 * MAX_ORDER  # prediction length, shortest reference length, matches 1..4, possible 1..4
PUNKT_MODEL = "tokenizers/punkt_tab/english/"
PUNKT_FILES = ("collocations.tab", "sent_starters.txt", "abbrev_types.txt", "ortho_context.tab")


@cache
def _tokenizer_13a() -> Any:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return Tokenizer13a()


def tokens_13a(text: str) -> list[str]:
    """``Tokenizer13a`` tokens as evaluate's copy returns them (sacrebleu's string, split on whitespace)."""
    return list(_tokenizer_13a()(text).split())


def _ngrams(tokens: Sequence[str]) -> Counter[tuple[str, ...]]:
    counts: Counter[tuple[str, ...]] = Counter()
    for n in range(1, MAX_ORDER + 1):
        counts.update(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    return counts


def bleu_stats(references: Sequence[Sequence[str]], prediction: Sequence[str]) -> list[int]:
    """One item's ``compute_bleu`` counts: ``[len, shortest reference, matches 1..4, possible 1..4]``."""
    merged: Counter[tuple[str, ...]] = Counter()
    for reference in references:
        merged |= _ngrams(reference)
    overlap = _ngrams(prediction) & merged
    matches = [0] * MAX_ORDER
    for gram, count in overlap.items():
        matches[len(gram) - 1] += count
    possible = [max(0, len(prediction) - n + 1) for n in range(1, MAX_ORDER + 1)]
    shortest = min((len(r) for r in references), default=0)
    return [len(prediction), shortest, *matches, *possible]


def bleu_from_stats(stats: Sequence[int], order: int) -> float:
    """``compute_bleu(..., max_order=order, smooth=False)[0]`` from summed counts."""
    length, reference_length = stats[0], stats[1]
    matches, possible = stats[2 : 2 + order], stats[2 + MAX_ORDER : 2 + MAX_ORDER + order]
    precisions = [float(m) / p if p > 0 else 0.0 for m, p in zip(matches, possible)]
    if min(precisions) <= 0:
        return 0.0  # compute_bleu's geometric mean is 0 (it then divides by zero when no token was predicted)
    geo_mean = math.exp(sum((1.0 / order) * math.log(p) for p in precisions))
    ratio = float(length) / reference_length if reference_length else math.inf
    penalty = 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio)
    return geo_mean * penalty


@register_family
class EvaluateBleu(MetricFamily):
    """Corpus BLEU-1..4 of Hugging Face ``evaluate``'s ``bleu`` (tensorflow/nmt, Tokenizer13a, no smoothing).

    An item's own value (breakdowns) is the same formula on its own counts; the column's is on the summed ones.
    """

    name: ClassVar[str] = "evaluate_bleu"
    outputs: ClassVar[tuple[str, ...]] = BLEU_OUTPUTS
    task_types: ClassVar[tuple[str, ...]] = ("generation",)

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        rows = [bleu_stats([tokens_13a(a) for a in ref.answers], tokens_13a(pred.text))
                for ref, pred in zip(references, predictions)]
        stats = np.array(rows, dtype=np.int64).reshape(-1, STATS_WIDTH)
        return {name: ItemScores(np.array([bleu_from_stats(row, _order(name)) for row in rows], dtype=float), stats)
                for name in outputs}

    def aggregate(self, output: str, scores: ItemScores, weights: np.ndarray) -> np.ndarray:
        return self.totals(output, scores).of(weights)

    def totals(self, output: str, scores: ItemScores) -> Totals:
        order = _order(output)
        if scores.stats is None:
            return Totals(np.zeros((len(scores.values), 0)), lambda totals: np.full(totals.shape[0], np.nan))

        def finish(totals: np.ndarray) -> np.ndarray:
            rows = np.rint(totals).astype(np.int64).tolist()  # integer counts under integer weights: exact
            return np.array([bleu_from_stats(row, order) for row in rows], dtype=float)

        defined = ~np.isnan(scores.values)
        return Totals(np.where(defined[:, None], scores.stats, 0).astype(float), finish)

    def signature_fields(self, output: str) -> dict[str, str]:
        return {"impl": "evaluate-bleu(tensorflow-nmt)", "tok": "13a", "case": "sensitive", "max_order":
                str(_order(output)), "smooth": "none", "ref_len": "shortest", "avg": "corpus",
                "sacrebleu": library_version("sacrebleu")}


def _order(output: str) -> int:
    return int(output.removeprefix("bleu"))


# --- METEOR on word_tokenize tokens ---------------------------------------------------------------------------

_PUNKT_LOCK = threading.Lock()
_PUNKT: dict[str, tuple[Any, str]] = {}


def punkt_model() -> Any:
    """The Punkt English model folder (an NLTK path pointer), or None: under ``$SCORING_PUNKT_DIR`` (an NLTK
    data folder) when set, else anywhere on NLTK's data path."""
    import nltk.data

    root = os.environ.get("SCORING_PUNKT_DIR")
    if root and root not in nltk.data.path:  # NLTK opens model files only under its data path
        nltk.data.path.append(root)
    try:
        return nltk.data.find(PUNKT_MODEL, paths=[root] if root else None)
    except LookupError:
        return None


def punkt_missing() -> str | None:
    """Why ``word_tokenize`` cannot run here, or None."""
    if punkt_model() is not None:
        return None
    where = os.environ.get("SCORING_PUNKT_DIR") or "NLTK's data path"
    return (f"METEOR (word_tokenize) needs NLTK's Punkt English model ({PUNKT_MODEL}) in {where}: "
            "python -m nltk.downloader -d DIR punkt_tab, then set SCORING_PUNKT_DIR=DIR")


def _sentence_splitter() -> tuple[Any, str]:
    """Punkt with the English parameters, and a digest of those parameter files (loaded once per folder)."""
    from nltk.tokenize.punkt import PunktSentenceTokenizer, load_punkt_params

    model = punkt_model()
    if model is None:
        raise RuntimeError(punkt_missing())
    key = str(model)
    with _PUNKT_LOCK:
        if key not in _PUNKT:
            digest = hashlib.sha256()
            for name in PUNKT_FILES:
                with model.join(name).open() as handle:
                    digest.update(handle.read())
            _PUNKT[key] = (PunktSentenceTokenizer(load_punkt_params(model)), digest.hexdigest()[:16])
        return _PUNKT[key]


def word_tokens(text: str) -> list[str]:
    """``nltk.word_tokenize(text)``: Punkt sentences, then the Treebank word rules on each."""
    from nltk.tokenize import NLTKWordTokenizer

    splitter, _ = _sentence_splitter()
    words = _treebank(NLTKWordTokenizer)
    return [token for sentence in splitter.tokenize(text) for token in words.tokenize(sentence)]


@cache
def _treebank(kind: type) -> Any:
    return kind()


@register_family
class EvaluateMeteor(MetricFamily):
    """Per-item NLTK METEOR on ``word_tokenize`` tokens (evaluate's ``meteor``), averaged over items."""

    name: ClassVar[str] = "evaluate_meteor"
    outputs: ClassVar[tuple[str, ...]] = ("meteor",)
    task_types: ClassVar[tuple[str, ...]] = ("generation",)

    def unavailable_reason(self) -> str | None:
        return wordnet_missing(wordnet_dir()) or punkt_missing()

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        from nltk.translate.meteor_score import meteor_score

        wordnet = load_wordnet(wordnet_dir())
        values = [meteor_score([word_tokens(answer) for answer in reference.answers], word_tokens(prediction.text),
                               wordnet=wordnet, alpha=0.9, beta=3.0, gamma=0.5)
                  for reference, prediction in zip(references, predictions)]
        return {"meteor": ItemScores(np.array(values, dtype=float))}

    def signature_fields(self, output: str) -> dict[str, str]:
        wordnet = "absent" if wordnet_missing(wordnet_dir()) else load_wordnet(wordnet_dir()).get_version()
        punkt = "absent" if punkt_missing() else _sentence_splitter()[1]
        return {"impl": "evaluate-meteor(nltk-meteor_score)", "tok": "word_tokenize", "alpha": "0.9", "beta": "3",
                "gamma": "0.5", "stemmer": "porter", "multi_ref": "max", "wordnet": wordnet, "punkt": punkt,
                "nltk": library_version("nltk")}
