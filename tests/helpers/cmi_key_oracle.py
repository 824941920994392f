"""CMI-Bench GiantSteps key and NSynth pitch: the rebuilt test files (``../shared/data/cmi-bench-tags``), result
files of model-like answers, and independent readings of the publisher's rules (evaluate.py @ 4c15f410
``key_ensamble_score`` with its ``get_pred``, and ``get_multiclass_acc`` applied to pitch) to compare with.

Written from the rules with their own control flow; nothing here imports the code under test. The MIREX weights
are written out here too (:func:`mirex_weight`), so a test can check mir_eval against them.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from tests.helpers.shared import shared_file

FILES = {"cmi-gs-key": "CMI_GS_key_test.jsonl", "cmi-nsynth-pitch": "CMI_Nsynth_pitch_test.jsonl"}
RESULT_TASKS = {"cmi-gs-key": "GS_key", "cmi-nsynth-pitch": "Nsynth_pitch"}  # the released result files' names
KEYS_IN_ORDER = ("C major, Db major, D major, Eb major, E major, F major, Gb major, G major, Ab major, A major, "
                 "Bb major, B major, C minor, Db minor, D minor, Eb minor, E minor, F minor, Gb minor, G minor, "
                 "Ab minor, A minor, Bb minor, B minor").split(", ")
SEMITONE = {"c": 0, "db": 1, "d": 2, "eb": 3, "e": 4, "f": 5, "gb": 6, "g": 7, "ab": 8, "a": 9, "bb": 10, "b": 11}
FLATS = {"c#": "db", "d#": "eb", "f#": "gb", "g#": "ab", "a#": "bb",
         "c\u266f": "db", "d\u266f": "eb", "f\u266f": "gb", "g\u266f": "ab", "a\u266f": "bb"}


def released_file(benchmark: str) -> Path:
    """The rebuilt test file of a benchmark (skips the test without the shared data)."""
    return shared_file("data", "cmi-bench-tags", FILES[benchmark])


def released_records(benchmark: str) -> list[dict[str, Any]]:
    with open(released_file(benchmark), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# --- key -------------------------------------------------------------------------------------------------------


def oracle_key_pred(response: str) -> str | None:
    """get_pred: the first key class named in the rewritten response. Raises where the publisher's code raises."""
    squeezed = response.lower().replace(" ", "")
    kept = [ch for ch in squeezed if not ch.isdigit()]
    text = "".join(kept)
    if len(text) <= 3 and text[-1:] == "m":
        text = text + "inor"
    elif len(text) <= 2:
        text = text + "major"
    if text[1] in ("#", "\u266f"):
        text = FLATS[text[:2]] + text[2:]  # KeyError for e#, b#, ...: the clip scores 0
    for name in KEYS_IN_ORDER:
        if name.lower().strip().replace(" ", "") in text:
            return name
    return None


def mirex_weight(reference: str, estimate: str) -> float:
    """The MIREX key weights (as mir_eval.key.weighted_score gives them for major/minor keys)."""
    ref_tonic, ref_mode = reference.split()
    est_tonic, est_mode = estimate.split()
    up = (SEMITONE[est_tonic.lower()] - SEMITONE[ref_tonic.lower()]) % 12
    if ref_mode == est_mode:
        return {0: 1.0, 7: 0.5}.get(up, 0.0)
    if ref_mode == "major":
        return {9: 0.3, 0: 0.2}.get(up, 0.0)
    return {3: 0.3, 0: 0.2}.get(up, 0.0)


def oracle_key_item(reference: str, response: str) -> tuple[float, str | None]:
    """One clip of key_ensamble_score (the bare except scores 0), with the key read."""
    try:
        estimate = oracle_key_pred(response)
    except Exception:
        return 0.0, None
    if estimate is None:  # mir_eval refuses None, the except scores it 0
        return 0.0, None
    return mirex_weight(reference, estimate), estimate


