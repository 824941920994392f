"""Batch-invariant BERTScore for accelerators: large length-sorted batches, padding masked out.

The CPU's fixed-height unpadded batches (:func:`scoring.metrics.bertscore.family.unpadded_scores`) make
thousands of tiny batches, and a GPU then idles (0.1x bert-score's own throughput on an H100). Here
sentences are sorted by token length and encoded in batches of up to ``token_budget`` tokens: from the
checkpoint's weights, packed without padding and attending in masked groups of similar lengths
(:mod:`scoring.metrics.bertscore.forward`); with any other model, padded to the batch's longest sentence
with an attention mask. Pairs are matched in large padded batches where padded positions are
*excluded* from the greedy max (bert-score multiplies them to a similarity of 0, which wins the max
whenever a token's true similarities are negative — the source of its batch dependence). What is
left of a value's dependence on its neighbours is floating-point summation order inside the
encoder, about 1e-7: every value equals bert-score's value for that pair scored on its own to 1e-6,
whatever the order, chunk size or neighbours. The matching and the best-reference step here are
shared with the CPU's packed encoder (:mod:`scoring.metrics.bertscore.packed`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scoring.metrics.bertscore.forward import (
    CPU_PASS_TOKENS,
    encode_passes,
    full_float32,
    padded_index,
    similar_length_groups,
    token_groups,
)
from scoring.metrics.bertscore.store import EmbeddingStore, encode_with_store, encoder_fingerprint
from scoring.metrics.bertscore.weights import PackedEncoder

TOKEN_BUDGET = 64 * 512  # tokens per encoder batch off the CPU: bert-score's batch 64 at full length
PAIR_BATCH = 256  # pairs per greedy-matching batch
UNIT_GROUP_TOKENS = 4096  # token embeddings normalised together
MASKED_SIMILARITY = -2.0  # below any cosine similarity; finite so that 0-weight positions stay 0


def masked_scores(
    scorer: Any,
    pairs: Sequence[tuple[str, tuple[str, ...]]],
    idf: Any,
    *,
    token_budget: int = TOKEN_BUDGET,
    pair_batch: int = PAIR_BATCH,
    store: EmbeddingStore | None = None,
    tokens: dict[str, list[int]] | None = None,
) -> list[tuple[float, float, float]]:
    """(P, R, F) per (candidate, references) pair, best reference per component, as bert-score
    scores each pair alone; rescaled with the scorer's baseline when it has one. With a ``store``,
    reference embeddings are read from it where it has them and written to it where not. ``tokens``:
    the pairs' :func:`sentence_tokens`, when the caller has them already."""
    if tokens is None:
        tokens = sentence_tokens(scorer._tokenizer, pairs)
    embeddings = masked_embeddings(scorer, tokens, reference_sentences(pairs), store, token_budget)
    return values_per_pair(scorer, pairs, embeddings, tokens, idf, pair_batch=pair_batch)


def masked_embeddings(
    scorer: Any,
    tokens: dict[str, list[int]],
    keep: Sequence[str],
    store: EmbeddingStore | None = None,
    token_budget: int = TOKEN_BUDGET,
) -> dict[str, Any]:
    """Last-layer embeddings of every sentence of ``tokens`` (:func:`sentence_tokens`) from masked length-sorted
    batches; with a ``store``, those of ``keep`` (the references) are read from it or written to it."""
    tokenizer, model = scorer._tokenizer, scorer._model
    fingerprint = encoder_fingerprint(model, "masked") if store is not None else ""
    with full_float32():
        if isinstance(model, PackedEncoder):
            return encode_with_store(store, fingerprint, tokens, keep, model.width, model.device,
                                     lambda todo: checkpoint_encode(model, todo, token_budget))
        device = next(model.parameters()).device
        return encode_with_store(store, fingerprint, tokens, keep, model.config.hidden_size, device,
                                 lambda todo: encode(model, tokenizer, todo, device, token_budget))


def reference_sentences(pairs: Sequence[tuple[str, tuple[str, ...]]]) -> list[str]:
    """The distinct reference sentences of the pairs, in order."""
    return list(dict.fromkeys(r for _, refs in pairs for r in refs))


def sentence_tokens(tokenizer: Any, pairs: Sequence[tuple[str, tuple[str, ...]]]) -> dict[str, list[int]]:
    """bert-score's token ids (``sent_encode``) of every distinct sentence of the pairs.

    ``sent_encode`` calls the tokenizer once per sentence (about 0.2 ms each); where it takes its plain
    branch (not GPT-2's or RoBERTa's, which add a prefix space), the same call is made once for all the
    non-empty sentences, which the fast tokenizer splits across threads: the same ids."""
    return tokens_of(tokenizer, list(dict.fromkeys([c for c, _ in pairs] + [r for _, refs in pairs for r in refs])))


