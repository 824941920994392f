"""Run a model on a ranking benchmark (DialBGM: rank four candidate clips for a dialogue).

    python -m scoring.kit_examples.ranking --benchmark dialbgm --inputs inputs.jsonl --audio-root ROOT

Asks the model to rate each candidate and writes {"id": ..., "scores": {candidate: number}} per item
(higher is better; ties are allowed and scored tie-aware).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

from scoring.specs import get_benchmark


def model(audio_paths: list[Path], prompt: str) -> str:
    """Your model: one candidate's audio and the prompt in, its rating out. Stand-in: a seeded number."""
    return f"{random.Random(prompt).uniform(0, 10):.1f}"


def prompt_of(record: dict[str, Any], candidate: str) -> str:
    dialogue = record.get("dialogue", record.get("summary", ""))
    text = "\n".join(dialogue) if isinstance(dialogue, list) else str(dialogue)
    caption = (record.get("candidate_captions") or {}).get(candidate, "")
    return (f"Dialogue:\n{text}\nCandidate {candidate}: {caption}\n"
            "Rate from 0 to 10 how well this music fits as the dialogue's background music.")


def rating(text: str) -> float:
    found = re.search(r"-?\d+(?:\.\d+)?", text)
    return float(found.group()) if found else 0.0


def answer(record: dict[str, Any], audio_paths: list[Path]) -> dict[str, Any]:
    candidates = record.get("candidates", [])
    by_name = {c: [p for p in audio_paths if p.stem == c] for c in candidates}
    return {"id": record["id"], "scores": {c: rating(model(by_name[c], prompt_of(record, c))) for c in candidates}}


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
