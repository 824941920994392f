"""CMI-Bench multi-label tagging (MTG-Jamendo genre, instrument, mood/theme, top-50; MagnaTagATune), as
``evaluate.py`` scores it with ``multi_label_bert(..., embed="bert")``.

nicolaus625/CMI-bench ``evaluate.py`` @ 4c15f410: the label list is the task's vocabulary, lowercased, stripped
and sorted. Per item:

* **truth**: tag ``t`` is positive iff ``t`` is a *substring* of the lowercased, stripped reference (the
  comma-joined tags), so "male" is positive for "female vocal", "rock" and "pop" for "poprock"; an empty
  reference (997 MagnaTagATune clips) is an all-negative row;
* **score**: BERTScore recall of the lowercased, stripped response against each tag, the tag being the
  reference side, as ``bert_score.score([response] * n_tags, tags)`` computes it (recall = the mean over the
  tag's tokens of their best similarity to a response token). An empty response scores 0 for every tag
  (bert-score's rule for an empty candidate): an all-tied row.

Then scikit-learn's ``roc_auc_score(y_true, y_pred, average="macro")`` and ``average_precision_score`` over the
tag columns. They are computed here (:func:`macro_roc_auc`, :func:`macro_average_precision`) as scikit-learn
computes them, on item weights, so that the value and every bootstrap replicate are one code path: ties of score
are one threshold (ROC: trapezoid, AP: step), a column with one class has ROC-AUC NaN (scikit-learn 1.9 warns and
returns NaN, and the macro mean is then NaN: the value is not computed) and a column without positives has AP 0
(scikit-learn's "recall is set to one"). On the released test files every tag is positive for at least 20 items.

BERTScore runs through the site's machinery (:mod:`scoring.metrics.bertscore`): the configured model, the
batch-invariant batchings (each value within 1e-6 of bert-score on that pair alone), the tag vocabulary kept in
the embedding store, each distinct response encoded once. The publisher's ``lang="en"`` is roberta-large, layer
17; with any other model the columns are not the publisher's protocol, and the signature says so. The
``embed="gte"`` variant (gte-Qwen2-7B-instruct, dot products x 100) is not computed here.

Per item, the value is the item's own tag ranking: the share of (positive, negative) tag pairs the scores order
correctly, ties half (ROC), and the average precision of its tags (PR); NaN for an item without a positive or
without a negative tag. The item's five best-scored tags are its note.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import ItemScores, MetricFamily, register_family
from scoring.metrics.bertscore.family import (
    BertScoreConfig,
    model_fields,
    resolved_batching,
    scorer_for,
    unpadded_scores,
)
from scoring.metrics.bertscore.masked import masked_embeddings, tokens_of, uniform_idf, unit_embeddings
from scoring.metrics.bertscore.packed import packed_embeddings
from scoring.metrics.bertscore.store import open_store
from scoring.metrics.cmi_tag_vocabularies import NO_TAG, VOCABULARIES
from scoring.task_types import Prediction, Reference
from scoring.versions import library_version

PUBLISHER = "nicolaus625/CMI-bench evaluate.py@4c15f410 multi_label_bert embed=bert"
PUBLISHER_MODEL = ("roberta-large", 17)
OUTPUTS = ("roc_auc", "pr_auc")
RESPONSES_PER_PASS = 256  # distinct responses scored against the vocabulary at a time
BLOCK_CELLS = 4_000_000  # weight rows x thresholds per vectorised pass: about 32 MB a working array
TOP_TAGS = 5


def vocabulary_tags(name: str) -> list[str]:
    """``sorted([ans.lower().strip() for ans in answer_list])``, as ``multi_label_bert`` builds its columns."""
    return sorted(tag.lower().strip() for tag in VOCABULARIES[name])


def substring_truth(answer: str, tags: Sequence[str]) -> np.ndarray:
    """evaluate.py's truth row: 1 where the tag is a substring of the lowercased, stripped reference."""
    reference = "" if answer == NO_TAG else answer.lower().strip()
    return np.array([tag in reference for tag in tags], dtype=float)


