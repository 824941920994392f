"""BERTScore's first value in a fresh process: our family vs bare ``bert_score.score`` on one pair.

Each side runs in a fresh subprocess, alternately ``--repeats`` times, with the imports done before the clock
(torch, bert-score and our scoring package): what is timed is loading the model and scoring one real-looking pair,
the cost every command-line run and every worker's first BERTScore chunk pays once. Ours reads a BERT or RoBERTa
model's weights from its checkpoint (``scoring.metrics.bertscore.scorer_for``); bare bert-score builds the
transformers model. Peak RSS is the process's. Both values must agree to 1e-6.

    .venv/bin/python bench/bertscore_cold.py [--repeats 3] [--shape minilm|roberta-large]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
CANDIDATE = "A soft piano ballad with a slow tempo and a warm female voice."
REFERENCE = "This is a slow piano piece with gentle female vocals, calm and melancholic."


def worker(side: str, shape: str) -> dict[str, float]:
    from bench.bertscore_speed import SHAPES, model_dir  # builds a shape-only model once, before any clock
    from scoring.threads import torch_threads_configure

    torch_threads_configure(concurrency=1)
    path, layer = model_dir(shape), SHAPES[shape][1]
    import bert_score  # noqa: F401  (imported before the clock on both sides)

    from scoring.metrics.base import ScoringContext
    from scoring.metrics.bertscore import BertScore, BertScoreConfig
    from scoring.task_types import Prediction, Reference

    start = time.perf_counter()
    if side == "ours":
        family = BertScore({}, ScoringContext(bertscore=BertScoreConfig(path, shape, layer, device="cpu")))
        f1 = float(family.score([Reference("a", 1, {}, (REFERENCE,))], [Prediction("a", 1, text=CANDIDATE)],
                                ["f1"])["f1"].values[0])
    else:
        from bert_score import score

        f1 = float(score([CANDIDATE], [REFERENCE], model_type=path, num_layers=layer, device="cpu")[2][0])
    elapsed = time.perf_counter() - start
    return {"seconds": elapsed, "f1": f1, "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def measure(side: str, shape: str) -> dict[str, float]:
    result = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", side, "--shape", shape],
                            capture_output=True, text=True, cwd=REPO, check=False)
    if result.returncode != 0:
        raise SystemExit(f"{side} failed:\n{result.stderr}")
    measured: dict[str, float] = json.loads(result.stdout.strip().splitlines()[-1])
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--shape", default="minilm", choices=("minilm", "minilm-random", "roberta-large"))
    parser.add_argument("--worker", choices=("ours", "bare"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.shape)))
        return
    ratios = []
    for repeat in range(1, args.repeats + 1):
        bare, ours = measure("bare", args.shape), measure("ours", args.shape)
        if abs(bare["f1"] - ours["f1"]) > 1e-6:
            raise SystemExit(f"F1 differs: ours {ours['f1']!r}, bare {bare['f1']!r}")
        ratios.append(bare["seconds"] / ours["seconds"])
        print(f"repeat {repeat}/{args.repeats}: bare {bare['seconds']:.2f} s ({bare['peak_rss_mib']:.0f} MiB), "
              f"ours {ours['seconds']:.2f} s ({ours['peak_rss_mib']:.0f} MiB): {ratios[-1]:.1f}x sooner")
    print(f"{args.shape}: median {statistics.median(ratios):.1f}x sooner over {args.repeats} alternations")


if __name__ == "__main__":
    main()
