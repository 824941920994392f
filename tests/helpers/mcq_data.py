"""Publisher-format multiple-choice files for tests: MMAU prediction files from the real gold,
synthetic MuChoMusic files in the released prompt/prediction layout, and tricky model outputs."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import Any

KNOWLEDGE = ("melody", "harmony", "metre and rhythm", "instrumentation", "sound texture", "performance", "structure")
REASONING = ("mood and expression", "temporal relations between elements", "lyrics", "genre and style",
             "historical and cultural context", "functional context")
WORDS = ("warm", "bass", "bright", "synth", "guitar", "tempo", "drums", "mellow", "piano", "vocals", "ambient",
         "reverb", "strings", "fast", "rhythm", "the", "a", "slow", "jazz", "rock")


def mmau_output(rng: random.Random, item: dict[str, Any]) -> str:
    """A model output of one of the shapes that trip MMAU's string_match."""
    letter = "ABCDEFGH"[rng.randrange(len(item["choices"]))]
    wrong = rng.choice(item["choices"])
    return rng.choice([
        item["answer"], f"({letter}) {item['answer']}", letter, f"The answer is {item['answer']}", wrong,
        f"{wrong} or {item['answer']}", "", item["answer"].upper() + ".", "I am not sure.",
    ])


def mmau_prediction_file(gold: Path, out: Path, *, seed: int, key: str = "model_output") -> list[dict[str, Any]]:
    items = json.loads(gold.read_text(encoding="utf-8"))
    rng = random.Random(seed)
    for item in items:
        item[key] = mmau_output(rng, item)
    out.write_text(json.dumps(items), encoding="utf-8")
    return items


def muchomusic_output(rng: random.Random, options: list[str]) -> str:
    letter = "ABCD"[rng.randrange(4)]
    option = rng.choice(options)
    return rng.choice([
        letter, f"({letter}) {option}", f"The correct answer is: ({letter})", f"Answer: {letter}", option,
        option.upper(), f"Definitely {option}", " ".join(options), "", "I cannot tell.",
        f"The correct answer is: A. The correct answer is: {option}",
    ])


def muchomusic_items(n: int, *, seed: int) -> list[dict[str, Any]]:
    """Items in the released prediction layout; several questions share a track id, as released."""
    rng = random.Random(seed)
    items = []
    for i in range(n):
        original = [" ".join(rng.sample(WORDS, 2)) + f" {i}-{k}" for k in range(4)]
        order = rng.sample(range(4), 4)
        answers = [original[j] for j in order]
        question = f"Which description fits track part {i}?"
        items.append({
            "id": i // 2 if i % 3 else f"yt{i // 2}",
            "prompt": f"Question: {question}\n Options: "
                      + "".join(f"({'ABCD'[j]}) {a} " for j, a in enumerate(answers)) + "\n The correct answer is: ",
            "answers": answers, "answer_orders": order, "dataset": rng.choice(["sdd", "musiccaps"]),
            "genre": rng.choice(["Rock", "Jazz", "Classical"]),
            "reasoning": rng.sample(REASONING, rng.choice([0, 0, 1, 2])),
            "knowledge": rng.sample(KNOWLEDGE, rng.choice([0, 1, 1, 2])),
            "audio_path": f"data/audio/{i // 2}.wav",
            "model_output": muchomusic_output(rng, answers),
        })
    return items


def write_json(data: Any, path: Path) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def write_muchomusic_csv(items: list[dict[str, Any]], path: Path) -> list[dict[str, str]]:
    """Items of :func:`muchomusic_items` as rows of the released ``muchomusic.csv`` (original option order, the
    correct answer first), written to ``path``; returns the rows."""
    rows = []
    for item in items:
        original = [item["answers"][item["answer_orders"].index(k)] for k in range(4)]
        question = item["prompt"].split("Question: ")[1].split("\n Options: ")[0]
        ident = f"{item['id']}.json" if item["dataset"] == "sdd" else f"{item['id']}_3.json"
        rows.append({"question": question, "dataset": item["dataset"], "dataset_identifier": ident,
                     "correct_answer": original[0], "distractor_1_answer": original[1],
                     "distractor_2_answer": original[2], "distractor_3_answer": original[3],
                     "genre": item["genre"], "music_knowledge": str(item["knowledge"]),
                     "music_reasoning": str(item["reasoning"]) if item["reasoning"] else ""})
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows
