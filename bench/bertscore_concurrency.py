"""Two worker processes scoring BERTScore at once on the same cores: with and without sharing threads.

Runs N pairs (default 2,000, one pipeline chunk) with the default model in:

* one process alone, torch threads = all cores (what a single worker gets);
* two processes at once, each with ``cores / 2`` threads (``scoring.threads``, what workers now do);
* two processes at once, each with all cores (what workers did before: oversubscribed).

and prints each side's wall time and the ratio to the single process. The target is that two
concurrent chunks finish in no more than about twice the time of one.

    .venv/bin/python bench/bertscore_concurrency.py [--pairs 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def child(n: int) -> None:
    from bench.bertscore_speed import pairs
    from scoring.metrics.base import ScoringContext
    from scoring.metrics.bertscore import BertScore, BertScoreConfig, resolved_batching, scorer_for
    from scoring.task_types import Prediction, Reference

    cands, refs = pairs(n, seed=os.getpid())
    references = [Reference(f"r{i}", i + 1, {}, (r,)) for i, r in enumerate(refs)]
    predictions = [Prediction(f"r{i}", i + 1, text=c) for i, c in enumerate(cands)]
    config = BertScoreConfig.default()
    scorer_for(config, resolved_batching(config))  # loading is not what is shared badly
    start = time.perf_counter()
    BertScore({}, ScoringContext(bertscore=config)).score(references, predictions, ["f1"])
    print(json.dumps({"seconds": time.perf_counter() - start}))


def run(n: int, processes: int, threads: int) -> list[float]:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    procs = [subprocess.Popen([sys.executable, __file__, "--child", str(n)], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, text=True) for _ in range(processes)]
    outs = [p.communicate()[0] for p in procs]
    if any(p.returncode for p in procs):
        raise SystemExit("a child failed")
    return [json.loads(o.strip().splitlines()[-1])["seconds"] for o in outs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    from scoring.threads import torch_threads_for

    cores = len(os.sched_getaffinity(0))
    alone = run(args.pairs, 1, cores)[0]
    shared = run(args.pairs, 2, torch_threads_for(concurrency=2, environ={}))
    oversubscribed = run(args.pairs, 2, cores)
    print(f"{args.pairs:,} pairs per process, {cores} cores")
    print(f"  one process, {cores} threads:            {alone:7.1f} s")
    print(f"  two at once, {torch_threads_for(concurrency=2, environ={})} thread(s) each (shared):"
          f" {max(shared):7.1f} s  = {max(shared) / alone:.2f}x one")
    print(f"  two at once, {cores} threads each (before):  {max(oversubscribed):7.1f} s  "
          f"= {max(oversubscribed) / alone:.2f}x one")


if __name__ == "__main__":
    main()
