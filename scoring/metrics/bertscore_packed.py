"""Batch-invariant BERTScore for the CPU: sentences packed without padding, token-budgeted passes.

bert-score pads each batch of 64 sentences to its longest one (on real answers about 30% of the
encoder's work is padding) and lets padded similarities of 0 into the greedy max. Here the
sentences of a chunk are sorted by token length and encoded in passes of up to ``token_budget``
tokens, packed end to end in one ``(tokens, hidden)`` matrix: every linear layer, layer norm and
activation runs on real tokens only, and self-attention runs per group of equal-length sentences,
so no position is ever padded or masked. The greedy matching then runs on large length-sorted pair
batches with padded positions excluded from the max (:func:`scoring.metrics.bertscore_masked.match`).

What is left of a value's dependence on its neighbours is the floating-point summation order of
matrix products of other shapes, about 1e-7: each value equals bert-score on that pair scored alone
to 1e-6, whatever the order, the chunking or the other pairs.

The packed encoder computes BERT's and RoBERTa's forward pass (absolute positions, GELU) from the
model's own weights (:mod:`scoring.metrics.bertscore_weights`: a loaded model's, or the checkpoint's
without loading the model); any other architecture is encoded by the model itself in masked
length-sorted batches (:func:`scoring.metrics.bertscore_masked.encode`), with the same guarantee.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scoring.metrics.bertscore_masked import (
    masked_embeddings,
    reference_sentences,
    sentence_tokens,
    token_groups,
    values_per_pair,
)
from scoring.metrics.bertscore_store import EmbeddingStore, encode_with_store, encoder_fingerprint
from scoring.metrics.bertscore_weights import Norm, PackedEncoder, from_module, packed_supported

TOKEN_BUDGET = 4096  # tokens per encoder pass: large enough for efficient matrix products, small enough for the caches
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
    (a longer sentence has a pass of its own)."""
    import torch

    embeddings: dict[str, Any] = {}
    with torch.inference_mode():
        for group in _passes(tokens, token_budget):
            hidden = _forward(encoder, [tokens[s] for s in group])
            offset = 0
            for sentence in group:
                n = len(tokens[sentence])
                embeddings[sentence] = hidden[offset : offset + n]
                offset += n
    return embeddings


def _passes(tokens: dict[str, list[int]], token_budget: int) -> list[list[str]]:
    """The sentences sorted by token length, cut into passes of at most ``token_budget`` tokens (or one sentence)."""
    ordered = sorted(tokens, key=lambda s: len(tokens[s]))
    return [ordered[start:end] for start, end in token_groups([len(tokens[s]) for s in ordered], token_budget)]


def _forward(encoder: PackedEncoder, rows: list[list[int]]) -> Any:
    """The encoder's last hidden state for length-sorted sentences, packed as ``(sum of lengths, hidden)``.

    Every linear layer writes into buffers allocated once per pass (fresh large tensors cost a page
    fault per page on every use); query, key and value are one matrix product over their weights
    concatenated once per layer and pass into a reused buffer (never kept: for roberta-large that would
    be 12 MiB per layer on top of the model)."""
    import torch
    import torch.nn.functional as F

    heads, width = encoder.heads, encoder.width
    head_width = width // heads
    lengths = [len(row) for row in rows]
    ids = torch.tensor([t for row in rows for t in row], dtype=torch.long)
    hidden = _embed(encoder, ids, lengths)
    spans = _equal_length_spans(lengths)
    total = hidden.shape[0]
    qkv, context, residual = torch.empty(total, 3 * width), torch.empty(total, width), torch.empty(total, width)
    up = torch.empty(total, encoder.intermediate)
    qkv_weight, qkv_bias = torch.empty(3 * width, width), torch.empty(3 * width)
    for layer in encoder.layers:
        projections = (layer.query, layer.key, layer.value)
        torch.cat([weight for weight, _ in projections], out=qkv_weight)
        torch.cat([bias for _, bias in projections], out=qkv_bias)
        torch.addmm(qkv_bias, hidden, qkv_weight.t(), out=qkv)
        q, k, v = qkv[:, :width], qkv[:, width : 2 * width], qkv[:, 2 * width :]
        for begin, end, count, length in spans:
            qh, kh, vh = (x[begin:end].view(count, length, heads, head_width).transpose(1, 2) for x in (q, k, v))
            attended = F.scaled_dot_product_attention(qh, kh, vh, scale=head_width**-0.5)
            context[begin:end].view(count, length, heads, head_width).copy_(attended.transpose(1, 2))
        weight, bias = layer.attention_out
        hidden = _norm(layer.attention_norm, torch.addmm(bias, context, weight.t(), out=residual).add_(hidden))
        weight, bias = layer.up
        torch.ops.aten.gelu_(torch.addmm(bias, hidden, weight.t(), out=up))
        weight, bias = layer.down
        hidden = _norm(layer.output_norm, torch.addmm(bias, up, weight.t(), out=residual).add_(hidden))
    return hidden


def _embed(encoder: PackedEncoder, ids: Any, lengths: list[int]) -> Any:
    """Word + token type 0 + absolute position embeddings, normalised, for packed sentences."""
    import torch
    import torch.nn.functional as F

    positions = torch.cat([torch.arange(n) for n in lengths]) + encoder.position_offset
    total = F.embedding(ids, encoder.words) + encoder.token_type
    total = total + F.embedding(positions, encoder.positions)
    return _norm(encoder.embedding_norm, total)


def _norm(norm: Norm, x: Any) -> Any:
    import torch.nn.functional as F

    return F.layer_norm(x, (x.shape[-1],), norm.weight, norm.bias, norm.eps)


def _equal_length_spans(lengths: list[int]) -> list[tuple[int, int, int, int]]:
    """(begin, end, count, length) of each run of equal lengths in packed, length-sorted rows."""
    spans: list[tuple[int, int, int, int]] = []
    begin = 0
    i = 0
    while i < len(lengths):
        j = i
        while j < len(lengths) and lengths[j] == lengths[i]:
            j += 1
        end = begin + (j - i) * lengths[i]
        spans.append((begin, end, j - i, lengths[i]))
        begin, i = end, j
    return spans
