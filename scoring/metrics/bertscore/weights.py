"""The packed encoder's weights: a BERT or RoBERTa encoder's tensors, as the CPU's packed batching computes with them.

They come either from a loaded transformers model (sharing its tensors) or straight from the model directory's
``model.safetensors``: building the transformers model first imports its model classes, about 3 s of a fresh
process (a command-line run or a worker's first chunk) for 0.4 s of reading weights. Both give the same tensors
(the checkpoint's float32 values), so the same embeddings to the bit, and the same store fingerprint.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

PACKED_MODELS = {"bert": 0, "roberta": 1}  # 1: positions counted from padding_idx + 1
CHECKPOINT = "model.safetensors"


@dataclass(frozen=True)
class Norm:
    """A layer norm's weight, bias and epsilon."""

    weight: Any
    bias: Any
    eps: float


@dataclass(frozen=True)
class PackedLayer:
    """One encoder layer: query, key and value projections, attention output, feed-forward up and down."""

    query: tuple[Any, Any]  # (weight, bias)
    key: tuple[Any, Any]
    value: tuple[Any, Any]
    attention_out: tuple[Any, Any]
    attention_norm: Norm
    up: tuple[Any, Any]
    down: tuple[Any, Any]
    output_norm: Norm


@dataclass(frozen=True)
class PackedEncoder:
    """A BERT or RoBERTa encoder (absolute positions, GELU) truncated to the layers bert-score keeps."""

    model_type: str
    heads: int
    width: int
    intermediate: int
    position_offset: int
    words: Any
    positions: Any
    token_type: Any  # token type 0's embedding
    embedding_norm: Norm
    layers: tuple[PackedLayer, ...]

    def description(self) -> dict[str, Any]:
        """Everything but the tensors that the packed forward pass depends on."""
        return {"model_type": self.model_type, "heads": self.heads, "width": self.width,
                "intermediate": self.intermediate, "position_offset": self.position_offset,
                "layers": len(self.layers),
                "eps": [self.embedding_norm.eps, *((x.attention_norm.eps, x.output_norm.eps) for x in self.layers)]}

    @property
    def device(self) -> Any:
        """Where its tensors are."""
        return self.words.device

    def to(self, device: Any) -> PackedEncoder:
        """The same encoder with every tensor on ``device`` (itself where they are there already)."""
        import torch

        if self.words.device == torch.device(device):
            return self

        def moved(part: Any) -> Any:
            if isinstance(part, torch.Tensor):
                return part.to(device)
            if isinstance(part, tuple):
                return tuple(moved(p) for p in part)
            if isinstance(part, (Norm, PackedLayer)):
                return replace(part, **{f.name: moved(getattr(part, f.name)) for f in fields(part)})
            return part

        return replace(self, **{f.name: moved(getattr(self, f.name)) for f in fields(self)})

    def named_tensors(self) -> Iterator[tuple[str, Any]]:
        """Every tensor the forward pass reads, in a fixed order."""
        yield from (("words", self.words), ("positions", self.positions), ("token_type", self.token_type))
        yield from (("embedding_norm.weight", self.embedding_norm.weight), ("embedding_norm.bias",
                                                                              self.embedding_norm.bias))
        for i, layer in enumerate(self.layers):
            for name in ("query", "key", "value", "attention_out", "up", "down"):
                weight, bias = getattr(layer, name)
                yield from ((f"{i}.{name}.weight", weight), (f"{i}.{name}.bias", bias))
            for name in ("attention_norm", "output_norm"):
                norm = getattr(layer, name)
                yield from ((f"{i}.{name}.weight", norm.weight), (f"{i}.{name}.bias", norm.bias))


def packed_supported(model: Any) -> bool:
    """A BERT or RoBERTa transformers model on the CPU with absolute positions and GELU: what the packed
    encoder computes."""
    return _config_supported(model.config) and next(model.parameters()).device.type == "cpu"


def _config_supported(config: Any) -> bool:
    return (
        config.model_type in PACKED_MODELS
        and getattr(config, "position_embedding_type", "absolute") == "absolute"
        and config.hidden_act == "gelu"
        and not config.is_decoder
        and not getattr(config, "add_cross_attention", False)
    )


def from_module(model: Any) -> PackedEncoder:
    """The packed encoder of a loaded transformers BERT or RoBERTa model (:func:`packed_supported`), sharing its
    tensors."""
    config = model.config
    embeddings = model.embeddings
    offset = embeddings.padding_idx + 1 if PACKED_MODELS[config.model_type] else 0

    def linear(module: Any) -> tuple[Any, Any]:
        return module.weight, module.bias

    def norm(module: Any) -> Norm:
        return Norm(module.weight, module.bias, float(module.eps))

    layers = tuple(
        PackedLayer(
            query=linear(layer.attention.self.query), key=linear(layer.attention.self.key),
            value=linear(layer.attention.self.value), attention_out=linear(layer.attention.output.dense),
            attention_norm=norm(layer.attention.output.LayerNorm), up=linear(layer.intermediate.dense),
            down=linear(layer.output.dense), output_norm=norm(layer.output.LayerNorm),
        )
        for layer in model.encoder.layer
    )
    return PackedEncoder(config.model_type, config.num_attention_heads, config.hidden_size, config.intermediate_size,
                         offset, embeddings.word_embeddings.weight, embeddings.position_embeddings.weight,
                         embeddings.token_type_embeddings.weight[0], norm(embeddings.LayerNorm), layers)


