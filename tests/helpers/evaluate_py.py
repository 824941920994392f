"""Jamendo-MT-QA files in evaluate.py's own record format, shaped like a real audio-LLM run, and an
independent re-implementation of evaluate.py's metrics (written from its rules, sharing no code
with ``scoring``) to check every number against.

The run has what real runs have: empty, whitespace-only and null answers (run_benchmark.py strips
replies and can write ""), rambling 30,000-character answers, a raw U+2028 inside an answer; the
file has a BOM and CRLF line ends; the reference side has an empty gold answer (counted, always
wrong) and an unknown qa_type (left out).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from statistics import fmean
from typing import Any

import sacrebleu
from rouge_score import rouge_scorer

WORDS = ("warm", "bass", "bright", "synth", "lead", "acoustic", "guitar", "slow", "tempo", "drums", "mellow",
         "piano", "vocals", "ambient", "reverb", "faster", "track", "the", "first", "second", "is", "more")
QA_TYPES = ("yes_no", "short_answer", "sentence")


def _sentence(rng: random.Random, low: int = 6, high: int = 18) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high))).capitalize() + "."


def evaluate_py_records(n_pairs: int = 60, seed: int = 8) -> list[dict[str, Any]]:
    """Records ``{pair_id, audio1, audio2, qa_type, question, gold_answer, prediction}``."""
    rng = random.Random(seed)
    records = []
    for i in range(n_pairs):
        a, b = f"rock_Track{i}", f"jazz_Song{i}"
        gold = {"yes_no": rng.choice(["Yes", "No"]), "short_answer": rng.choice([a, b]), "sentence": _sentence(rng)}
        guess = {"yes_no": rng.choice(["yes, it is", "No.", "True", "false", "maybe"]),
                 "short_answer": rng.choice([a, b.upper(), "neither", f"The answer is {a}"]),
                 "sentence": _sentence(rng)}
        for qa_type in QA_TYPES:
            records.append({"pair_id": f"{a}__{b}", "audio1": f"{a}.mp3", "audio2": f"{b}.mp3", "qa_type": qa_type,
                            "question": f"A question of type {qa_type}?", "gold_answer": gold[qa_type],
                            "prediction": guess[qa_type]})
    n = len(records)
    # ~3.5% empty, whitespace-only or null answers, spread over the three types
    for position, answer in zip(range(5, n, n // 6 + 1), ("", " ", "", "\n\t ", None, "  ")):
        records[position]["prediction"] = answer
    # a few rambling 30,000-character answers (one starts with "yes", one names a track)
    ramble = (_sentence(rng, 40, 40) + " ") * 200
    for position, prefix in ((2, ""), (3, "Yes. "), (4, "rock_Track1 ")):
        records[position]["prediction"] = (prefix + ramble)[:30_000]
    records[8]["prediction"] = "The first track\u2028is faster\u2029than the second\u0085one."  # raw separators
    records[9]["gold_answer"] = ""  # a yes_no item with an empty gold answer: counted, always wrong
    records[11]["gold_answer"] = "  "  # a sentence item likewise
    records.append({**records[0], "pair_id": "extra", "qa_type": "multiple_choice", "prediction": "A"})  # left out
    return records


def write_records(records: list[dict[str, Any]], path: Path) -> Path:
    """JSON Lines as a Windows tool writes them: a BOM, CRLF line ends, raw non-ASCII."""
    text = "".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in records)
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    return path


def _normalise(text: str | None) -> str:
    return " ".join((text or "").strip().lower().split())


def _label(text: str | None, *, gold: bool) -> str | None:
    norm = _normalise(text)
    if norm.startswith("yes") or (not gold and norm == "true"):
        return "yes"
    if norm.startswith("no") or (not gold and norm == "false"):
        return "no"
    return None


def evaluate_py(records: list[dict[str, Any]]) -> dict[str, float]:
    """evaluate.py's numbers: yes/no and two-way-substring accuracy (0-1), sacrebleu corpus BLEU
    (0-100), rouge-score F x100 with stemming, over the records of its three qa_types."""
    by_type: dict[str, list[dict[str, Any]]] = {t: [] for t in QA_TYPES}
    for record in records:
        if record["qa_type"] in by_type:
            by_type[record["qa_type"]].append(record)
    yes_no = [(_label(r["prediction"], gold=False) or "?") == (_label(r["gold_answer"], gold=True) or "!")
              for r in by_type["yes_no"]]
    short = []
    for r in by_type["short_answer"]:
        p, g = _normalise(r["prediction"]), _normalise(r["gold_answer"])
        short.append(bool(p) and bool(g) and (g in p or p in g))
    hyps = [r["prediction"] or "" for r in by_type["sentence"]]
    refs = [r["gold_answer"] for r in by_type["sentence"]]
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    rouge = [scorer.score(ref, hyp) for ref, hyp in zip(refs, hyps)]
    return {
        "yes_no_accuracy": sum(yes_no) / len(yes_no),
        "short_answer_accuracy": sum(short) / len(short),
        "bleu": sacrebleu.corpus_bleu(hyps, [refs]).score,
        **{key: fmean(s[key].fmeasure for s in rouge) * 100 for key in ("rouge1", "rouge2", "rougeL")},
    }
