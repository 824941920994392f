"""Jamendo-MT-QA results files as run_benchmark.py writes them and evaluate.py reads them: exactly the
fields evaluate.py's docstring lists (no ``pair_id``), with the null and falsy values real runs hold."""

from __future__ import annotations

import random
from typing import Any

from tests.helpers.publisher_files import WORDS


def jamendo_records() -> list[dict[str, Any]]:
    rng = random.Random(5)
    records = []
    for i in range(30):
        a, b = f"rock_Track{i}", f"jazz_Song{i}"
        gold = {"yes_no": rng.choice(["Yes", "No"]), "short_answer": rng.choice([a, b]),
                "sentence": f"{a} is {rng.choice(WORDS)} and {b} is {rng.choice(WORDS)}."}
        guess = {"yes_no": rng.choice(["yes", "No.", "true", "maybe"]), "short_answer": rng.choice([a, b, "both"]),
                 "sentence": f"{a} is {rng.choice(WORDS)} while {b} is {rng.choice(WORDS)}."}
        for qa_type in ("yes_no", "short_answer", "sentence"):
            # exactly the fields evaluate.py's docstring lists: no pair_id
            records.append({"audio1": a, "audio2": b, "qa_type": qa_type, "question": f"Q {qa_type} {i}?",
                            "gold_answer": gold[qa_type], "prediction": guess[qa_type]})
    records[0]["pair_id"] = None
    records[3]["gold_answer"] = None  # a yes_no item: counted, always wrong
    records[4]["question"] = ""
    records[6]["prediction"] = 0  # evaluate.py reads a falsy prediction as ""
    records[7]["prediction"] = False
    records[8]["prediction"] = None
    records[10]["qa_type"] = None  # left out
    return records
