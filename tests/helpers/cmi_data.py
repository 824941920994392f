"""CMI-Bench test data: the released task files (from ``../shared``) and result files with
model-like responses (letters, labels in sentences, markdown, extra words, empties, rambling)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.helpers.shared import shared_file

FILES = {
    "cmi-gtzan": "CMI_GTZAN_test.jsonl",
    "cmi-vocalset-tech": "CMI_VocalSet_tech_test.jsonl",
    "cmi-nsynth-instrument": "CMI_Nsynth_instrument_test.jsonl",
    "cmi-emo-arousal": "CMI_EMO_arousal_test.jsonl",
    "cmi-emo-valence": "CMI_EMO_valence_test.jsonl",
    "cmi-dsing": "CMI_DSing_test.jsonl",
}


def released_file(benchmark: str) -> Path:
    """The released test file of a benchmark (skips the test without the shared data)."""
    return shared_file("data", "cmi-bench", FILES[benchmark])


def released_records(benchmark: str) -> list[dict[str, Any]]:
    with open(released_file(benchmark), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def label_response(gold: str, labels: list[str], rng: random.Random) -> str:
    """A classification answer as models write them."""
    other = rng.choice([label for label in labels if label != gold])
    pretty = gold.replace("_", " ").title()
    return rng.choice([
        gold, gold.upper(), f"**{pretty}**", f"The genre of this music is {pretty}.", f"{gold}.\n\nThe track has a "
        "steady groove and bright production.", "B", "", "   ", f"{gold} or {other}", other, f"I think it's {other}.",
        f"Answer: {gold.replace('_', '-')}", f"- {pretty}\n- confidence: high", "I cannot determine this from "
        "the audio.", f"It sounds like {gold.replace('_', ' ')} music, with some {other} influences.",
        f"{gold}#", f"'{gold}'", "Example 1: blues", f"1. {pretty}",
    ])


def emotion_response(rng: random.Random) -> str:
    """An arousal/valence answer as models write them (other scales, ranges, decimals, refusals)."""
    n = rng.randint(1, 9)
    m = rng.randint(1, 9)
    return rng.choice([
        str(n), f"Estimated score: {n}.", f"I would estimate the arousal score to be around {n} out of 9.",
        f"{n}.{m}", f"around {n} and {m}", f"{n}, because the tempo is moderate, so {n}",
        f"On a 1-9 scale, I'd say {n}.", f"On a scale from 1 to 9 it is {n}", f"{n} on a 10-point scale",
        f"The music is in 4/4 time signature and the score is {n}.", f"The tempo is 120 bpm; score {n}",
        "", "The music is calm and relaxing.", f"Score: {n}/9", f"**{n}**", f"Example 1 shows {n}",
        f"{n}0", f"between {n} and {m}", f"0{n}", f"{n}.{m}.{n}", "३",
    ])


def lyrics_response(gold: str, rng: random.Random) -> str:
    """A lyrics transcription as models write them (prefixes, digits, punctuation, rambling)."""
    words = gold.split()
    dropped = " ".join(w for w in words if rng.random() > 0.2) or "la"
    return rng.choice([
        gold, gold.lower(), f"The lyrics of the song are: {gold.lower()}", f"The transcription is: {dropped}",
        f"<s>{gold.title()}</s>", f'"{gold.capitalize()}!"', f"{dropped} 2 times, 1999 and 21st", "",
        f"The text of this song is: {gold}. It's sung by a female voice.", f"{gold}\n{gold}",
        f"I'm sorry, I can't transcribe this, but it sounds like {dropped}", f"Lyrics content here is: {gold}",
        f"{gold.lower()} - yeah, yeah (oh)", f"{gold} 100%", "♪ " + dropped + " ♪",
    ])


def result_file(benchmark: str, path: Path, seed: int, *, jsonl: bool = False) -> list[dict[str, Any]]:
    """A CMI-Bench result file for ``benchmark``: the released records each with a ``response``."""
    rng = random.Random(seed)
    records = released_records(benchmark)
    labels = sorted({r["output"] for r in records})
    out = []
    for record in records:
        if benchmark in ("cmi-emo-arousal", "cmi-emo-valence"):
            response = emotion_response(rng)
        elif benchmark == "cmi-dsing":
            response = lyrics_response(record["output"], rng)
        else:
            response = label_response(record["output"], labels, rng)
        out.append({**record, "response": response})
    with open(path, "w", encoding="utf-8") as handle:
        if jsonl:
            handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in out)
        else:
            json.dump(out, handle, ensure_ascii=False, indent=1)
    return out