def oracle_key_score(references: list[str], responses: list[str]) -> float:
    return float(np.mean([oracle_key_item(ref, res)[0] for ref, res in zip(references, responses)]))


def key_response(gold: str, rng: random.Random) -> str:
    """A key answer as models write them: sharps, unicode accidentals, short forms, sentences, hedges."""
    tonic, mode = gold.split()
    other = rng.choice([k for k in KEYS_IN_ORDER if k != gold])
    sharp = {"Db": "C#", "Eb": "D#", "Gb": "F#", "Ab": "G#", "Bb": "A#"}.get(tonic, tonic)
    short = tonic + ("m" if mode == "minor" else "")
    return rng.choice([
        gold, gold.upper(), gold.lower(), f"The key is {gold}.", f"**{gold}**", f"{sharp} {mode}", f"{sharp}m",
        short, short.lower(), f"{tonic.replace('b', '♭')} {mode}", f"{sharp.replace('#', '♯')} {mode}",
        f"{tonic} {'sharp' if '#' in sharp else ''} {mode}", f"{gold} / {other}", f"{other} or {gold}",
        f"Key: {tonic}4 {mode}", f"The song is in {sharp} {mode}.", "", "I cannot determine the key.", "key: d",
        f"{tonic}\n{mode}", f"{gold}\n\nThe harmony centres on the tonic.", "E# major", "B#m", f"Relative: {other}",
        f"{tonic} {mode[:3]}", tonic, f"{sharp}", "x", "Cb major", f"²{gold}", f"{tonic}\t{mode}",
    ])


# --- pitch -----------------------------------------------------------------------------------------------------


def publisher_normalise(text: str) -> str:
    out = text
    for old, new in (("_", ""), ("-", ""), ("#", "\u266f"), ("'", ""), (" ", ""), (".", "")):
        out = out.replace(old, new)
    return out.lower()


def oracle_pitch_items(references: list[str], responses: list[str]) -> list[float]:
    """get_multiclass_acc item by item: the class strings are str() of every reference of the run."""
    classes = [publisher_normalise(c) for c in {str(r) for r in references}]
    out = []
    for gold, response in zip(references, responses):
        said, want = publisher_normalise(response), publisher_normalise(str(gold))
        others = [c for c in classes if c != want]
        out.append(1.0 if want in said and not any(c in said for c in others) else 0.0)
    return out


def pitch_response(gold: int, rng: random.Random) -> str:
    """A pitch answer as models write them: MIDI numbers in sentences, note names, words, ranges, hedges."""
    near = gold + rng.choice([-12, -1, 1, 12])
    return rng.choice([
        str(gold), f"MIDI {gold}", f"{gold}.", f"C4 ({gold})", "sixty", f"The pitch is {gold}.",
        f"MIDI pitch number: {gold}\n\nThe note is sustained.", f"{gold} or {near}", f"{near}", f"0{gold}",
        f"{gold}-{near}", f"**{gold}**", "", "A4", "69 Hz", f"#{gold}", f"pitch {gold // 10} {gold % 10}",
        f"The answer is {gold}. (Example 1: 33)", f"{gold}\n", "I cannot tell the pitch.", f"{gold}{gold}",
        f"{float(gold)}", f"[{gold}]",
    ])


def result_file(benchmark: str, path: Path, seed: int, *, jsonl: bool = False) -> list[dict[str, Any]]:
    """A CMI-Bench result file: the test file's records each with a model-like ``response``."""
    rng = random.Random(seed)
    out = []
    for record in released_records(benchmark):
        gold = record["output"]
        response = key_response(gold, rng) if benchmark == "cmi-gs-key" else pitch_response(gold, rng)
        out.append({**record, "response": response})
    with open(path, "w", encoding="utf-8") as handle:
        if jsonl:
            handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in out)
        else:
            json.dump(out, handle, ensure_ascii=False)
    return out
