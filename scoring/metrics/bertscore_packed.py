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
model's own weights; any other architecture is encoded by the model itself in masked length-sorted
batches (:func:`scoring.metrics.bertscore_masked.encode`), with the same guarantee.
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

TOKEN_BUDGET = 4096  # tokens per encoder pass: large enough for efficient matrix products, small enough for the caches
_PACKED_MODELS = {"bert": 0, "roberta": 1}  # 1: positions counted from padding_idx + 1


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
    written to it."""
    model = scorer._model
    if not packed_supported(model):
        return masked_embeddings(scorer, tokens, keep, store, token_budget)
    fingerprint = encoder_fingerprint(model, "packed") if store is not None else ""
    return encode_with_store(store, fingerprint, tokens, keep, model.config.hidden_size,
                             next(model.parameters()).device, lambda todo: packed_encode(model, todo, token_budget))


def packed_supported(model: Any) -> bool:
    """A BERT or RoBERTa encoder on the CPU with absolute positions and GELU: what :func:`packed_encode` computes."""
    config = model.config
    return (
        config.model_type in _PACKED_MODELS
        and getattr(config, "position_embedding_type", "absolute") == "absolute"
        and config.hidden_act == "gelu"
        and not config.is_decoder
        and next(model.parameters()).device.type == "cpu"
    )


def packed_encode(model: Any, tokens: dict[str, list[int]], token_budget: int = TOKEN_BUDGET) -> dict[str, Any]:
    """Last-layer embeddings per sentence from packed, unpadded passes of at most ``token_budget`` tokens
    (a longer sentence has a pass of its own)."""
    import torch

    embeddings: dict[str, Any] = {}
    with torch.inference_mode():
        for group in _passes(tokens, token_budget):
            hidden = _forward(model, [tokens[s] for s in group])
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


def _forward(model: Any, rows: list[list[int]]) -> Any:
    """The encoder's last hidden state for length-sorted sentences, packed as ``(sum of lengths, hidden)``.

    Every linear layer writes into buffers allocated once per pass (fresh large tensors cost a page
    fault per page on every use); query, key and value are one matrix product over their weights
    concatenated once per layer and pass into a reused buffer (never kept: for roberta-large that would
    be 12 MiB per layer on top of the model)."""
    import torch
    import torch.nn.functional as F

    config = model.config
    heads, width = config.num_attention_heads, config.hidden_size
    head_width = width // heads
    lengths = [len(row) for row in rows]
    ids = torch.tensor([t for row in rows for t in row], dtype=torch.long)
    hidden = _embed(model, ids, lengths)
    spans = _equal_length_spans(lengths)
    total = hidden.shape[0]
    qkv, context, residual = torch.empty(total, 3 * width), torch.empty(total, width), torch.empty(total, width)
    up = torch.empty(total, config.intermediate_size)
    qkv_weight, qkv_bias = torch.empty(3 * width, width), torch.empty(3 * width)
    for layer in model.encoder.layer:
        attention = layer.attention.self
        projections = (attention.query, attention.key, attention.value)
        torch.cat([linear.weight for linear in projections], out=qkv_weight)
        torch.cat([linear.bias for linear in projections], out=qkv_bias)
        torch.addmm(qkv_bias, hidden, qkv_weight.t(), out=qkv)
        q, k, v = qkv[:, :width], qkv[:, width : 2 * width], qkv[:, 2 * width :]
        for begin, end, count, length in spans:
            qh, kh, vh = (x[begin:end].view(count, length, heads, head_width).transpose(1, 2) for x in (q, k, v))
            attended = F.scaled_dot_product_attention(qh, kh, vh, scale=head_width**-0.5)
            context[begin:end].view(count, length, heads, head_width).copy_(attended.transpose(1, 2))
        out = layer.attention.output
        hidden = _norm(out.LayerNorm, torch.addmm(out.dense.bias, context, out.dense.weight.t(), out=residual)
                       .add_(hidden))
        torch.ops.aten.gelu_(torch.addmm(layer.intermediate.dense.bias, hidden, layer.intermediate.dense.weight.t(),
                                        out=up))
        down = layer.output
        hidden = _norm(down.LayerNorm, torch.addmm(down.dense.bias, up, down.dense.weight.t(), out=residual)
                       .add_(hidden))
    return hidden


def _embed(model: Any, ids: Any, lengths: list[int]) -> Any:
    """Word + token type 0 + absolute position embeddings, normalised, for packed sentences."""
    import torch

    embeddings = model.embeddings
    positions = torch.cat([torch.arange(n) for n in lengths])
    if _PACKED_MODELS[model.config.model_type]:  # RoBERTa counts positions from padding_idx + 1
        positions = positions + embeddings.padding_idx + 1
    total = embeddings.word_embeddings(ids) + embeddings.token_type_embeddings.weight[0]
    total = total + embeddings.position_embeddings(positions)
    return _norm(embeddings.LayerNorm, total)


def _norm(norm: Any, x: Any) -> Any:
    import torch.nn.functional as F

    return F.layer_norm(x, norm.normalized_shape, norm.weight, norm.bias, norm.eps)


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
