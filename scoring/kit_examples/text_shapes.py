"""Run a model on a CMI-Bench or SongFormBench task: free text that the publisher's parser reads in a set shape.

    python -m scoring.kit_examples.text_shapes --benchmark cmi-gs-key --inputs inputs.jsonl --audio-root ROOT

Writes {"id": ..., "prediction": "the model's text"} per item. Each item's question names the shape its
parser reads; the stand-in answers in that shape (SHAPES), so the file shows what a readable answer looks
like. The item id ends in [start:end]: the seconds of the audio file the question is about.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from scoring.specs import get_benchmark

# (words in the question, an answer in the shape its parser reads), first match wins
SHAPES = (
    ("Segment the song", "0.000 intro\n12.500 verse\n45.000 chorus\n80.250 end"),  # SongFormBench: MSA lines
    ("timestamps of all", "0.52s,1.04s,1.57s,2.09s"),  # beats and downbeats: seconds, comma-separated
    ("Guzheng", "[('0.0', '1.5', 'Vibrato'), ('2.0', '2.5', 'Point Note')]"),  # quoted (start, end, technique)
    ("musical key", "C major"),  # one of the 24 keys
    ("pitch", "60"),  # one MIDI number
    ("arousal score", "5.5"),  # a number on the question's 1-9 scale
    ("valence score", "5.5"),
    ("tag", "rock, pop, electronic"),  # tags from the task's vocabulary, comma-separated
)


def model(audio_paths: list[Path], prompt: str) -> str:
    """Your model: audio files and the question in, its raw answer out. Stand-in: a fixed answer of the asked shape."""
    return next((shaped for words, shaped in SHAPES if words in prompt), "A placeholder answer from the stand-in.")


def answer(record: dict[str, Any], audio_paths: list[Path]) -> dict[str, Any]:
    return {"id": record["id"], "prediction": model(audio_paths, record.get("question", ""))}


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
