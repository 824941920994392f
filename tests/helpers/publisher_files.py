"""Publisher-format MMAU files shaped like real runs, and an independent re-implementation of the
released rules to check numbers against (MMAU evaluation.py's ``string_match`` Total, MuChoMusic
evaluate.py's ``extract_responses`` accuracy), written from the released code's rules."""

from __future__ import annotations

import random
import re
from typing import Any

from tests.helpers.mcq_data import mmau_output


def _words(text: str) -> frozenset[str]:
    return frozenset(m.group(0) for m in re.finditer(r"\b\w+\b", text.lower()))


def released_mmau_accuracy(items: list[dict[str, Any]]) -> float:
    """evaluation.py's Total over the items given (each scored as the released string_match)."""
    right = 0
    for item in items:
        gold, said = _words(item["answer"]), _words(item["model_output"])
        others = frozenset().union(*(_words(c) - gold for c in item["choices"] if _words(c) != gold))
        right += bool(said) and gold <= said and not (said & others)
    return 100.0 * right / len(items)


def released_muchomusic_accuracy(items: list[dict[str, Any]]) -> float:
    """evaluate.py's accuracy: the last prefix cut, one distinct capital A-D, else the first option inside."""
    right = 0
    for item in items:
        tail = item["model_output"].rpartition("The correct answer is:")[2].strip()
        capitals = {c for c in tail if c in "ABCD"}
        if len(capitals) == 1:
            picked = "ABCD".find(capitals.pop())
        else:
            low = tail.lower().strip()
            picked = next((j for j, a in enumerate(item["answers"]) if a.lower().strip() in low), -1)
        right += picked == item["answer_orders"].index(0)
    return 100.0 * right / len(items)


WORDS = ("warm", "bass", "bright", "synth", "guitar", "tempo", "drums", "mellow", "piano", "vocals", "ambient",
         "reverb", "strings", "fast", "rhythm", "slow", "jazz", "rock", "organ", "choir")


def mmau_items(n: int, seed: int) -> list[dict[str, Any]]:
    """MMAU test-mini-shaped items with model outputs of the shapes real runs give."""
    rng = random.Random(seed)
    items = []
    for i in range(n):
        choices = [f"{' '.join(rng.sample(WORDS, 2))} v{i}k{k}" for k in range(4)]
        item = {"id": f"mmau-{i:04d}", "audio_id": f"./test-mini-audios/{i}.wav", "question": f"Which one {i}?",
                "choices": choices, "answer": rng.choice(choices), "dataset": "synthetic",
                "task": ("music", "sound", "speech")[i % 3], "split": "test-mini", "category": "Reasoning",
                "sub-category": "Genre Identification", "difficulty": ("easy", "medium", "hard")[i % 3]}
        item["model_output"] = mmau_output(rng, item)
        items.append(item)
    return items
