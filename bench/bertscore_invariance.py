"""Batch invariance of our BERTScore family on a device: every value equals bert-score on the pair alone.

Scores N synthetic caption pairs (``bertscore_speed.pairs``, with a share of short outputs such as
``"."``, ``"no"``, ``""`` and ``"  "`` mixed in, where bert-score's padded zeros can win the max) with
our family on the chosen device three times and compares per item:

* whole: file order, default chunks (1,024 pairs);
* shuffled: a seeded permutation, chunks of 777 (other neighbours, other batch shapes);
* alone: for a seeded sample of K pairs (all the short ones included), ``BERTScorer.score([c], [r])``,
  bert-score on that pair and nothing else (an empty candidate scores 0, bert-score's own rule).

Prints the largest per-item |difference| of P, R and F for shuffled vs whole and whole vs alone,
and exits 1 when one exceeds 1e-6.

    .venv/bin/python bench/bertscore_invariance.py [--device cuda] [--shape roberta-large] [--pairs 20000]
        [--alone 2000] [--batching auto|packed|masked|unpadded]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's scoring, not an installed one

from bench.bertscore_speed import SHAPES, model_dir, pairs

SHORT = (".", "no", "", "  ", "yes", "It is.", "Guitar.")
OUTPUTS = ("precision", "recall", "f1")
TOLERANCE = 1e-6


def texts(n: int, short_share: float) -> tuple[list[str], list[str], list[int]]:
    cands, refs = pairs(n)
    rng = random.Random(7)
    short = sorted(rng.sample(range(n), int(n * short_share)))
    for i in short:
        cands[i] = rng.choice(SHORT)
    return cands, refs, short


def family_scores(config, cands: list[str], refs: list[str]) -> np.ndarray:  # type: ignore[no-untyped-def]
    from scoring.metrics.base import ScoringContext
    from scoring.metrics.bertscore import BertScore
    from scoring.task_types import Prediction, Reference

    references = [Reference(f"r{i}", i + 1, {}, (r,)) for i, r in enumerate(refs)]
    predictions = [Prediction(f"r{i}", i + 1, text=c) for i, c in enumerate(cands)]
    scores = BertScore({}, ScoringContext(bertscore=config)).score(references, predictions, list(OUTPUTS))
    return np.stack([scores[name].values for name in OUTPUTS], axis=1)


def alone(config, candidate: str, reference: str) -> list[float]:  # type: ignore[no-untyped-def]
    from scoring.metrics.bertscore import load_scorer

    if not candidate.strip():
        return [0.0, 0.0, 0.0]
    return [float(v[0]) for v in load_scorer(config).score([candidate], [reference])]


def report(name: str, a: np.ndarray, b: np.ndarray) -> float:
    worst = np.abs(a - b).max(axis=0)
    print(f"  {name:28} max |diff| P {worst[0]:.2e}  R {worst[1]:.2e}  F {worst[2]:.2e}", flush=True)
    return float(worst.max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="", help="cpu, cuda (default: as bert-score picks)")
    parser.add_argument("--shape", default="minilm", choices=sorted(SHAPES))
    parser.add_argument("--pairs", type=int, default=20000)
    parser.add_argument("--alone", type=int, default=2000, help="pairs also scored alone (a sample)")
    parser.add_argument("--short", type=float, default=0.02, help="share of short candidates")
    parser.add_argument("--batching", default="auto", choices=("auto", "packed", "masked", "unpadded"))
    args = parser.parse_args()

    from scoring.metrics.bertscore import BertScoreConfig, resolved_batching

    path, layer = model_dir(args.shape), SHAPES[args.shape][1]
    config = BertScoreConfig(path, args.shape, layer, device=args.device or None, batching=args.batching)
    cands, refs, short = texts(args.pairs, args.short)
    print(f"shape {args.shape}, device {args.device or 'default'}, batching {resolved_batching(config)}, "
          f"{args.pairs:,} pairs ({len(short)} short candidates)", flush=True)

    start = time.perf_counter()
    whole = family_scores(config, cands, refs)
    print(f"  whole, file order, chunks of {config.chunk_size}: {time.perf_counter() - start:.1f} s", flush=True)
    order = list(range(args.pairs))
    random.Random(5).shuffle(order)
    start = time.perf_counter()
    shuffled = family_scores(dataclasses.replace(config, chunk_size=777), [cands[i] for i in order],
                             [refs[i] for i in order])
    print(f"  shuffled, chunks of 777: {time.perf_counter() - start:.1f} s", flush=True)
    worst = report("shuffled vs whole", shuffled, whole[order])

    sample = sorted(set(short) | set(random.Random(11).sample(range(args.pairs), min(args.alone, args.pairs))))
    start = time.perf_counter()
    single = np.array([alone(config, cands[i], refs[i]) for i in sample])
    print(f"  {len(sample):,} pairs alone: {time.perf_counter() - start:.1f} s", flush=True)
    worst = max(worst, report("whole vs each pair alone", whole[sample], single))
    short_rows = [k for k, i in enumerate(sample) if i in set(short)]
    if short_rows:
        report("  of which short candidates", whole[[sample[k] for k in short_rows]], single[short_rows])
    print(f"largest difference {worst:.2e} ({'within' if worst <= TOLERANCE else 'OVER'} {TOLERANCE:g})")
    sys.exit(0 if worst <= TOLERANCE else 1)


if __name__ == "__main__":
    main()
