"""Judge throughput: 12,173 Jamendo-MT-QA sentence items through the real Scorer and HTTP client
against a loopback judge that answers after 50 ms, with concurrency C.

Prints the wall time against the ideal (items x 50 ms / C; target ratio <= 1.2), then
re-scores with the same cache and prints the requests sent (must be 0).

    .venv/bin/python bench/judge_speed.py [--items 12173] [--concurrency 16] [--cache memory|sqlite]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's scoring/ and tests/helpers/

from scoring.engine import Scorer
from scoring.judge import BackendConfig, Judge, MemoryCache, SQLiteCache, judge_metric_specs
from scoring.judge.cache import JudgeCache
from scoring.metrics import ScoringContext
from scoring.specs import BenchmarkSpec, Profile
from scoring.task_types import Prediction, Reference
from tests.helpers.fake_llm import FakeLLM

DELAY_S = 0.05
TARGET_RATIO = 1.2


def sentence_items(n: int) -> tuple[list[Reference], list[Prediction]]:
    references, predictions = [], []
    for i in range(n):
        a, b = f"rock_Track{i}", f"jazz_Track{i}"
        public = {"pair_id": f"{a}__{b}", "audio1": a, "audio2": b, "qa_type": "sentence",
                  "question": "In one sentence, how do the two tracks differ in genre, energy and production?"}
        gold = f"{a} is energetic distorted rock at 140 BPM, while {b} is relaxed acoustic jazz at 90 BPM."
        references.append(Reference(f"{a}__{b}::sentence", i + 1, public, (gold,), qa_type="sentence"))
        text = f"{a} is louder and faster than {b} " * (i % 3 + 1)
        predictions.append(Prediction(references[-1].id, i + 1, text=text))
    return references, predictions


def score_once(spec: BenchmarkSpec, references: list[Reference], predictions: list[Prediction],
               config: BackendConfig, cache: JudgeCache) -> tuple[float, dict[str, float]]:
    with Judge("bench", config, cache) as judge:
        scorer = Scorer(spec, references, context=ScoringContext(judges={"bench": judge}))
        start = time.perf_counter()
        run = scorer.score_run(predictions)
        wall = time.perf_counter() - start
    totals = {key.removeprefix("diag:"): float(np.nansum(run[key].values)) for key in scorer.diagnostic_keys()}
    totals["scored"] = float(np.count_nonzero(~np.isnan(run["judge_score"].values)))
    return wall, totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=12_173)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--cache", choices=("memory", "sqlite"), default="memory")
    args = parser.parse_args()

    references, predictions = sentence_items(args.items)
    columns = judge_metric_specs("jamendo-paper", "bench")
    spec = BenchmarkSpec(name="judge-bench", title="judge bench", task_type="comparative_qa", description="",
                         profiles=(Profile("judge", "", columns),), official_profile="judge",
                         default_sort=columns[0].key)
    with tempfile.TemporaryDirectory() as tmp, FakeLLM(delay=DELAY_S) as fake:
        cache: JudgeCache = SQLiteCache(Path(tmp) / "judge.sqlite") if args.cache == "sqlite" else MemoryCache()
        config = BackendConfig(kind="openai", model="gpt-4o-mini", base_url=fake.base_url,
                               max_concurrency=args.concurrency, timeout_s=30.0)
        wall, totals = score_once(spec, references, predictions, config, cache)
        ideal = args.items * DELAY_S / args.concurrency
        print(f"first run : {args.items} items, concurrency {args.concurrency}, {args.cache} cache")
        print(f"  wall {wall:.1f} s vs ideal {ideal:.1f} s (items x {DELAY_S * 1000:.0f} ms / C): "
              f"ratio {wall / ideal:.2f} (target <= {TARGET_RATIO})")
        print(f"  requests at the server {fake.count()}, scored {totals['scored']:.0f}, "
              f"unjudged {totals['judge_unjudged']:.0f}, max in flight {fake.max_in_flight}")
        sent = fake.count()
        rewall, retotals = score_once(spec, references, predictions, config, cache)
        resent = fake.count() - sent
        print(f"re-score  : {rewall:.2f} s, requests sent {resent} (must be 0), "
              f"cache hits {retotals['judge_cache_hits']:.0f}, scored {retotals['scored']:.0f}")
    return 0 if wall / ideal <= TARGET_RATIO and resent == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