def tokens_of(tokenizer: Any, sentences: Sequence[str]) -> dict[str, list[int]]:
    """bert-score's token ids of each of these distinct sentences (see :func:`sentence_tokens`)."""
    from bert_score.utils import GPT2Tokenizer, RobertaTokenizer, sent_encode

    if isinstance(tokenizer, (GPT2Tokenizer, RobertaTokenizer)) or not getattr(tokenizer, "is_fast", False):
        return {s: sent_encode(tokenizer, s) for s in sentences}  # load_scorer restored its empty-sentence path
    stripped = [s.strip() for s in sentences]
    text = [s for s in stripped if s]
    ids = iter(tokenizer(text, add_special_tokens=True, max_length=tokenizer.model_max_length,
                         truncation=True)["input_ids"] if text else [])
    return {s: next(ids) if t else sent_encode(tokenizer, s) for s, t in zip(sentences, stripped)}


def values_per_pair(
    scorer: Any,
    pairs: Sequence[tuple[str, tuple[str, ...]]],
    embeddings: dict[str, Any],
    tokens: dict[str, list[int]],
    idf: Any,
    *,
    pair_batch: int = PAIR_BATCH,
) -> list[tuple[float, float, float]]:
    """(P, R, F) per pair from its sentences' embeddings: each distinct (candidate, reference) matched
    once in length-sorted batches, then the best reference per component."""
    import torch

    weights = idf if idf is not None else uniform_idf(scorer._tokenizer)
    flat = list(dict.fromkeys((c, r) for c, refs in pairs for r in refs))
    flat.sort(key=lambda pair: (len(tokens[pair[0]]), len(tokens[pair[1]])))
    weight_rows = {s: torch.tensor([weights[t] for t in tokens[s]], dtype=torch.float) for s in tokens}
    unit = unit_embeddings(embeddings)
    dtype = matching_dtype(next(iter(unit.values())).device) if unit else torch.float
    parts = [
        match(flat[start : start + pair_batch], unit, weight_rows, dtype)
        for start in range(0, len(flat), pair_batch)
    ]
    values = torch.cat(parts).cpu() if parts else torch.zeros(0, 3)  # one wait for the device, not one per batch
    return best_per_pair(scorer, pairs, {pair: i for i, pair in enumerate(flat)}, values)


def unit_embeddings(embeddings: dict[str, Any], group_tokens: int = UNIT_GROUP_TOKENS) -> dict[str, Any]:
    """Each sentence's token embeddings normalised to unit length, once per sentence rather than once per
    pair it is matched in, a group of sentences of up to ``group_tokens`` tokens at a time: a few kernels per
    group on an accelerator rather than three per sentence, and on the CPU small matrices that stay in the
    caches (one matrix of every token took three times as long, most of it faulting in fresh pages)."""
    import torch

    unit: dict[str, Any] = {}
    items = list(embeddings.items())
    with torch.inference_mode():
        for start, end in token_groups([len(e) for _, e in items], group_tokens):
            group = items[start:end]
            stacked = torch.cat([e for _, e in group])
            stacked = stacked / torch.norm(stacked, dim=-1).unsqueeze(-1)
            unit.update(zip([s for s, _ in group], torch.split(stacked, [len(e) for _, e in group])))
    return unit


def best_per_pair(
    scorer: Any, pairs: Sequence[tuple[str, tuple[str, ...]]], index: dict[tuple[str, str], int], values: Any
) -> list[tuple[float, float, float]]:
    """(P, R, F) per pair from per-(candidate, reference) rows ``values[index[(c, r)]]``: the best
    reference per component, as bert-score takes it, rescaled with the scorer's baseline when it has one."""
    import torch

    if not pairs:
        return []
    counts = [len(refs) for _, refs in pairs]
    if min(counts) < 1:
        raise ValueError("every BERTScore pair needs at least one reference")
    rows = values[torch.tensor([index[(c, r)] for c, refs in pairs for r in refs], dtype=torch.long)]
    if max(counts) == 1:
        best = rows
    else:
        owner = torch.repeat_interleave(torch.arange(len(pairs)), torch.tensor(counts))
        best = torch.full((len(pairs), 3), -torch.inf, dtype=rows.dtype)
        best = best.scatter_reduce(0, owner[:, None].expand(-1, 3), rows, reduce="amax")
    if scorer.rescale_with_baseline:
        best = (best - scorer.baseline_vals) / (1 - scorer.baseline_vals)
    return [(p, r, f) for p, r, f in best.tolist()]


def encode(model: Any, tokenizer: Any, tokens: dict[str, list[int]], device: Any, budget: int) -> dict[str, Any]:
    """Last-layer embeddings per sentence (on the model's device), from length-sorted masked batches."""
    import torch
    from bert_score.utils import bert_encode, padding

    embeddings: dict[str, Any] = {}
    for group in length_batches(tokens, budget):
        ids, lengths, mask = padding([tokens[s] for s in group], tokenizer.pad_token_id, dtype=torch.long)
        encoded = bert_encode(model, ids.to(device), attention_mask=mask.to(device))
        for sentence, row, n in zip(group, encoded, lengths.tolist()):
            embeddings[sentence] = row[:n]
    return embeddings