def from_checkpoint(model_path: str, num_layers: int) -> PackedEncoder | None:
    """The packed encoder read from ``model_path``'s single ``model.safetensors``, truncated to ``num_layers`` as
    bert-score truncates the model; ``None`` unless that is plainly what ``AutoModel.from_pretrained`` would load:
    a BERT or RoBERTa configuration the packed encoder computes, neither quantised nor naming a dtype other than
    float32, every floating-point tensor of the file in float32 (transformers takes the file's first as the
    model's dtype), each tensor under one name only (with or without the ``bert.`` / ``roberta.`` prefix, no
    legacy ``gamma`` / ``beta``), and a layer count the model has."""
    from safetensors import safe_open
    from transformers import AutoConfig

    path = Path(model_path)
    if not (path / CHECKPOINT).is_file() or model_path.startswith("scibert") or "t5" in model_path:
        return None  # bert-score's get_model takes other branches for those names
    config = AutoConfig.from_pretrained(model_path)
    if not _config_supported(config) or not 0 <= num_layers <= config.num_hidden_layers or not _float32(config):
        return None
    with safe_open(str(path / CHECKPOINT), framework="pt") as checkpoint:
        names = set(checkpoint.keys())
        if any(checkpoint.get_slice(n).get_dtype() in _OTHER_FLOATS for n in names) or _renamed(names):
            return None
        wanted = _wanted(names, config.model_type, num_layers)
        if wanted is None:
            return None
        tensors = {name: checkpoint.get_tensor(stored) for name, stored in wanted.items()}
    import torch

    if any(t.dtype != torch.float32 for t in tensors.values()):
        return None
    return _assemble(config, tensors, num_layers)


_OTHER_FLOATS = {"F16", "BF16", "F64", "F8_E4M3", "F8_E5M2"}  # safetensors' names of floating dtypes but float32


def _renamed(names: set[str]) -> bool:
    """Whether transformers would rename keys on loading (legacy layer-norm names), or pick among copies."""
    return any(n.endswith((".gamma", ".beta")) for n in names)


def _wanted(names: set[str], model_type: str, num_layers: int) -> dict[str, str] | None:
    """Each tensor the packed encoder reads -> its name in the file, or ``None`` if one is missing or stored twice
    (with and without the model-type prefix)."""
    wanted = {}
    for name in _tensor_names(num_layers):
        stored = [n for n in (name, f"{model_type}.{name}") if n in names]
        if len(stored) != 1:
            return None
        wanted[name] = stored[0]
    return wanted


def _float32(config: Any) -> bool:
    """Whether ``from_pretrained`` loads this model in float32, unquantised: it casts the weights to the
    configuration's dtype where one is named."""
    named = getattr(config, "dtype", None) or getattr(config, "torch_dtype", None)
    unnamed_or_float32 = named is None or str(named).removeprefix("torch.") == "float32"
    return unnamed_or_float32 and getattr(config, "quantization_config", None) is None


def _tensor_names(num_layers: int) -> list[str]:
    names = [f"embeddings.{n}" for n in ("word_embeddings.weight", "position_embeddings.weight",
                                         "token_type_embeddings.weight", "LayerNorm.weight", "LayerNorm.bias")]
    for i in range(num_layers):
        for module in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                       "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"):
            names += [f"encoder.layer.{i}.{module}.weight", f"encoder.layer.{i}.{module}.bias"]
    return names


def _assemble(config: Any, tensors: dict[str, Any], num_layers: int) -> PackedEncoder:
    eps = float(config.layer_norm_eps)

    def linear(name: str) -> tuple[Any, Any]:
        return tensors[f"{name}.weight"], tensors[f"{name}.bias"]

    def norm(name: str) -> Norm:
        return Norm(tensors[f"{name}.weight"], tensors[f"{name}.bias"], eps)

    layers = []
    for i in range(num_layers):
        at = f"encoder.layer.{i}"
        layers.append(PackedLayer(
            query=linear(f"{at}.attention.self.query"), key=linear(f"{at}.attention.self.key"),
            value=linear(f"{at}.attention.self.value"), attention_out=linear(f"{at}.attention.output.dense"),
            attention_norm=norm(f"{at}.attention.output.LayerNorm"), up=linear(f"{at}.intermediate.dense"),
            down=linear(f"{at}.output.dense"), output_norm=norm(f"{at}.output.LayerNorm"),
        ))
    offset = config.pad_token_id + 1 if PACKED_MODELS[config.model_type] else 0
    return PackedEncoder(config.model_type, config.num_attention_heads, config.hidden_size, config.intermediate_size,
                         offset, tensors["embeddings.word_embeddings.weight"],
                         tensors["embeddings.position_embeddings.weight"],
                         tensors["embeddings.token_type_embeddings.weight"][0], norm("embeddings.LayerNorm"),
                         tuple(layers))


@dataclass(frozen=True)
class CheckpointScorer:
    """What the packed batching reads of a ``bert_score.BERTScorer`` (under the same attribute names): its
    tokenizer and, in place of the model, the encoder read from the checkpoint; no baseline rescaling."""

    _tokenizer: Any
    _model: PackedEncoder
    rescale_with_baseline: bool = False
    baseline_vals: Any = None
