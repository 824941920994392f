"""Runs for parse-rate tests: the publishers' gold (MMAU test-mini, MMAR, RUL-MuChoMusic) with messy model-like
answers, synthetic MuChoMusic, and the CMI-Bench authors' released raw outputs; and a digest of every metric value
a run gets (per item and aggregated), to show that counting unparsed answers moved no number.

Only ``scoring`` APIs older than the ``unparsed`` diagnostic are used here, so the digests can be computed with the
code before it and recorded.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scoring.engine import RunScores, Scorer
from scoring.publishers.importers import REFERENCE_IMPORTERS, convert_file
from scoring.reading.validation import load_references
from scoring.specs import get_benchmark
from scoring.task_types import Prediction, Reference
from tests.helpers.listening_data import mmar_answer, rul_response
from tests.helpers.mcq_data import mmau_output, muchomusic_items, write_json
from tests.helpers.shared import shared_file

CMI_TASKS = {  # the released result files' task names -> the benchmark each is hosted as
    "GTZAN": "cmi-gtzan", "VocalSet_tech": "cmi-vocalset-tech", "Nsynth_instrument": "cmi-nsynth-instrument",
    "EMO_arousal": "cmi-emo-arousal", "EMO_valence": "cmi-emo-valence", "gtzan_beat": "cmi-gtzan-beat",
    "ballroom_beat": "cmi-ballroom-beat", "gtzan_downbeat": "cmi-gtzan-downbeat",
    "ballroom_downbeat": "cmi-ballroom-downbeat", "Guzheng_Tech": "cmi-guzheng-tech",
}
CMI_MODELS = ("flamingo", "gama", "gama_it", "ltu", "ltu_as", "mullama", "musilingo", "pengi", "qwen", "qwen2",
              "salmonn")


@dataclass
class Run:
    """One benchmark's references and one run's predictions, with the raw answers as the publisher's files hold
    them (``answers``: a text per item, or the responses of each item for leave-one-out) and each item's options as
    shown (``options``: per item a list, or per item the option lists of its prompts)."""

    benchmark: str
    references: list[Reference]
    predictions: list[Prediction]
    answers: list[Any]
    options: list[Any]


def cmi_records(model: str, task: str) -> list[dict[str, Any]]:
    """A released result file's records (``response``, ``correct_answer``, ...), in test-file order."""
    path = shared_file("data", "cmi-bench-results", model, f"{model}_{task}.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        records: list[dict[str, Any]] = json.load(handle)
    return records


def cmi_run(model: str, task: str) -> Run:
    """A released result file as the publisher's script reads it: each record's response against the publisher's
    copy of its reference (the file's ``correct_answer``)."""
    records = cmi_records(model, task)
    references = [Reference(f"{n}", n + 1, {}, (str(r["correct_answer"]),)) for n, r in enumerate(records)]
    predictions = [Prediction(f"{n}", n + 1, r["response"]) for n, r in enumerate(records)]
    return Run(CMI_TASKS[task], references, predictions, [r["response"] for r in records], [[]] * len(records))


def _references(benchmark: str, fmt: str, source: Path, tmp: Path) -> list[Reference]:
    converted = tmp / f"{benchmark}-references.jsonl"
    convert_file(REFERENCE_IMPORTERS[fmt], source, converted)
    return load_references(get_benchmark(benchmark), converted).references


def mmau_run(tmp: Path, seed: int = 7) -> Run:
    """MMAU test-mini's gold with answers of the shapes that trip ``string_match``."""
    gold = shared_file("data", "mmau", "mmau-test-mini.json")
    references = _references("mmau", "mmau", gold, tmp)
    rng = random.Random(seed)
    items = {i["id"]: i for i in json.loads(gold.read_text(encoding="utf-8"))}
    answers = [mmau_output(rng, items[r.id]) for r in references]
    return Run("mmau", references, [Prediction(r.id, n + 1, a) for n, (r, a) in enumerate(zip(references, answers))],
               answers, [list(items[r.id]["choices"]) for r in references])


def mmar_run(tmp: Path, seed: int = 2025) -> Run:
    """MMAR's gold (its items with two same-word options and with an empty option included) with messy answers."""
    meta = shared_file("data", "mmar", "MMAR-meta.jsonl")
    references = _references("mmar", "mmar", meta, tmp)
    rows = {r["id"]: r for r in (json.loads(line) for line in meta.read_text(encoding="utf-8").splitlines() if line)}
    rng = random.Random(seed)
    answers = [mmar_answer(rng, rows[r.id]) for r in references]
    return Run("mmar", references, [Prediction(r.id, n + 1, a) for n, (r, a) in enumerate(zip(references, answers))],
               answers, [list(rows[r.id]["choices"]) for r in references])


def muchomusic_run(tmp: Path, n: int = 300, seed: int = 11) -> Run:
    """Synthetic MuChoMusic items in the released layout (options in the site's seeded order) with messy outputs."""
    items = muchomusic_items(n, seed=seed)
    path = write_json(items, tmp / "muchomusic.json")
    references = _references("muchomusic", "muchomusic", path, tmp)
    rng = random.Random(seed)
    answers = [_muchomusic_output(rng, list(r.public["options"])) for r in references]
    return Run("muchomusic", references,
               [Prediction(r.id, k + 1, a) for k, (r, a) in enumerate(zip(references, answers))],
               answers, [list(r.public["options"]) for r in references])


def _muchomusic_output(rng: random.Random, options: list[str]) -> str:
    letter, option = "ABCD"[rng.randrange(4)], rng.choice(options)
    return rng.choice([
        letter, f"({letter}) {option}", f"The correct answer is: ({letter})", option, option.upper(),
        f"Definitely {option}", " ".join(options), "", "I cannot tell.", "A or B", "Both A and C seem right.",
        f"The correct answer is: A. The correct answer is: {option}", "none of these", "a guitar",
    ])


def rul_run(tmp: Path, seed: int = 11) -> Run:
    """RUL-MuChoMusic's gold (four leave-one-out prompts an item) with messy responses to each prompt."""
    path = shared_file("data", "rul-muchomusic", "RUL-MuchoMusic.json")
    references = _references("rul-muchomusic", "rul-muchomusic", path, tmp)
    rng = random.Random(seed)
    options = [[list(p["options"]) for p in r.public["prompts"]] for r in references]
    answers = [[rul_response(rng, shown) for shown in item] for item in options]
    return Run("rul-muchomusic", references,
               [Prediction(r.id, n + 1, texts=tuple(a)) for n, (r, a) in enumerate(zip(references, answers))],
               answers, options)


def run_scores(run: Run) -> tuple[Scorer, RunScores]:
    """The benchmark's official scorer and the run's per-item scores (diagnostics included)."""
    scorer = Scorer(get_benchmark(run.benchmark), run.references)
    return scorer, scorer.score_run(run.predictions)


def values_digest(scorer: Scorer, scores: RunScores) -> str:
    """SHA-256 (16 hex) of every metric column's per-item values, statistics and aggregate, bit for bit (the
    ``diag:`` diagnostics left out)."""
    ones = np.ones((1, len(scorer.references)))
    digest = hashlib.sha256()
    for key in sorted(scorer.metric_keys):
        item = scores[key]
        digest.update(key.encode() + b"\0" + np.ascontiguousarray(item.values, dtype=float).tobytes())
        if item.stats is not None:
            digest.update(np.ascontiguousarray(item.stats).tobytes())
        digest.update(np.ascontiguousarray(scorer.aggregate(key, [scores], ones), dtype=float).tobytes())
    return digest.hexdigest()[:16]


def combined_digest(digests: dict[str, str]) -> str:
    """One digest of several runs' digests (each model's, for a task)."""
    return hashlib.sha256("".join(f"{name}:{d}\n" for name, d in digests.items()).encode()).hexdigest()[:16]
