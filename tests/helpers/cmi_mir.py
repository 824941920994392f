"""CMI-Bench beat/downbeat, Guzheng technique and captioning: result files with model-like responses,
and independent readings of the publisher's scoring rules (evaluate.py ``beat_tracking``,
``calculate_frame_f1``, ``music_captioning``) to compare our numbers with.

The oracles are written from the rules, with their own control flow; ``ast.literal_eval`` stands in
for the publisher's ``eval`` (the same value on every literal) and appears only in tests.
"""

from __future__ import annotations

import ast
import itertools
import json
import random
import re
import warnings
from pathlib import Path
from typing import Any

import mir_eval
import numpy as np

from tests.helpers.shared import shared_file

FILES = {
    "cmi-gtzan-beat": "CMI_gtzan_beat_test.jsonl",
    "cmi-ballroom-beat": "CMI_ballroom_beat_test.jsonl",
    "cmi-gtzan-downbeat": "CMI_gtzan_downbeat_test.jsonl",
    "cmi-ballroom-downbeat": "CMI_ballroom_downbeat_test.jsonl",
    "cmi-guzheng-tech": "CMI_Guzheng_Tech_test.jsonl",
    "cmi-sdd": "CMI_SDD_test.jsonl",
    "cmi-musiccaps": "CMI_MusicCaps_test.jsonl",
}
BEAT_BENCHMARKS = ("cmi-gtzan-beat", "cmi-ballroom-beat", "cmi-gtzan-downbeat", "cmi-ballroom-downbeat")
TECHNIQUE_NAMES = ["vibrato", "pointnote", "upwardportamento", "downwardportamento", "plucks", "glissando",
                   "tremolo"]
TECHNIQUES = ["Vibrato", "Point Note", "Upward Portamento", "Downward Portamento", "Plucks", "Glissando", "Tremolo"]


def released_file(benchmark: str) -> Path:
    """The released test file of a benchmark (skips the test without the shared data)."""
    return shared_file("data", "cmi-bench", FILES[benchmark])


