"""BERT's (and RoBERTa's) forward pass on unpadded tokens, from the weights of :mod:`scoring.metrics.bertscore.weights`.

A pass holds length-sorted sentences packed end to end in one ``(tokens, hidden)`` matrix: every linear layer,
layer norm and activation runs on real tokens only, nearly all of the work. Only self-attention looks across
positions, and runs within each sentence in one of two ways:

* ``spans`` (the CPU's packed batching): per run of equal-length sentences, as batched matrix products, so no
  position is ever padded or masked;
* ``padded`` (the masked batching, for accelerators): per group of similar-length sentences (:func:`fits`),
  padded to the group's longest with the padding masked out, a few kernels per group where equal-length runs
  would launch a few per distinct length. Padding costs only attention's small share of the work.

Linear layers on the CPU are oneDNN's matrix products with the GELU and the residual addition fused in (BLAS's for
passes under :data:`PASS_ROWS` rows and where torch is built without oneDNN); on other devices the device's BLAS.
What is left of an embedding's dependence on the other sentences of its pass is the summation order of matrix
products of other shapes, about 1e-7.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from scoring.metrics.bertscore.weights import Norm, PackedEncoder, PackedLayer

CPU_PASS_TOKENS = 4096  # tokens per CPU pass: enough for efficient matrix products, few enough for the caches
PASS_ROWS = 512  # passes of this many rows or more run oneDNN's products, topped up to a multiple of it
LENGTH_SPREAD = 1.1  # longest / shortest sentence of a padded group (plus two tokens)
ATTENTION_BUDGET = 64 * 512  # padded positions per attention group: bert-score's batch 64 at full length

Attention = Callable[[Any, Any], None]  # (packed query-key-value rows, context rows to write)


def encode_passes(encoder: PackedEncoder, tokens: dict[str, list[int]], budget: int, *,
                  attention: str = "spans") -> dict[str, Any]:
    """Last-layer embeddings per sentence (on the encoder's device): the sentences sorted by token length and
    encoded by :func:`forward` in passes of at most ``budget`` tokens (a longer sentence has a pass of its own)."""
    import torch

    ordered = sorted(tokens, key=lambda s: len(tokens[s]))
    embeddings: dict[str, Any] = {}
    with torch.inference_mode():
        for start, end in token_groups([len(tokens[s]) for s in ordered], budget):
            group = ordered[start:end]
            hidden = forward(encoder, [tokens[s] for s in group], attention=attention)
            embeddings.update(zip(group, torch.split(hidden, [len(tokens[s]) for s in group])))
    return embeddings


def token_groups(lengths: Sequence[int], budget: int) -> list[tuple[int, int]]:
    """(start, end) of consecutive runs of items of these token lengths with at most ``budget`` tokens in all
    (an item longer than that alone)."""
    groups: list[tuple[int, int]] = []
    start = 0
    while start < len(lengths):
        end, used = start, 0
        while end < len(lengths) and (end == start or used + lengths[end] <= budget):
            used += lengths[end]
            end += 1
        groups.append((start, end))
        start = end
    return groups


def forward(encoder: PackedEncoder, rows: Sequence[Sequence[int]], *, attention: str = "spans") -> Any:
    """The encoder's last hidden state for length-sorted sentences (token ids), packed as ``(sum of lengths,
    hidden)`` on the encoder's device; ``attention``: ``spans`` or ``padded`` (see the module).

    A pass for oneDNN is topped up with zero rows (:func:`_pass_height`), which no real row sees (every step but
    attention works row by row, and attention runs within each sentence): oneDNN keeps a primitive, and memory with
    it, for every matrix shape it meets, so passes of every possible height would grow the process by hundreds of
    MiB over a run."""
    import torch

    lengths = [len(row) for row in rows]
    total = sum(lengths)
    device = encoder.device
    onednn = device.type == "cpu" and onednn_available()
    height = _pass_height(total) if onednn else total
    # attention's indices first: built on the host while the device still works on the previous pass
    attend = _span_attention(lengths, encoder.heads) if attention == "spans" else _padded_attention(
        lengths, encoder.heads, device)
    hidden, context = torch.empty(height, encoder.width, device=device), torch.empty(height, encoder.width,
                                                                                    device=device)
    hidden[:total] = _embed(encoder, [t for row in rows for t in row], lengths)
    hidden[total:], context[total:] = 0, 0
    linear = _OneDnnLinear() if onednn and height >= PASS_ROWS else _BlasLinear(height, encoder)
    for layer in encoder.layers:
        qkv, attention_out, up, down = linear.weights(layer)
        attend(linear.apply(hidden, qkv), context)
        hidden = layer_norm(layer.attention_norm, linear.apply(context, attention_out, add=hidden))
        hidden = layer_norm(layer.output_norm, linear.apply(linear.apply(hidden, up, gelu=True), down, add=hidden))
    return hidden[:total]


@contextmanager
def full_float32() -> Iterator[None]:
    """Float32 matrix products in full precision while encoding, whatever the process set: on an accelerator,
    TF32 (``torch.set_float32_matmul_precision("high")``) would move embeddings by about 1e-3, and stored ones
    with them, with no error."""
    import torch

    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("highest")
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(previous)


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
    """Linear layers as BLAS matrix products (the device's), each writing into a buffer allocated once per pass
    (fresh large tensors cost a page fault per page on every use): on accelerators, passes under
    :data:`PASS_ROWS` rows, and where torch has no oneDNN."""

    def __init__(self, rows: int, encoder: PackedEncoder) -> None:
        import torch

        width, device = encoder.width, encoder.device
        self._qkv, self._up, self._out = (torch.empty(rows, n, device=device)
                                          for n in (3 * width, encoder.intermediate, width))

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


def _span_attention(lengths: list[int], heads: int) -> Attention:
    """Self-attention of each run of equal-length sentences, as batched matrix products over (sentence, head):
    faster on the CPU than ``scaled_dot_product_attention`` at these short lengths."""
    import torch

    spans = _equal_length_spans(lengths)

    def attend(qkv: Any, context: Any) -> None:
        width = context.shape[1]
        head_width = width // heads
        for begin, end, count, length in spans:
            q, k, v = (qkv[begin:end, i * width : (i + 1) * width].view(count, length, heads, head_width)
                       .transpose(1, 2).reshape(count * heads, length, head_width) for i in range(3))
            scores = torch.bmm(q, k.transpose(1, 2)).mul_(head_width**-0.5)
            torch.softmax(scores, -1, out=scores)
            attended = torch.bmm(scores, v).view(count, heads, length, head_width)
            context[begin:end].view(count, length, heads, head_width).copy_(attended.transpose(1, 2))

    return attend


def _padded_attention(lengths: list[int], heads: int, device: Any) -> Attention:
    """Self-attention of each group of similar-length sentences (:func:`similar_length_groups`), gathered into a
    padded ``(sentences, longest)`` batch, the padding masked out of the keys (no mask where a group has no padding),
    and the real positions scattered back. The gathers' indices and the additive masks are built once per pass, on
    the host, and reach the device in two copies used by every layer; each mask's rows are laid out a multiple of 8
    positions apart, so attention kernels that need aligned masks take it as it is rather than padding it per layer."""
    import torch
    import torch.nn.functional as F

    counts = torch.tensor(lengths, dtype=torch.long)
    starts = torch.cumsum(counts, 0) - counts
    shapes, indices, masks = [], [], []
    for first, last in similar_length_groups(lengths, ATTENTION_BUDGET):
        longest, count, begin = lengths[last - 1], last - first, int(starts[first])
        real = torch.arange(longest)[None, :] < counts[first:last, None]
        indices += [begin + padded_index(counts[first:last]), real.reshape(-1).nonzero().squeeze(1)]
        aligned = -(-longest // 8) * 8
        padded = lengths[first] != longest
        if padded:
            mask = torch.full((count, aligned), -torch.inf)
            mask[:, :longest].masked_fill_(real, 0.0)
            masks.append(mask.reshape(-1))
        shapes.append((begin, begin + int(counts[first:last].sum()), count, longest, aligned if padded else 0))
    index_parts = torch.split(torch.cat(indices).to(device), [len(i) for i in indices])
    mask_parts = iter(torch.split(torch.cat(masks).to(device), [len(m) for m in masks]) if masks else ())
    groups = [(begin, end, count, longest, index_parts[2 * i], index_parts[2 * i + 1],
               next(mask_parts).view(count, 1, 1, aligned)[..., :longest] if aligned else None)
              for i, (begin, end, count, longest, aligned) in enumerate(shapes)]

    def attend(qkv: Any, context: Any) -> None:
        width = context.shape[1]
        for begin, end, count, longest, gather, keep, mask in groups:
            q, k, v = qkv.index_select(0, gather).view(count, longest, 3, heads, width // heads).permute(2, 0, 3, 1, 4)
            attended = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            torch.index_select(attended.transpose(1, 2).reshape(count * longest, width), 0, keep,
                               out=context[begin:end])

    return attend


def padded_index(lengths: Any) -> Any:
    """For rows of these ``lengths`` (a tensor) packed end to end, the packed row each position of the padded
    ``(rows, longest)`` layout reads: a padded position repeats its row's last real one, which whoever reads the
    layout masks out."""
    import torch

    starts = torch.cumsum(lengths, 0) - lengths
    position = torch.arange(int(lengths.max()), device=lengths.device)[None, :]
    return (starts[:, None] + torch.minimum(position, lengths[:, None] - 1)).reshape(-1)


def similar_length_groups(lengths: Sequence[int], budget: int) -> list[tuple[int, int]]:
    """(first, last) of consecutive runs of length-sorted sentences that :func:`fits` one padded batch."""
    groups: list[tuple[int, int]] = []
    start = 0
    while start < len(lengths):
        end = start + 1
        while end < len(lengths) and fits(end + 1 - start, lengths[start], lengths[end], budget):
            end += 1
        groups.append((start, end))
        start = end
    return groups


def fits(count: int, shortest: int, longest: int, budget: int) -> bool:
    """Whether ``count`` length-sorted sentences from ``shortest`` to ``longest`` tokens make one padded batch:
    at most ``budget`` padded positions, and no sentence padded by more than ``LENGTH_SPREAD`` (real answers have a
    long tail of lengths: by the budget alone a third of a batch's positions would be padding, 7% with the spread)."""
    return count * longest <= budget and longest <= shortest * LENGTH_SPREAD + 2


def _embed(encoder: PackedEncoder, ids: list[int], lengths: list[int]) -> Any:
    """Word + token type 0 + absolute position embeddings, normalised, for packed sentences."""
    import torch
    import torch.nn.functional as F

    device = encoder.device
    positions = (torch.cat([torch.arange(n) for n in lengths]) + encoder.position_offset).to(device)
    total = F.embedding(torch.tensor(ids, dtype=torch.long).to(device), encoder.words) + encoder.token_type
    total = total + F.embedding(positions, encoder.positions)
    return layer_norm(encoder.embedding_norm, total)


def layer_norm(norm: Norm, x: Any) -> Any:
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
