"""Seeded synthetic data shaped like the hosted benchmarks, for the site's tests."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

GENRES = ["rock", "jazz", "electronic", "folk", "pop", "reggae"]
WORDS = ("warm bass bright synth acoustic guitar slow fast tempo energetic drums mellow piano vocals ambient "
         "pads distorted riff upbeat groove calm dreamy reverb percussion strings rhythm").split()


def write_jsonl(records: Iterable[dict[str, Any]], path: Path) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def jamendo_references(pairs: int, seed: int = 0) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    items = []
    for p in range(pairs):
        a, b = f"{rng.choice(GENRES)}_Track{p}A", f"{rng.choice(GENRES)}_Track{p}B"
        base = {"pair_id": f"{a}__{b}", "audio1": a, "audio2": b}
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 25)))
        items += [
            {**base, "id": f"{a}__{b}::yes_no", "qa_type": "yes_no", "question": f"Is {b} faster than {a}?",
             "answer": rng.choice(["Yes", "No"])},
            {**base, "id": f"{a}__{b}::short_answer", "qa_type": "short_answer",
             "question": "Which track is faster?", "answer": rng.choice([a, b])},
            {**base, "id": f"{a}__{b}::sentence", "qa_type": "sentence",
             "question": "How do they differ?", "answer": f"{a} has {sentence} while {b} does not."},
        ]
    return items


def marked_jamendo_references(pairs: int, mark: Callable[[str, int], str]) -> list[dict[str, Any]]:
    """Jamendo-MT-QA pairs whose every gold answer carries ``mark(qa_type, pair)``, a string written nowhere else
    (not in the inputs, not in any prediction): what hidden-label tests look for in responses."""
    items = []
    for p in range(pairs):
        a, b = f"rock_Track{p}A", f"jazz_Track{p}B"
        base = {"pair_id": f"{a}__{b}", "audio1": a, "audio2": b}
        items += [
            {**base, "id": f"{a}__{b}::yes_no", "qa_type": "yes_no", "question": f"Is {b} faster than {a}?",
             "answer": f"Yes, {mark('yes_no', p)} it is brisker"},
            {**base, "id": f"{a}__{b}::short_answer", "qa_type": "short_answer",
             "question": "Which track is faster?", "answer": f"{mark('short_answer', p)} second track"},
            {**base, "id": f"{a}__{b}::sentence", "qa_type": "sentence", "question": "How do they differ?",
             "answer": f"{mark('sentence', p)} the first has velvet cellos while the second has glassy marimbas"},
        ]
    return items


def jamendo_predictions(references: list[dict[str, Any]], seed: int = 1, noise: float = 0.3) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for ref in references:
        if ref["qa_type"] == "yes_no":
            text = ref["answer"] if rng.random() > noise else ("No" if ref["answer"] == "Yes" else "Yes")
        elif ref["qa_type"] == "short_answer":
            text = ref["answer"] if rng.random() > noise else ref["audio1"]
        else:
            words = [w for w in ref["answer"].split() if rng.random() > noise] or ["music"]
            text = " ".join(words)
        out.append({"id": ref["id"], "prediction": text})
    return out


def dialbgm_references(n: int, seed: int = 0, prefix: str = "dlg") -> list[dict[str, Any]]:
    """``n`` items ``<prefix>-<i>``: a hidden split needs items of its own (a public split would show their answers;
    items are told apart by content too, so another prefix also gives other summaries)."""
    rng = random.Random(seed)
    items = []
    for i in range(n):
        candidates = [f"clip{i}-{j}" for j in range(4)]
        gold = candidates[:]
        rng.shuffle(gold)
        summary = f"Dialogue {i}." if prefix == "dlg" else f"Dialogue {prefix}-{i}."
        items.append({"id": f"{prefix}-{i}", "dialogue": [f"A: line {i}", "B: reply"], "summary": summary,
                      "candidates": candidates, "gold_ranking": gold})
    return items


def dialbgm_predictions(references: list[dict[str, Any]], seed: int = 1, skill: float = 0.5) -> list[dict[str, Any]]:
    """Scores that agree with gold with probability ``skill``; integer scores so ties happen."""
    rng = random.Random(seed)
    out = []
    for ref in references:
        if rng.random() < skill:
            scores = {c: 4 - ref["gold_ranking"].index(c) for c in ref["candidates"]}
        else:
            scores = {c: rng.randint(0, 3) for c in ref["candidates"]}
        out.append({"id": ref["id"], "scores": scores})
    return out
