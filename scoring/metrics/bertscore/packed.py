"""Batch-invariant BERTScore for the CPU: sentences packed without padding, token-budgeted passes.

bert-score pads each batch of 64 sentences to its longest one (on real answers about 30% of the
encoder's work is padding) and lets padded similarities of 0 into the greedy max. Here the
sentences of a chunk are sorted by token length and encoded in passes of up to ``token_budget``
tokens, packed end to end in one ``(tokens, hidden)`` matrix, and self-attention runs per run of
equal-length sentences, so no position is ever padded or masked (the forward pass:
:mod:`scoring.metrics.bertscore.forward`). The greedy matching then runs on
large length-sorted pair batches with padded positions excluded from the max
(:func:`scoring.metrics.bertscore.masked.match`).

What is left of a value's dependence on its neighbours is the floating-point summation order of
matrix products of other shapes, about 1e-7: each value equals bert-score on that pair scored alone
to 1e-6, whatever the order, the chunking or the other pairs.

The forward pass is BERT's and RoBERTa's (absolute positions, GELU), computed from the
model's own weights (:mod:`scoring.metrics.bertscore.weights`: a loaded model's, or the checkpoint's
without loading the model); any other architecture is encoded by the model itself in masked
length-sorted batches (:func:`scoring.metrics.bertscore.masked.encode`), with the same guarantee.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scoring.metrics.bertscore.forward import CPU_PASS_TOKENS, encode_passes, full_float32
from scoring.metrics.bertscore.masked import (
    masked_embeddings,
    reference_sentences,
    sentence_tokens,
    values_per_pair,
)
from scoring.metrics.bertscore.store import EmbeddingStore, encode_with_store, encoder_fingerprint
from scoring.metrics.bertscore.weights import PackedEncoder, from_module, packed_supported

TOKEN_BUDGET = CPU_PASS_TOKENS
_ENCODERS: dict[int, tuple[Any, PackedEncoder]] = {}


def packed_scores(
    scorer: Any,
    pairs: Sequence[tuple[str, tuple[str, ...]]],
    idf: Any,
    *,
    token_budget: int = TOKEN_BUDGET,
    store: EmbeddingStore | None = None,
) -> list[tuple[float, float, float]]:
    """(P, R, F) per (candidate, references) pair, best reference per component, as bert-score
    scores each pair alone; rescaled with the scorer's baseline when it has one. With a ``store``,
    reference embeddings are read from it where it has them and written to it where not."""
    tokens = sentence_tokens(scorer._tokenizer, pairs)
    embeddings = packed_embeddings(scorer, tokens, reference_sentences(pairs), store, token_budget)
    return values_per_pair(scorer, pairs, embeddings, tokens, idf)


def packed_embeddings(
    scorer: Any, tokens: dict[str, list[int]], keep: Sequence[str], store: EmbeddingStore | None = None,
    token_budget: int = TOKEN_BUDGET,
) -> dict[str, Any]:
    """Last-layer embeddings of every sentence of ``tokens`` (``sentence_tokens``) from packed passes (masked
    batches for other architectures); with a ``store``, those of ``keep`` (the references) are read from it or
    written to it. The scorer's ``_model`` is a transformers model or a :class:`PackedEncoder` read from the
    checkpoint."""
    import torch

    encoder = packed_encoder(scorer._model)
    if encoder is None:
        return masked_embeddings(scorer, tokens, keep, store, token_budget)
    fingerprint = encoder_fingerprint(encoder, "packed") if store is not None else ""
    with full_float32():  # a process allowing lower precision could let the products round below float32
        return encode_with_store(store, fingerprint, tokens, keep, encoder.width, torch.device("cpu"),
                                 lambda todo: packed_encode(encoder, todo, token_budget))


def packed_encoder(model: Any) -> PackedEncoder | None:
    """The model as a :class:`PackedEncoder` (once per model), or ``None`` where the packed forward pass does
    not compute it (:func:`packed_supported`)."""
    if isinstance(model, PackedEncoder):
        return model
    cached = _ENCODERS.get(id(model))
    if cached is not None and cached[0] is model:
        return cached[1]
    if not packed_supported(model):
        return None
    encoder = from_module(model)
    _ENCODERS[id(model)] = (model, encoder)
    return encoder


def packed_encode(encoder: PackedEncoder, tokens: dict[str, list[int]],
                  token_budget: int = TOKEN_BUDGET) -> dict[str, Any]:
    """Last-layer embeddings per sentence from packed, unpadded passes of at most ``token_budget`` tokens
    (a longer sentence has a pass of its own), attention per run of equal-length sentences."""
    return encode_passes(encoder, tokens, token_budget)
