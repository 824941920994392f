"""Run a model on a comparative QA benchmark (Jamendo-MT-QA: two tracks per question).

    python -m scoring.kit_examples.comparative_qa --benchmark jamendo-mt-qa --inputs inputs.jsonl --audio-root ROOT

Writes {"id": ..., "prediction": "the model's answer"} per item; yes/no items are read from the answer's
first word, so start those with yes or no.
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
    """Your model: both tracks (audio1, audio2) and the question in, its answer out. Stand-in: seeded text."""
    if prompt.startswith("Answer yes or no."):
        return random.Random(prompt).choice(("Yes.", "No."))
    return f"{audio_paths[0].stem if audio_paths else 'The first track'} (a placeholder answer)."


def prompt_of(record: dict[str, Any]) -> str:
    question = record.get("question", "")
    return f"Answer yes or no. {question}" if record.get("qa_type") == "yes_no" else question


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