def length_batches(tokens: dict[str, list[int]], budget: int) -> list[list[str]]:
    """The sentences sorted by token length, cut into encoder batches
    (:func:`~scoring.metrics.bertscore.forward.similar_length_groups`)."""
    ordered = sorted(tokens, key=lambda s: len(tokens[s]))
    return [ordered[first:last] for first, last in similar_length_groups([len(tokens[s]) for s in ordered], budget)]


def checkpoint_encode(encoder: PackedEncoder, tokens: dict[str, list[int]], budget: int) -> dict[str, Any]:
    """Last-layer embeddings per sentence (on the encoder's device) from the checkpoint's weights
    (:mod:`scoring.metrics.bertscore.weights`; no transformers model is built, which in a fresh worker costs more
    than scoring a chunk on an accelerator): length-sorted passes of up to ``budget`` tokens, every linear layer on
    real tokens only, attention in padded groups of similar lengths
    (:func:`~scoring.metrics.bertscore.forward.forward`); on the CPU, passes of at most
    :data:`~scoring.metrics.bertscore.forward.CPU_PASS_TOKENS` (larger ones leave the caches: 1.5x the time)."""
    if encoder.device.type == "cpu":
        budget = min(budget, CPU_PASS_TOKENS)
    return encode_passes(encoder, tokens, budget, attention="padded")


def matching_dtype(device: Any) -> Any:
    """The precision of the greedy matching: float32 on the CPU, as bert-score; float64 on an accelerator,
    whose float32 batched products change kernels (and summation order) with the batch's shape: with
    roberta-large's 1,024-wide embeddings that moved a short output's precision by up to 1.4e-6 from
    bert-score on the pair alone on an H200, and float64 costs little at this step."""
    import torch

    return torch.float32 if device.type == "cpu" else torch.float64


def match(group: list[tuple[str, str]], unit: dict[str, Any], weight_rows: dict[str, Any], dtype: Any) -> Any:
    """bert-score's ``greedy_cos_idf`` on one padded batch of (candidate, reference) pairs, from their
    sentences' embeddings normalised to unit length (``unit``), padded positions excluded from the max,
    similarities in ``dtype``; (P, R, F) rows on the embeddings' device."""
    import torch
    from torch.nn.utils.rnn import pad_sequence

    hyp_len = torch.tensor([len(weight_rows[c]) for c, _ in group])
    ref_len = torch.tensor([len(weight_rows[r]) for _, r in group])
    hyp = padded_rows([unit[c] for c, _ in group], hyp_len).to(dtype)
    ref = padded_rows([unit[r] for _, r in group], ref_len).to(dtype)
    device = hyp.device
    hyp_len, ref_len = hyp_len.to(device), ref_len.to(device)
    hyp_mask = torch.arange(hyp.shape[1], device=device)[None, :] < hyp_len[:, None]
    ref_mask = torch.arange(ref.shape[1], device=device)[None, :] < ref_len[:, None]
    hyp_idf = pad_sequence([weight_rows[c] for c, _ in group], batch_first=True).to(device)
    ref_idf = pad_sequence([weight_rows[r] for _, r in group], batch_first=True).to(device)
    with torch.inference_mode():
        sim = torch.bmm(hyp, ref.transpose(1, 2))
        valid = hyp_mask[:, :, None] & ref_mask[:, None, :]
        sim = sim.masked_fill(~valid, MASKED_SIMILARITY)
        word_precision = sim.max(dim=2)[0].masked_fill(~hyp_mask, 0.0)
        word_recall = sim.max(dim=1)[0].masked_fill(~ref_mask, 0.0)
        hyp_idf = hyp_idf / hyp_idf.sum(dim=1, keepdim=True)
        ref_idf = ref_idf / ref_idf.sum(dim=1, keepdim=True)
        p = (word_precision * hyp_idf).sum(dim=1)
        r = (word_recall * ref_idf).sum(dim=1)
        f = 2 * p * r / (p + r)
        empty = (hyp_len == 2) | (ref_len == 2)  # only [CLS] [SEP]: bert-score sets P and R to 0
        p = p.masked_fill(empty, 0.0)
        r = r.masked_fill(empty, 0.0)
        f = f.masked_fill(torch.isnan(f), 0.0)
    return torch.stack((p, r, f), dim=-1)


def padded_rows(rows: Sequence[Any], lengths: Any) -> Any:
    """Sentences' token rows in one padded ``(sentences, longest, width)`` batch, each padded by repeating its last
    row (the caller masks padding out): one concatenation and one gather, where padding sentence by sentence costs
    a copy, and on an accelerator a kernel launch, per sentence."""
    import torch

    flat = torch.cat(list(rows))
    return flat.index_select(0, padded_index(lengths).to(flat.device)).view(len(rows), int(lengths.max()), -1)


def uniform_idf(tokenizer: Any) -> Any:
    """bert-score's weights without idf: 1 for every token, 0 for the [CLS] and [SEP] markers."""
    from collections import defaultdict

    weights: defaultdict[int, float] = defaultdict(lambda: 1.0)
    weights[tokenizer.sep_token_id] = 0.0
    weights[tokenizer.cls_token_id] = 0.0
    return weights
