"""Run a model on a multiple-choice benchmark (MMAU, MuChoMusic, MMAR).

    python -m scoring.kit_examples.multiple_choice --benchmark mmau --inputs inputs.jsonl --audio-root ROOT

Writes {"id": ..., "prediction": "the model's raw answer"} per item: the publisher's matcher reads the
option's text (or its letter, where the benchmark accepts one) from it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from scoring.specs import get_benchmark

LETTERS = "ABCDEFGHIJ"


def model(audio_paths: list[Path], prompt: str) -> str:
    """Your model: audio files and the prompt in, its raw answer out. Stand-in: one option, seeded by the prompt."""
    options = [line.split(") ", 1)[1] for line in prompt.splitlines() if line[:1] == "(" and ") " in line]
    return random.Random(prompt).choice(options) if options else ""


def prompt_of(record: dict[str, Any]) -> str:
    options = record.get("options") or []
    lines = [f"({LETTERS[i]}) {option}" for i, option in enumerate(options[:len(LETTERS)])]
    return "\n".join([record.get("question", ""), "Choose one option:", *lines])


def answer(record: dict[str, Any], audio_paths: list[Path]) -> dict[str, Any]:
    return {"id": record["id"], "prediction": model(audio_paths, prompt_of(record))}


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
