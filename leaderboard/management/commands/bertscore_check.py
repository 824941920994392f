"""Check a local BERTScore model directory the way the workers will use it, and print its signature."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services.shared.scorers import scoring_options
from scoring.engine import Scorer
from scoring.metrics.base import ScoringContext
from scoring.metrics.bertscore import (
    OUTPUTS,
    BertScore,
    BertScoreConfig,
    BertScoreUnavailable,
    load_scorer,
    resolved_batching,
)
from scoring.specs import get_benchmark
from scoring.task_types import Prediction, Reference

KNOWN = ("A slow acoustic guitar ballad with soft female vocals.",
         "A mellow song with acoustic guitar and a female singer.")
MODEL_FILES = ("config.json",)
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


class Command(BaseCommand):
    help = ("Load the configured BERTScore model once on its device, score a known pair, and print the "
            "signature the site's BERTScore columns will carry. --model/--layer check a directory before "
            "it is configured (SCORING_BERTSCORE_MODEL / SCORING_BERTSCORE_LAYER).")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--model", help="a local model directory (default: the configured one)")
        parser.add_argument("--layer", type=int, help="the layer to use (17 for roberta-large, as the papers)")
        parser.add_argument("--name", help="the model's name in signatures (default: the directory's name)")
        parser.add_argument("--device",
                            help="cpu, cuda, cuda:0 (default: SCORING_BERTSCORE_DEVICE, else as bert-score picks)")

    def handle(self, *args: Any, model: str | None, layer: int | None, name: str | None, device: str | None,
               **options: Any) -> None:
        config = self._config(model, layer, name, device)
        start = time.perf_counter()
        try:
            scorer = load_scorer(config)
        except (BertScoreUnavailable, OSError, ValueError) as exc:
            raise CommandError(f"cannot load {config.model_path}: {exc}") from exc
        loaded = time.perf_counter() - start
        references = [Reference("known", 1, {}, (KNOWN[1],)), Reference("same", 2, {}, (KNOWN[0],))]
        predictions = [Prediction("known", 1, text=KNOWN[0]), Prediction("same", 2, text=KNOWN[0])]
        context = ScoringContext(bertscore=config)
        values = BertScore({}, context).score(references, predictions, OUTPUTS)
        if abs(values["f1"].values[1] - 1.0) > 1e-4:
            raise CommandError(f"a sentence against itself scored F1 {values['f1'].values[1]:.6f}, not 1: "
                               "the model or layer is wrong")
        device_used = next(scorer._model.parameters()).device
        self.stdout.write(f"model directory: {config.model_path}")
        self.stdout.write(f"loaded on {device_used} in {loaded:.1f} s; layer {config.num_layers}; "
                          f"batching {resolved_batching(config)}")
        self.stdout.write("known pair: " + "  ".join(f"{k} {values[k].values[0]:.6f}" for k in OUTPUTS))
        signature = Scorer(get_benchmark("musiccaps"), references, context=context).signature("bertscore_f1")
        self.stdout.write(f"signature: {signature}")

    def _config(self, model: str | None, layer: int | None, name: str | None, device: str | None) -> BertScoreConfig:
        if model is None:
            config = scoring_options().bertscore_config()
            if config is None:
                raise CommandError("BERTScore is disabled in this deployment's settings")
        else:
            directory = Path(model)
            if not directory.is_dir():
                raise CommandError(f"{model} is not a directory")
            missing = [f for f in MODEL_FILES if not (directory / f).is_file()]
            if missing or not any((directory / f).is_file() for f in WEIGHT_FILES):
                raise CommandError(f"{model} lacks {', '.join(missing) or 'model weights'} "
                                   f"(expected config.json, tokenizer files and {' or '.join(WEIGHT_FILES)})")
            if layer is None:
                raise CommandError("--layer is required with --model (17 for roberta-large)")
            config = BertScoreConfig(str(directory), name or directory.name, layer)
        return dataclasses.replace(config, device=device or config.device)
