"""What the site's heavy chunks cost: MusicQA's 5,040 real answers' BERTScore stage in chunks vs in one call.

The references are MusicQA's released answers (EvalMusicQA.json), the predictions the real answers of
``bench.bertscore_speed.real_pairs`` (other items' answers, lower-cased, first two words swapped, 2% short
outputs). In one process (the model loaded once, as on a worker), alternately ``--repeats`` times:

* whole: a fresh ``Scorer`` (default MiniLM BERTScore) scores the run's heavy group in one ``score_chunk``;
* chunks: the run split by ``chunk_bounds`` of ``leaderboard/services/pipeline/heavy.py`` (the site's own
  settings: ``CHUNK_TOKENS`` estimated tokens, at most ``SCORING_CHUNK_SIZE`` items), each chunk scored by a
  fresh ``Scorer`` as the heavy worker does it (nothing memoised between chunks).

Prints both times, their ratio (target: chunks <= 1.10x the whole run), the chunks' count and sizes, and
checks that both give the same values to 1e-6.

    SHARED_DIR=/work/shared .venv/bin/python bench/bertscore_chunks.py [--repeats 3] [--items 5040]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bertscore_speed import MUSICQA, load_average, real_pairs  # noqa: E402

TOLERANCE = 1e-6


def setup(n: int) -> tuple[list[Any], list[Any]]:
    """The site's settings loaded; MusicQA's references and the real answers as predictions."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.config.settings")
    os.environ.setdefault("DEBUG", "1")  # settings only: no database, no secret is used
    import django

    django.setup()
    from scoring.publishers.importers import import_musicqa
    from scoring.task_types import Prediction, Reference

    records = import_musicqa(MUSICQA)[:n]
    cands, _ = real_pairs(len(records))
    references = [Reference(id=str(r["id"]), line=i + 1, public={}, answers=(r["answer"],))
                  for i, r in enumerate(records)]
    predictions = [Prediction(id=str(r["id"]), line=i + 1, text=c) for i, (r, c) in enumerate(zip(records, cands))]
    return references, predictions


def fresh_scorer(references: list[Any]) -> Any:
    from scoring import Scorer
    from scoring.metrics.base import ScoringContext
    from scoring.metrics.bertscore import BertScoreConfig
    from scoring.specs import get_benchmark

    return Scorer(get_benchmark("musicqa"), references, context=ScoringContext(bertscore=BertScoreConfig.default()))


def score(references: list[Any], predictions: list[Any], bounds: list[tuple[int, int]]) -> tuple[float, dict]:  # type: ignore[type-arg]
    import numpy as np

    from leaderboard.services.pipeline.heavy import HEAVY

    start = time.perf_counter()
    parts: dict[str, list[Any]] = {}
    for begin, end in bounds:
        scores = fresh_scorer(references).score_chunk(predictions[begin:end], begin, group=HEAVY)
        for key, item in scores.items():
            parts.setdefault(key, []).append(item.values)
    elapsed = time.perf_counter() - start
    return elapsed, {key: np.concatenate(values) for key, values in parts.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=5040)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from scoring.threads import torch_threads_configure

    threads = torch_threads_configure(concurrency=1)
    references, predictions = setup(args.items)
    from leaderboard.services.pipeline.heavy import CHUNK_TOKENS, HEAVY, chunk_bounds
    from scoring.metrics.bertscore import BertScoreConfig, resolved_batching, scorer_for

    config = BertScoreConfig.default()
    scorer_for(config, resolved_batching(config))  # once per worker process, outside the timings
    bounds = chunk_bounds(fresh_scorer(references), predictions, HEAVY, labels_hidden=False)
    sizes = [end - begin for begin, end in bounds]
    print(f"{len(predictions):,} items, {len(bounds)} chunks of {min(sizes)}-{max(sizes)} items "
          f"(CHUNK_TOKENS {CHUNK_TOKENS:,}), {threads} threads, load average {load_average()}", flush=True)
    ratios = []
    for repeat in range(args.repeats):
        whole, whole_values = score(references, predictions, [(0, len(predictions))])
        print(f"  whole run in one call: {whole:6.1f} s (load {load_average()})", flush=True)
        chunked, chunk_values = score(references, predictions, bounds)
        print(f"  {len(bounds)} chunks:         {chunked:6.1f} s (load {load_average()})", flush=True)
        for key, values in whole_values.items():
            gap = float(abs(values - chunk_values[key]).max())
            if gap > TOLERANCE:
                raise SystemExit(f"{key}: chunks and the whole run differ by {gap:.2e}")
        ratios.append(chunked / whole)
        print(f"repeat {repeat + 1}/{args.repeats}: chunks cost {ratios[-1]:.2f}x the whole run; values agree",
              flush=True)
    print(f"median over {args.repeats}: chunks cost {statistics.median(ratios):.2f}x the whole run "
          f"(runs {', '.join(f'{r:.2f}' for r in ratios)}; target <= 1.10x)")


if __name__ == "__main__":
    main()
