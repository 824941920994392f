"""Batch-invariant BERTScore for the CPU: sentences packed without padding, token-budgeted passes.

bert-score pads each batch of 64 sentences to its longest one (on real answers about 30% of the
encoder's work is padding) and lets padded similarities of 0 into the greedy max. Here the
sentences of a chunk are sorted by token length and encoded in passes of up to ``token_budget``
tokens, packed end to end in one ``(tokens, hidden)`` matrix: every linear layer, layer norm and
activation runs on real tokens only, and self-attention runs per group of equal-length sentences,
so no position is ever padded or masked. The linear layers, nearly all of the work, are oneDNN's
matrix products with the GELU and the residual addition fused in (BLAS's for passes under
:data:`PASS_ROWS` rows and where torch is built without oneDNN). The greedy matching then runs on
large length-sorted pair batches with padded positions excluded from the max
(:func:`scoring.metrics.bertscore.masked.match`).

What is left of a value's dependence on its neighbours is the floating-point summation order of
matrix products of other shapes, about 1e-7: each value equals bert-score on that pair scored alone
to 1e-6, whatever the order, the chunking or the other pairs.

The packed encoder computes BERT's and RoBERTa's forward pass (absolute positions, GELU) from the
model's own weights (:mod:`scoring.metrics.bertscore.weights`: a loaded model's, or the checkpoint's
without loading the model); any other architecture is encoded by the model itself in masked
length-sorted batches (:func:`scoring.metrics.bertscore.masked.encode`), with the same guarantee.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scoring.metrics.bertscore.masked import (
    masked_embeddings,
    reference_sentences,
    sentence_tokens,
    token_groups,
    values_per_pair,
)
from scoring.metrics.bertscore.store import EmbeddingStore, encode_with_store, encoder_fingerprint
from scoring.metrics.bertscore.weights import Norm, PackedEncoder, PackedLayer, from_module, packed_supported

TOKEN_BUDGET = 4096  # tokens per encoder pass: large enough for efficient matrix products, small enough for the caches
PASS_ROWS = 512  # passes of this many rows or more run oneDNN's products, topped up to a multiple of it
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

    A pass for oneDNN is topped up with zero rows (:func:`_pass_height`), which no real row sees (every step but
    attention works row by row, and attention runs within each sentence): oneDNN keeps a primitive, and memory with
    it, for every matrix shape it meets, so passes of every possible height would grow the process by hundreds of
    MiB over a run."""
    import torch

    lengths = [len(row) for row in rows]
    total = sum(lengths)
    onednn = onednn_available()
    height = _pass_height(total) if onednn else total
    hidden, context = torch.empty(height, encoder.width), torch.empty(height, encoder.width)
    hidden[:total] = _embed(encoder, torch.tensor([t for row in rows for t in row], dtype=torch.long), lengths)
    hidden[total:], context[total:] = 0, 0
    spans = _equal_length_spans(lengths)
    linear = _OneDnnLinear() if onednn and height >= PASS_ROWS else _BlasLinear(height, encoder)
    for layer in encoder.layers:
        qkv, attention_out, up, down = linear.weights(layer)
        _attend(linear.apply(hidden, qkv), spans, encoder.heads, context)
        hidden = _norm(layer.attention_norm, linear.apply(context, attention_out, add=hidden))
        hidden = _norm(layer.output_norm, linear.apply(linear.apply(hidden, up, gelu=True), down, add=hidden))
    return hidden[:total]


def _pass_height(total: int) -> int:
    """``total`` rows topped up to a multiple of :data:`PASS_ROWS` where oneDNN computes the pass; fewer rows
    (a command-line run's first pair, a one-item re-score) are left as they are and run BLAS's products, for which
    reordering every weight would cost more than the faster products save."""
    return -(-total // PASS_ROWS) * PASS_ROWS if total >= PASS_ROWS else total


def onednn_available() -> bool:
    """Whether torch's oneDNN (mkldnn) linear kernels with fused GELU and addition are there: on x86 and ARM builds."""
    import torch

    return torch.backends.mkldnn.is_available() and hasattr(torch.ops.mkldnn, "_linear_pointwise")


def _qkv(layer: PackedLayer) -> tuple[Any, Any]:
    """Query, key and value as one projection (one matrix product instead of three)."""
    import torch

    projections = (layer.query, layer.key, layer.value)
    return torch.cat([weight for weight, _ in projections]), torch.cat([bias for _, bias in projections])


Linear = tuple[Any, Any, Any]  # weight (in the kernel's layout), bias, the buffer to write into or None


class _OneDnnLinear:
    """Linear layers as oneDNN matrix products (faster than MKL's on the AMD EPYC of docs/performance.md), the
    GELU and the residual addition fused into them. A layer's weights are reordered into
    oneDNN's blocked layout once per pass (about 1% of the pass) and never kept: for roberta-large, keeping them
    would double the model's memory."""

    def weights(self, layer: PackedLayer) -> tuple[Linear, ...]:
        import torch

        reorder = torch.ops.mkldnn._reorder_linear_weight
        return tuple((reorder(weight, None), bias, None)
                     for weight, bias in (_qkv(layer), layer.attention_out, layer.up, layer.down))

    def apply(self, x: Any, linear: Linear, *, add: Any = None, gelu: bool = False) -> Any:
        import torch

        weight, bias, _ = linear
        if add is not None:
            return torch.ops.mkldnn._linear_pointwise.binary(x, add, weight, bias, "add")
        return torch.ops.mkldnn._linear_pointwise(x, weight, bias, "gelu" if gelu else "none", [], "none")


class _BlasLinear:
    """Linear layers as BLAS matrix products, each writing into a buffer allocated once per pass (fresh large
    tensors cost a page fault per page on every use): passes under :data:`PASS_ROWS` rows, and where torch has no
    oneDNN."""

    def __init__(self, rows: int, encoder: PackedEncoder) -> None:
        import torch

        width = encoder.width
        self._qkv, self._up, self._out = (torch.empty(rows, n) for n in (3 * width, encoder.intermediate, width))

    def weights(self, layer: PackedLayer) -> tuple[Linear, ...]:
        # the attention output's buffer is free again once its layer norm has read it, before down writes
        return ((*_qkv(layer), self._qkv), (*layer.attention_out, self._out), (*layer.up, self._up),
                (*layer.down, self._out))

    def apply(self, x: Any, linear: Linear, *, add: Any = None, gelu: bool = False) -> Any:
        import torch

        weight, bias, out = linear
        torch.addmm(bias, x, weight.t(), out=out)
        if gelu:
            torch.ops.aten.gelu_(out)
        return out.add_(add) if add is not None else out


def _attend(qkv: Any, spans: list[tuple[int, int, int, int]], heads: int, context: Any) -> None:
    """Self-attention of each run of equal-length sentences into ``context``, as batched matrix products over
    (sentence, head): faster on the CPU than ``scaled_dot_product_attention`` at these short lengths."""
    import torch

    width = context.shape[1]
    head_width = width // heads
    for begin, end, count, length in spans:
        q, k, v = (qkv[begin:end, i * width : (i + 1) * width].view(count, length, heads, head_width)
                   .transpose(1, 2).reshape(count * heads, length, head_width) for i in range(3))
        scores = torch.bmm(q, k.transpose(1, 2)).mul_(head_width**-0.5)
        torch.softmax(scores, -1, out=scores)
        attended = torch.bmm(scores, v).view(count, heads, length, head_width)
        context[begin:end].view(count, length, heads, head_width).copy_(attended.transpose(1, 2))


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
