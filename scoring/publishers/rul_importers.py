"""RUL-MuChoMusic's own file (yongyizang/AreYouReallyListening @ d3971de1), as leave-one-out items.

``RUL-MuchoMusic.json`` is one JSON object ``{question id: {question, caption, correct_answer,
distractors, PI}}``; the item id is that key. Following ``ExampleAudioEval/qwen_2_audio.py``, each
item is asked once per distractor with that distractor left out: the correct answer and the other
distractors, shuffled, shown as ``(A) .. (B) ..``. The released code shuffles with an unseeded
``random.shuffle``; this site fixes one order per item and prompt, seeded by the item id and the
left-out distractor, and publishes it with the prompt text (``inputs.jsonl``). The caption (a text
description of the audio) and ``PI`` are not inputs and are left out.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

from scoring.publishers.formats import PublisherFormat
from scoring.reading.jsonl import check_storable, json_type, load_json_of_type
from scoring.reading.problems import ProblemLog

Record = dict[str, Any]
Row = tuple[int, Record]
ORDER_SEED = "rul-muchomusic-order-v1"
PROMPT = ("Provide your best guess of this question. Think step by step.\n\nQuestion: {question}\n\n"
          "Options: {options}\n\nWrite out your guess in the format of [[Letter]], such as [[A]], [[B]], [[C]], "
          "[[D]].")


def prompt_order(item_id: str, left_out: int, n_options: int) -> list[int]:
    """Shown position j holds option ``order[j]`` of ``[correct answer, remaining distractors...]``."""
    seed = int.from_bytes(hashlib.sha256(f"{ORDER_SEED}:{item_id}:{left_out}".encode()).digest()[:8], "big")
    return random.Random(seed).sample(range(n_options), k=n_options)


def leave_one_out_prompts(item_id: str, question: str, correct: str, distractors: list[str]) -> list[Record]:
    """One prompt per distractor (left out), options in the site's seeded order, with the text shown."""
    prompts = []
    for left_out in range(len(distractors)):
        pool = [correct] + [d for k, d in enumerate(distractors) if k != left_out]
        options = [pool[j] for j in prompt_order(item_id, left_out, len(pool))]
        shown = " ".join(f"({'ABCDE'[j]}) {option}" for j, option in enumerate(options))
        prompts.append({"options": options, "prompt": PROMPT.format(question=question, options=shown)})
    return prompts


def rul_reference_rows(path: str | Path, log: ProblemLog) -> list[Row]:
    """References from ``RUL-MuchoMusic.json``; row N is the N-th question of the object."""
    name = Path(path).name
    data = load_json_of_type(path, log, dict, "expected a JSON object {question id: item}")
    rows: list[Row] = []
    for position, (item_id, item) in enumerate((data or {}).items(), start=1):
        if not isinstance(item, dict):
            log.add(name, position, "not_object", f'question "{item_id}" must be a JSON object, got {json_type(item)}')
            continue
        if not check_storable(item, name, position, log):
            continue
        rows.append((position, _reference(name, position, item_id, item, log)))
    return rows


def _reference(name: str, position: int, item_id: str, item: Record, log: ProblemLog) -> Record:
    record: Record = {"id": item_id, "question": item.get("question"), "answer": item.get("correct_answer")}
    question, correct, distractors = item.get("question"), item.get("correct_answer"), item.get("distractors")
    if not isinstance(distractors, list) or not all(isinstance(d, str) for d in distractors):
        log.add(name, position, "wrong_type", f'question "{item_id}": distractors must be an array of strings',
                "distractors")
    elif isinstance(question, str) and isinstance(correct, str):
        record["prompts"] = leave_one_out_prompts(item_id, question, correct, distractors)
    return record


RUL_MUCHOMUSIC = PublisherFormat("rul-muchomusic", rul_reference_rows)
