"""Where our BERTScore's time goes on a device: loading, tokenising, encoding and matching, each timed alone.

MusicQA's 5,040 real answers (``bertscore_speed.real_pairs``) scored in one call of each step of the ``masked``
batching, twice (the second without first-use costs), the device synchronised between steps; then bert-score's own
``BERTScorer`` load and the transformers model's masked batches on the same sentences, with the largest difference
between the two encoders' embeddings.

    .venv/bin/python bench/bertscore_phases.py [--device cuda] [--shape roberta-large] [--musicqa EvalMusicQA.json]
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's scoring/, not an installed one

from bench.bertscore_speed import MUSICQA, SHAPES, model_dir, real_pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="", help="cpu, cuda (default: as bert-score picks)")
    parser.add_argument("--shape", default="minilm", choices=sorted(SHAPES))
    parser.add_argument("--musicqa", default=str(MUSICQA), help="EvalMusicQA.json")
    args = parser.parse_args()
    import torch

    from scoring.metrics.bertscore import BertScoreConfig, load_scorer, masked, picked_device, scorer_for

    cands, refs = real_pairs(5040, Path(args.musicqa))
    pairs = [(c, (r,)) for c, r in zip(cands, refs)]
    config = BertScoreConfig(model_dir(args.shape), args.shape, SHAPES[args.shape][1], device=args.device or None,
                             batching="masked")
    device = picked_device(config)

    def timed(step: Any) -> tuple[Any, float]:
        start = time.perf_counter()
        result = step()
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        return result, time.perf_counter() - start

    scorer, load = timed(lambda: scorer_for(config, "masked"))
    for repeat in (1, 2):
        tokens, tokenise = timed(partial(masked.sentence_tokens, scorer._tokenizer, pairs))
        embeddings, encode = timed(partial(masked.checkpoint_encode, scorer._model, tokens, masked.TOKEN_BUDGET))
        _, match = timed(partial(masked.values_per_pair, scorer, pairs, embeddings, tokens, None))
        print(f"{args.shape} on {device}, call {repeat}: weights {load:.2f} s (first call only), tokenising "
              f"{tokenise:.2f} s, encoding {encode:.2f} s, matching {match:.2f} s; {len(tokens):,} sentences, "
              f"{sum(map(len, tokens.values())):,} tokens", flush=True)
    loaded, bert_score_load = timed(partial(load_scorer, config))
    model = loaded._model
    theirs, their_encode = timed(partial(masked.encode, model, loaded._tokenizer, tokens,
                                         next(model.parameters()).device, masked.TOKEN_BUDGET))
    gap = max(float((embeddings[s] - theirs[s]).abs().max()) for s in tokens)
    print(f"bert-score's BERTScorer load {bert_score_load:.2f} s; the transformers model's masked batches "
          f"{their_encode:.2f} s; largest embedding difference {gap:.2e}", flush=True)


if __name__ == "__main__":
    main()