def tag_recalls(config: BertScoreConfig, responses: Sequence[str], tags: Sequence[str]) -> np.ndarray:
    """BERTScore recall of each response (as given) against each tag (the reference side), shape
    ``(len(responses), len(tags))``, with the configured model and batching, the tags kept in the store."""
    batching = resolved_batching(config)
    scorer = scorer_for(config, batching)
    idf = _tag_idf(scorer, tags) if config.idf else None
    if batching == "unpadded":
        values = unpadded_scores(scorer, [(response, (tag,)) for response in responses for tag in tags], idf)
        return np.array([recall for _, recall, _ in values], dtype=float).reshape(len(responses), len(tags))
    store = open_store(config.store_path, config.store_mb) if config.store_path else None
    embed = packed_embeddings if batching == "packed" else masked_embeddings
    tokens = tokens_of(scorer._tokenizer, list(dict.fromkeys([*responses, *tags])))
    embeddings = embed(scorer, tokens, list(tags), store)
    return greedy_recalls(scorer, responses, tags, tokens, embeddings, idf)


def greedy_recalls(scorer: Any, responses: Sequence[str], tags: Sequence[str], tokens: Mapping[str, list[int]],
                   embeddings: Mapping[str, Any], idf: Any) -> np.ndarray:
    """bert-score's greedy recall of every (response, tag) pair at once: each tag token's best cosine similarity
    to any token of the response (its [CLS] and [SEP] included, as bert-score's max includes them), weighted by
    the tag's token weights (0 for [CLS] and [SEP]); 0 where the response or the tag is empty (only [CLS] [SEP]),
    as bert-score sets it. Similarities in float64 from unit embeddings normalised as bert-score normalises them."""
    import torch

    weights = idf if idf is not None else uniform_idf(scorer._tokenizer)
    unit = unit_embeddings({s: embeddings[s] for s in dict.fromkeys([*responses, *tags])})
    tag_rows = torch.cat([unit[t] for t in tags]).cpu().double().numpy()
    response_rows = torch.cat([unit[r] for r in responses]).cpu().double().numpy()
    starts = np.cumsum([0, *(len(tokens[r]) for r in responses)])[:-1]
    best = np.maximum.reduceat(tag_rows @ response_rows.T, starts, axis=1)  # (tag tokens, responses)
    mixing = np.zeros((len(tags), len(tag_rows)))
    offset = 0
    for row, tag in enumerate(tags):
        w = np.array([weights[t] for t in tokens[tag]], dtype=float)
        mixing[row, offset : offset + len(w)] = w / w.sum() if w.sum() > 0 else 0.0
        offset += len(w)
    recalls = (mixing @ best).T
    recalls[np.array([len(tokens[r]) == 2 for r in responses])] = 0.0
    recalls[:, np.array([len(tokens[t]) == 2 for t in tags])] = 0.0
    if scorer.rescale_with_baseline:
        baseline = float(scorer.baseline_vals[1])
        recalls = (recalls - baseline) / (1 - baseline)
    return recalls


def _tag_idf(scorer: Any, tags: Sequence[str]) -> Any:
    """bert_score.score(..., idf=True) weighs tokens by idf over its references: here the tags."""
    from bert_score.utils import get_idf_dict

    return get_idf_dict(list(tags), scorer._tokenizer, nthreads=1)


POSITIVE, TIED, BETWEEN, BELOW = range(4)  # an item's bin in one tag column (TagColumns)