def released_records(benchmark: str) -> list[dict[str, Any]]:
    with open(released_file(benchmark), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# --- beat and downbeat ---------------------------------------------------------------------------


def oracle_times(text: str) -> list[float] | None:
    """Times as the publisher's get_beat reads them; None where it raises."""
    found = []
    for raw in re.split(",", text):
        token = "".join(ch for ch in raw.strip() if ch != "s")
        if token[:1].isdigit():
            fields = token.split(":")
            try:
                if len(fields) == 1:
                    found.append(float(token))
                elif fields[1]:
                    found.append(int(fields[0]) * 60 + float(fields[1]))
            except Exception:  # the publisher's bare except around the whole track
                return None
    return sorted(found)


def oracle_track(reference: str, output: str) -> tuple[float, float, float]:
    """(F-measure, CMLt, AMLt) of one track by the publisher's rules."""
    ref, est = oracle_times(reference), oracle_times(output)
    if ref is None or est is None:
        return 0.0, 0.0, 0.0
    ref_a, est_a = np.array(ref), np.array(est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            f = mir_eval.beat.f_measure(ref_a, est_a)
        except Exception:
            f = 0
        try:
            _, cmlt, _, amlt = mir_eval.beat.continuity(ref_a, est_a)
        except Exception:
            cmlt, amlt = 0, 0
    return float(f), float(cmlt), float(amlt)


def oracle_beat(references: list[str], outputs: list[str]) -> dict[str, float]:
    """Mean F-measure, CMLt and AMLt over tracks (0-1)."""
    rows = np.array([oracle_track(r, o) for r, o in zip(references, outputs)])
    return {"f_measure": float(np.mean(rows[:, 0])), "cmlt": float(np.mean(rows[:, 1])),
            "amlt": float(np.mean(rows[:, 2]))}


def beat_response(reference: str, rng: random.Random) -> str:
    """A beat-tracking answer as models write them."""
    times = [t + rng.gauss(0, 0.03) for t in oracle_times(reference) or []]
    times = [abs(t) for t in times]
    seconds = ",".join(f"{t:.2f}s" for t in times)
    return rng.choice([
        reference, seconds, ", ".join(f"{t:.3f}" for t in times),
        ", ".join(f"{int(t // 60)}:{t % 60:05.2f}" for t in times),
        f"Here are the beat timestamps: {seconds}",
        f"Sure! The beats occur at {seconds}. I hope this helps!",
        str([round(t, 2) for t in times]),
        ",".join(f"{t:.2f}s" for t in times[::2]),                      # half tempo
        ",".join(f"{(a + b) / 2:.2f}s" for a, b in itertools.pairwise(times)),  # off-beat
        ",".join(f"{t:.2f}s" for t in times[:5]) + " and so on.",
        "\n".join(f"- {t:.2f}s" for t in times[:8]),
        "```\n" + seconds + "\n```",
        "0.0s,0.54s,1.0ss,1.5s,2.0s",
        "The tempo is approximately 120 BPM.",
        "120 BPM",
        "",
        f"{seconds},40000s",
    ])


# --- Guzheng playing techniques ---------------------------------------------------------------------


def oracle_grid(text: str) -> np.ndarray:
    """The 1,000 x 7 frame grid of one answer as the released evaluate.py (@ 4c15f410) reads it; all zeros where
    it reads no event or raises."""
    grid = np.zeros((1000, 7), dtype=int)
    opening, closing = text.find("["), text.find(")")
    if opening < 0 or closing <= opening:
        return grid
    try:
        literal = text[opening:closing] + ")]"
        value = ast.literal_eval(literal[2:] if literal.startswith('["[') else literal)
        if isinstance(value[0], dict):
            events = [(float(e["start"]), float(e["end"]), e["technique"]) for e in value]
        elif all(type(e) is tuple and len(e) == 3 for e in value):
            events = [(float(a), float(b), str(c)) for a, b, c in value if a[0].isdigit()]
        else:
            events = [tuple(e) for e in value]
        placed = []
        for a, b, c in events:
            if isinstance(a, str) or isinstance(b, str):
                raise TypeError("a string time outside a tuple")
            if isinstance(c, list):
                c = c[0]
            label = "".join(ch for ch in c.lower() if ch not in "_-' .").replace("#", "\u266f")
            placed.append((a % 10, (b - 1e-4) % 10 + 1e-4, label))
        if len(placed) == 1 and placed[0][2] == "notech":
            return grid
        for start, end, label in placed:
            if label in TECHNIQUE_NAMES:  # another technique sets no frame
                grid[int(start * 100): int(end * 100), TECHNIQUE_NAMES.index(label)] = 1
    except Exception:  # the publisher's evaluation would stop here; the answer predicts nothing
        return np.zeros((1000, 7), dtype=int)
    return grid


def oracle_guzheng(references: list[str], outputs: list[str]) -> dict[str, float]:
    """Pooled (micro) and per-class-mean (macro) frame F1 via scikit-learn."""
    from sklearn.metrics import f1_score

    truth = np.vstack([oracle_grid(r) for r in references])
    predicted = np.vstack([oracle_grid(o) for o in outputs])
    return {"micro_f1": float(f1_score(truth.ravel(), predicted.ravel(), zero_division=0)),
            "macro_f1": float(f1_score(truth, predicted, average="macro", zero_division=0))}


def guzheng_response(reference: str, rng: random.Random) -> str:
    """A technique-detection answer as models write them."""
    events = ast.literal_eval(reference)
    jittered = [(f"{max(0.0, float(a) + rng.gauss(0, 0.1)):.4f}", f"{float(b) + rng.gauss(0, 0.1):.4f}", c)
                for a, b, c in events]
    swapped = [(a, b, rng.choice(TECHNIQUES)) for a, b, _ in jittered]
    listed = repr(jittered)
    return rng.choice([
        reference, listed, repr(swapped),
        f"The detected playing techniques are: {listed}. Let me know if you need more detail.",
        f"```python\n{listed}\n```",
        json.dumps([{"start": float(a), "end": float(b), "technique": c} for a, b, c in jittered]).replace('"', "'"),
        repr([(float(a), float(b), c.lower().replace(" ", "_")) for a, b, c in jittered]),
        repr([[float(a), float(b), c] for a, b, c in jittered]),
        "[('0.0', '10.0', 'No Tech')]",
        "[('start_time', 'end_time', 'No Tech')]",
        "[('0.5', '2.0', 'Harmonics')]",
        "I could not detect any playing technique in this recording.",
        "[]",
        "",
        listed[:-1],
    ])


# --- captioning -------------------------------------------------------------------------------------


def oracle_captioning(references: list[str], outputs: list[str], wordnet: Any) -> dict[str, float]:
    """evaluate.py music_captioning's BLEU, BLEU-4, METEOR and ROUGE-L recall, each a mean over items."""
    from nltk.tokenize import wordpunct_tokenize
    from nltk.translate.bleu_score import sentence_bleu
    from nltk.translate.meteor_score import meteor_score
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    totals = {"bleu": 0.0, "bleu4": 0.0, "meteor": 0.0, "rougeL_recall": 0.0}
    for ref, cand in zip(references, outputs):
        totals["rougeL_recall"] += scorer.score(ref, cand)["rougeL"].recall
        totals["bleu4"] += sentence_bleu([ref], cand, weights=(0.0, 0.0, 0.0, 1.0))
        totals["bleu"] += sentence_bleu([ref], cand)
        totals["meteor"] += meteor_score([wordpunct_tokenize(ref)], wordpunct_tokenize(cand), wordnet=wordnet)
    return {key: value / len(outputs) for key, value in totals.items()}


def caption_response(reference: str, rng: random.Random) -> str:
    """A caption as models write them."""
    words = reference.split()
    shuffled = words[:]
    rng.shuffle(shuffled)
    return rng.choice([
        reference, reference.upper(), " ".join(shuffled), " ".join(w for w in words if rng.random() > 0.3),
        "This is a pop song with drums, bass and a female singer. The mood is upbeat.",
        "**Genre:** rock\n**Instruments:** electric guitar, drums\n**Mood:** energetic",
        "", "The audio is a piece of music. " * 6, f"{reference} The recording quality is low.",
        "A calm acoustic guitar melody with soft piano; relaxing and peaceful.",
    ])


def result_file(benchmark: str, path: Path, seed: int, *, jsonl: bool = False) -> list[dict[str, Any]]:
    """A CMI-Bench result file for ``benchmark``: the released records, each with a ``response``."""
    rng = random.Random(seed)
    out = []
    for record in released_records(benchmark):
        if benchmark in BEAT_BENCHMARKS:
            response = beat_response(record["output"], rng)
        elif benchmark == "cmi-guzheng-tech":
            response = guzheng_response(record["output"], rng)
        else:
            response = caption_response(record["output"], rng)
        out.append({**record, "response": response})
    with open(path, "w", encoding="utf-8") as handle:
        if jsonl:
            handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in out)
        else:
            json.dump(out, handle, ensure_ascii=False, indent=1)
    return out
