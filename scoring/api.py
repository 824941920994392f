"""The public entry points: build a scorer from options, score runs, score files.

>>> from scoring import score_files
>>> report = score_files("jamendo-mt-qa", "refs.jsonl", ["run1.jsonl"], ScoringOptions(bertscore=False))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from scoring.engine import ProgressCallback, RunScores, Scorer, ScoreReport
from scoring.metrics import ScoringContext
from scoring.metrics.bertscore import BertScoreConfig
from scoring.reading.validation import load_predictions, load_references
from scoring.specs import BenchmarkSpec, get_benchmark
from scoring.task_types import Prediction, Reference


@dataclass(frozen=True)
class ScoringOptions:
    """How to score. ``bertscore=False`` skips BERTScore; a model directory and layer
    replace the default all-MiniLM-L6-v2 (environment: ``SCORING_BERTSCORE_*``)."""

    profile: str | None = None
    bertscore: bool = True
    bertscore_model: str | None = None
    bertscore_layer: int | None = None
    bertscore_model_name: str | None = None
    bertscore_store: str | None = None  # SQLite file of reference embeddings; "": none; None: the environment
    seed: int = 0
    n_bootstrap: int = 1000
    chunk_size: int = 2000
    judges_file: str | None = None
    judge_cache: str | None = None

    def bertscore_config(self) -> BertScoreConfig | None:
        if not self.bertscore:
            return None
        env = {}
        if self.bertscore_model:
            env["SCORING_BERTSCORE_MODEL"] = self.bertscore_model
            if self.bertscore_layer is not None:
                env["SCORING_BERTSCORE_LAYER"] = str(self.bertscore_layer)
            if self.bertscore_model_name:
                env["SCORING_BERTSCORE_MODEL_NAME"] = self.bertscore_model_name
            config = BertScoreConfig.from_env(env)
        else:
            config = BertScoreConfig.from_env()
        if self.bertscore_store is None:  # the environment decides (SCORING_BERTSCORE_STORE)
            return config
        return replace(config, store_path=self.bertscore_store or None)


def build_scorer(
    spec: BenchmarkSpec,
    references: Sequence[Reference],
    options: ScoringOptions,
    *,
    context: ScoringContext | None = None,
) -> Scorer:
    """A :class:`Scorer` whose context carries the BERTScore model the options name."""
    context = context or ScoringContext()
    if context.bertscore is None:
        context.bertscore = options.bertscore_config()
    if options.judges_file and not context.judges:
        context.judges, context.judge_serves = _judges(options)
    return Scorer(spec, references, profile=options.profile, context=context)


def _judges(options: ScoringOptions) -> tuple[dict[str, Any], dict[str, Any]]:
    from scoring.judge.cache import SQLiteCache
    from scoring.judge.config import load_judge_settings

    settings = load_judge_settings(str(options.judges_file))
    path = Path(options.judge_cache or Path.home() / ".cache" / "music-scoring" / "judge-replies.sqlite")
    path.parent.mkdir(parents=True, exist_ok=True)
    return settings.build(SQLiteCache(path)), dict(settings.serves)


def score_runs(
    scorer: Scorer,
    runs: Sequence[Sequence[Prediction]],
    options: ScoringOptions,
    *,
    progress: ProgressCallback | None = None,
) -> tuple[ScoreReport, list[RunScores]]:
    """Score every run; ``progress(done, total)`` counts items over all runs."""
    total = len(scorer.references) * len(runs)
    results = []
    for number, run in enumerate(runs):
        offset = number * len(scorer.references)

        def step(done: int, _: int, offset: int = offset) -> None:
            if progress:
                progress(offset + done, total)

        results.append(scorer.score_run(run, chunk_size=options.chunk_size, progress=step))
    return scorer.report(results, seed=options.seed, n_bootstrap=options.n_bootstrap), results


def score_files(
    benchmark: str,
    references: str | Path,
    predictions: Sequence[str | Path],
    options: ScoringOptions | None = None,
) -> ScoreReport:
    """Validate strictly (raising :class:`~scoring.reading.problems.InvalidInput`) and score."""
    options = options or ScoringOptions()
    spec = get_benchmark(benchmark)
    reference_set = load_references(spec, references)
    runs = [load_predictions(spec, reference_set, p) for p in predictions]
    scorer = build_scorer(spec, reference_set.references, options)
    return score_runs(scorer, runs, options)[0]
