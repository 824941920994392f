"""Run a model on a leave-one-out benchmark (RUL-MuChoMusic: each question asked once per left-out option).

    python -m scoring.kit_examples.leave_one_out --benchmark rul-muchomusic --inputs inputs.jsonl --audio-root ROOT

Sends every prompt of an item as written in inputs.jsonl and writes {"id": ..., "responses": [...]}, one
raw response per prompt, in the prompts' order; the publisher's extractor reads the [[Letter]] in each.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from scoring.specs import get_benchmark


def model(audio_paths: list[Path], prompt: str) -> str:
    """Your model: audio files and one prompt in, its raw response out. Stand-in: a letter, seeded by the prompt."""
    return f"My guess is [[{random.Random(prompt).choice('ABCD')}]]."


def answer(record: dict[str, Any], audio_paths: list[Path]) -> dict[str, Any]:
    prompts = record.get("prompts", [])
    return {"id": record["id"], "responses": [model(audio_paths, p.get("prompt", "")) for p in prompts]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Run a model on a split's inputs.jsonl; write predictions.jsonl.")
    parser.add_argument("--benchmark", required=True, help="a name from `python -m scoring benchmarks`")
    parser.add_argument("--inputs", required=True, type=Path, help="the split's inputs.jsonl")
    parser.add_argument("--audio-root", required=True, type=Path, help="ROOT of the benchmark's audio layout")
    parser.add_argument("--out", default=Path("predictions.jsonl"), type=Path)
    args = parser.parse_args(argv)
    source = get_benchmark(args.benchmark).audio  # where each item's audio files lie under ROOT
    missing = 0
    with args.inputs.open(encoding="utf-8") as inputs, args.out.open("w", encoding="utf-8") as out:
        for line in filter(str.strip, inputs):
            record = json.loads(line)
            paths = [args.audio_root / relative for relative in source.paths(record)]
            missing += sum(not path.is_file() for path in paths)
            out.write(json.dumps(answer(record, paths), ensure_ascii=False) + "\n")
    if missing:
        print(f"{missing} audio files are not under {args.audio_root}: {source.layout_text()}", file=sys.stderr)


if __name__ == "__main__":
    main()