def threshold_bins(truth: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """One tag column: each item's bin (a positive; a negative tied with a positive threshold; a negative between
    two of them, or above the highest; a negative below the lowest), the index of the first positive threshold at
    or below its score, and how many positive thresholds (distinct scores of positives) the column has."""
    order = np.argsort(-scores, kind="stable")
    ranked = scores[order]
    group = np.empty(len(scores), dtype=np.int64)
    group[order] = np.cumsum(np.r_[True, ranked[1:] != ranked[:-1]]) - 1  # 0 for the highest score
    positive = truth > 0
    thresholds = np.unique(group[positive])
    at = np.searchsorted(thresholds, group)
    inside = at < len(thresholds)
    tied = inside & (thresholds[np.minimum(at, len(thresholds) - 1)] == group) if len(thresholds) else inside
    kind = np.where(positive, POSITIVE, np.where(tied, TIED, np.where(inside, BETWEEN, BELOW)))
    return kind, at, len(thresholds)


class TagColumns:
    """The tag columns of a truth and a score matrix, reduced to what the two AUCs read: per column, its
    *positive thresholds* (the distinct scores some positive item has, highest first) and, for each, the items
    there, the negatives tied with it and the negatives between it and the next higher one; negatives below the
    lowest count only in the total. Sparse ``(items, bins)`` indicators turn a ``(b, items)`` block of item
    weights into those weighted counts with one product each; thresholds without a positive never change a
    value, and a bootstrap replicate has positives only where the full set has them."""

    def __init__(self, truth: np.ndarray, scores: np.ndarray) -> None:
        from scipy.sparse import csr_matrix

        n, k = truth.shape
        items: list[list[np.ndarray]] = [[], [], [], []]  # per bin kind: positive, tied, between, below
        bins: list[list[np.ndarray]] = [[], [], [], []]
        sizes: list[int] = []
        for j in range(k):
            kind, at, size = threshold_bins(truth[:, j], scores[:, j])
            for code in range(4):
                chosen = np.flatnonzero(kind == code)
                items[code].append(chosen)
                bins[code].append(np.full(len(chosen), j) if code == BELOW else sum(sizes) + at[chosen])
            sizes.append(size)
        self.width = sum(sizes)

        def indicator(code: int, width: int) -> Any:
            rows = np.concatenate([np.empty(0, dtype=np.int64), *items[code]])
            cols = np.concatenate([np.empty(0, dtype=np.int64), *bins[code]])
            return csr_matrix((np.ones(len(rows)), (cols, rows)), shape=(width, n))

        self.positives, self.ties, self.gaps = (indicator(code, self.width) for code in (POSITIVE, TIED, BETWEEN))
        self.tails = indicator(BELOW, k)
        self.column = np.repeat(np.arange(k), sizes)  # each threshold's column
        starts = np.cumsum([0, *sizes])[:-1]
        self.firsts = starts[np.array(sizes, dtype=np.int64) > 0]  # each column's first threshold (columns with one)
        self.summing = csr_matrix((np.ones(self.width), (np.arange(self.width), self.column)), shape=(self.width, k))

    def weighted(self, matrix: Any, weights: np.ndarray) -> np.ndarray:
        """``weights @ indicator.T``: weighted counts per bin, ``(b, bins)``."""
        return np.asarray(matrix @ weights.T).T

    def running(self, per_threshold: np.ndarray) -> np.ndarray:
        """Running totals within each column, from its highest threshold."""
        total = np.cumsum(per_threshold, axis=1)
        lengths = np.diff(np.r_[self.firsts, total.shape[1]])
        base = np.where(self.firsts > 0, total[:, np.maximum(self.firsts - 1, 0)], 0.0)
        return total - np.repeat(base, lengths, axis=1)

    def sums(self, per_threshold: np.ndarray) -> np.ndarray:
        """Each column's total over its thresholds: ``(b, columns)`` (0 for a column without one)."""
        return np.asarray(self.summing.T @ per_threshold.T).T


def auc_columns(columns: TagColumns, weights: np.ndarray) -> dict[str, np.ndarray]:
    """Binary ROC-AUC (trapezoid over the distinct scores, ties half; NaN where a column has one class) and
    average precision (recall steps times precision; 0 where a column has no positive) of every column under
    each weight row, ``(b, columns)`` each."""
    positives = columns.weighted(columns.positives, weights)
    ties = columns.weighted(columns.ties, weights)
    gaps = columns.weighted(columns.gaps, weights)
    total_positive = columns.sums(positives)
    total_negative = columns.sums(ties) + columns.sums(gaps) + columns.weighted(columns.tails, weights)
    tp = columns.running(positives)
    above = columns.running(gaps) + columns.running(ties) - ties  # negatives scored strictly higher
    below = total_negative[:, columns.column] - above - ties
    area = columns.sums(positives * (below + ties / 2.0))
    pairs = total_positive * total_negative
    with np.errstate(invalid="ignore", divide="ignore"):
        seen = tp + above + ties
        precision = np.where(seen > 0, tp / np.where(seen > 0, seen, 1.0), 0.0)
        steps = columns.sums(positives * precision)
        return {"roc_auc": np.where(pairs > 0, area / np.where(pairs > 0, pairs, 1.0), np.nan),
                "pr_auc": np.where(total_positive > 0, steps / np.where(total_positive > 0, total_positive, 1.0),
                                   0.0)}


def macro_aucs(columns: TagColumns, weights: np.ndarray) -> dict[str, np.ndarray]:
    """The unweighted means over tag columns of ROC-AUC and PR-AUC under each row of ``weights``."""
    out = {name: np.empty(len(weights)) for name in OUTPUTS}
    rows = max(1, BLOCK_CELLS // max(1, columns.width))
    for start in range(0, len(weights), rows):
        block = np.asarray(weights[start : start + rows], dtype=float)
        for name, per_column in auc_columns(columns, block).items():
            out[name][start : start + len(block)] = per_column.mean(axis=1)
    return out


def macro_roc_auc(truth: np.ndarray, scores: np.ndarray) -> float:
    """``roc_auc_score(truth, scores, average="macro")``."""
    return float(macro_aucs(TagColumns(truth, scores), np.ones((1, len(truth))))["roc_auc"][0])


def macro_average_precision(truth: np.ndarray, scores: np.ndarray) -> float:
    """``average_precision_score(truth, scores, average="macro")``."""
    return float(macro_aucs(TagColumns(truth, scores), np.ones((1, len(truth))))["pr_auc"][0])


def item_ranking(truth: np.ndarray, scores: np.ndarray) -> tuple[float, float]:
    """One item's tags ranked by score: (ROC-AUC, average precision) of its positive tags; NaN without a
    positive or a negative tag."""
    if truth.all() or not truth.any():
        return float("nan"), float("nan")
    positive, negative = scores[truth > 0], scores[truth == 0]
    pairs = (positive[:, None] > negative[None, :]) + 0.5 * (positive[:, None] == negative[None, :])
    at_or_above = scores[None, :] >= positive[:, None]
    precision = (at_or_above & (truth[None, :] > 0)).sum(axis=1) / at_or_above.sum(axis=1)
    return float(pairs.mean()), float(precision.mean())


@register_family
class CmiTagAuc(MetricFamily):
    """Macro ROC-AUC and PR-AUC over the tag columns of BERTScore recall of the response against each tag."""

    name: ClassVar[str] = "cmi_tag_auc"
    outputs: ClassVar[tuple[str, ...]] = OUTPUTS
    task_types: ClassVar[tuple[str, ...]] = ("generation",)
    needs: ClassVar[str | None] = "bertscore"
    heavy: ClassVar[bool] = True

    def __init__(self, params: Mapping[str, Any], context: Any) -> None:
        super().__init__(params, context)
        name = str(self.params.get("vocabulary", ""))
        if name not in VOCABULARIES:
            raise ValueError(f"cmi_tag_auc: unknown vocabulary {name!r}; valid: {', '.join(VOCABULARIES)}")
        self._tags = vocabulary_tags(name)
        self._memo: dict[str, np.ndarray] = {}
        self._columns: tuple[np.ndarray, TagColumns] | None = None  # the last aggregated rows, grouped
        self._block: tuple[np.ndarray, dict[str, np.ndarray]] | None = None  # the last weight block's values

    @property
    def config(self) -> BertScoreConfig:
        config: BertScoreConfig = self.context.bertscore
        return config

    def unavailable_reason(self) -> str | None:
        return "BERTScore disabled" if self.context.bertscore is None else None

    def warm(self, references: Sequence[Reference]) -> int:
        """Encode the tag vocabulary (the reference side of every pair) into the embedding store."""
        batching = resolved_batching(self.config)
        store = open_store(self.config.store_path, self.config.store_mb) if self.config.store_path else None
        if store is None or batching == "unpadded":
            return 0
        scorer = scorer_for(self.config, batching)
        embed = packed_embeddings if batching == "packed" else masked_embeddings
        misses = store.misses
        embed(scorer, tokens_of(scorer._tokenizer, self._tags), self._tags, store)
        return store.misses - misses

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        responses = [p.text.lower().strip() for p in predictions]
        self._compute_missing(responses)
        scores = np.array([self._memo[r] for r in responses], dtype=float).reshape(-1, len(self._tags))
        truth = np.array([substring_truth(r.answers[0], self._tags) for r in references],
                         dtype=float).reshape(-1, len(self._tags))
        stats = np.hstack([truth, scores])
        ranked = np.array([item_ranking(t, s) for t, s in zip(truth, scores)], dtype=float).reshape(-1, 2)
        notes: list[dict[str, Any] | None] = [{"status": "best-scored tags", "raw": self._top(row)} for row in scores]
        return {"roc_auc": ItemScores(ranked[:, 0], stats, notes), "pr_auc": ItemScores(ranked[:, 1], stats)}

    def _top(self, row: np.ndarray) -> str:
        best = np.argsort(-row, kind="stable")[:TOP_TAGS]
        return "\n".join(f"{self._tags[i]} {row[i]:.4f}" for i in best)

    def _compute_missing(self, responses: Sequence[str]) -> None:
        todo = list(dict.fromkeys(r for r in responses if r not in self._memo))
        for start in range(0, len(todo), RESPONSES_PER_PASS):
            chunk = todo[start : start + RESPONSES_PER_PASS]
            self._memo.update(zip(chunk, tag_recalls(self.config, chunk, self._tags)))

    def aggregate(self, output: str, scores: ItemScores, weights: np.ndarray) -> np.ndarray:
        if scores.stats is None:
            raise ValueError("cmi_tag_auc needs the per-item truth and score rows")
        if self._columns is None or self._columns[0] is not scores.stats:
            n_tags = scores.stats.shape[1] // 2
            self._columns = (scores.stats, TagColumns(scores.stats[:, :n_tags], scores.stats[:, n_tags:]))
            self._block = None
        if self._block is None or self._block[0] is not weights:  # both outputs come from one pass per block
            self._block = (weights, macro_aucs(self._columns[1], weights))
        return self._block[1][output]

    def signature_fields(self, output: str) -> dict[str, str]:
        config = self.config
        publishers = (config.model_name.rstrip("/").rsplit("/", 1)[-1], config.num_layers) == PUBLISHER_MODEL
        same = publishers and not config.idf and not config.baseline_path
        return {
            **model_fields(config),
            "batching": _batching_name(config),
            "use": f"{PUBLISHER}: recall, tag as reference; truth = tag substring of the lowercased reference",
            "auc": "macro roc_auc_score" if output == "roc_auc" else "macro average_precision_score",
            "vocabulary": f"{self.params['vocabulary']}:{len(self._tags)}",
            "protocol": "publisher's model" if same else "not the publisher's (evaluate.py: roberta-large L17)",
            "bert-score": library_version("bert-score"),
            "transformers": library_version("transformers"),
        }


def _batching_name(config: BertScoreConfig) -> str:
    batching = resolved_batching(config)
    return "unpadded-16" if batching == "unpadded" else batching
