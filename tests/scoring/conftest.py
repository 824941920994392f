"""Shared fixtures of the scoring tests (pure library: no Django, no database).

Run with ``.venv/bin/pytest -p no:django tests/scoring -q``; ``-m slow`` selects the
BERTScore tests that load a model, ``-m "not slow"`` skips them.

The real reference data lives outside the repository, in ``$SHARED_DIR/data``
(default ``<repo>/../shared``); tests that need it are skipped when it is absent.
Helpers are exposed as session-scoped fixtures (``synth``, ``jsonl``, ``cli``) so that
Hypothesis tests can use them too.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from scoring.task_types import Prediction, Reference
from tests.helpers.shared import SHARED_DIR, shared_file  # noqa: F401  (tests import them from here)

REPO_ROOT = Path(__file__).resolve().parents[2]

WORDS = (
    "the", "track", "has", "a", "warm", "bass", "line", "and", "bright", "synth", "lead", "while", "other",
    "uses", "acoustic", "guitar", "with", "slow", "tempo", "energetic", "drums", "mellow", "piano", "vocals",
    "ambient", "pads", "distorted", "electric", "riff", "upbeat", "groove", "calm", "melancholic", "dreamy",
    "layered", "reverb", "heavy", "percussion", "soft", "strings", "fast", "rhythm",
)


@pytest.fixture
def musicqa_json() -> Path:
    return shared_file("data", "musicqa", "EvalMusicQA.json")


@pytest.fixture
def jamendo_examples_json() -> Path:
    return shared_file("data", "jamendo-mt-qa", "examples_from_project_page.json")


@pytest.fixture
def musiccaps_csv() -> Path:
    return shared_file("data", "musiccaps", "musiccaps-public.csv")


class Jsonl:
    """Write and read JSON Lines files."""

    @staticmethod
    def write(path: Path, records: Sequence[dict[str, Any]]) -> Path:
        with open(path, "w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        return path

    @staticmethod
    def read(path: Path) -> list[dict[str, Any]]:
        with open(path, encoding="utf-8") as handle:
            return [json.loads(line) for line in handle if line.strip()]


class Synth:
    """Seeded synthetic items shaped like each benchmark's JSONL contract."""

    @staticmethod
    def sentence(rng: random.Random, low: int = 8, high: int = 20) -> str:
        return " ".join(rng.choices(WORDS, k=rng.randint(low, high)))

    @staticmethod
    def dialbgm(n: int, seed: int = 0, k: int = 4) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """References and random-score predictions (no ties) for ``n`` ranking items."""
        rng = random.Random(seed)
        refs, preds = [], []
        for i in range(n):
            candidates = [f"clip{i}_{c}" for c in range(k)]
            gold = candidates[:]
            rng.shuffle(gold)
            refs.append({"id": f"d{i}", "candidates": candidates, "gold_ranking": gold, "dialogue": f"dialogue {i}"})
            preds.append({"id": f"d{i}", "scores": {c: rng.random() for c in candidates}})
        return refs, preds

    @staticmethod
    def jamendo(n_pairs: int, seed: int = 0) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """References and noisy predictions for ``n_pairs`` x (yes_no, short_answer, sentence)."""
        rng = random.Random(seed)
        refs, preds = [], []
        for i in range(n_pairs):
            a, b = f"rock_Track{i}", f"jazz_Song{i}"
            answers = {
                "yes_no": rng.choice(["Yes", "No"]),
                "short_answer": rng.choice([a, b]),
                "sentence": Synth.sentence(rng),
            }
            guesses = {
                "yes_no": rng.choice(["yes, it is", "No.", "True", "false", "maybe"]),
                "short_answer": rng.choice([a, b.upper(), "neither"]),
                "sentence": Synth.sentence(rng),
            }
            for qa_type in ("yes_no", "short_answer", "sentence"):
                item_id = f"{a}__{b}::{qa_type}"
                refs.append({"id": item_id, "pair_id": f"{a}__{b}", "audio1": a, "audio2": b,
                             "qa_type": qa_type, "question": f"question about {qa_type}?",
                             "answer": answers[qa_type]})
                preds.append({"id": item_id, "prediction": guesses[qa_type]})
        return refs, preds

    @staticmethod
    def generation(n: int, seed: int = 0) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Caption-like references and predictions that share some words."""
        rng = random.Random(seed)
        refs, preds = [], []
        for i in range(n):
            refs.append({"id": f"g{i}", "audio": f"{i:06d}.wav", "question": "Describe the music.",
                         "answer": Synth.sentence(rng)})
            preds.append({"id": f"g{i}", "prediction": Synth.sentence(rng)})
        return refs, preds

    @staticmethod
    def ranking_objects(
        scores: np.ndarray, relevance: np.ndarray
    ) -> tuple[list[Reference], list[Prediction]]:
        """Reference/Prediction records from score and relevance matrices (n, k)."""
        refs, preds = [], []
        for i, (row_scores, row_rel) in enumerate(zip(scores, relevance)):
            candidates = tuple(f"c{j}" for j in range(len(row_scores)))
            gold = tuple(c for _, c in sorted(zip(row_rel, candidates), key=lambda t: -t[0]))
            refs.append(Reference(id=f"r{i}", line=i + 1, public={"candidates": list(candidates)},
                                  gold_ranking=gold))
            preds.append(Prediction(id=f"r{i}", line=i + 1, scores=tuple(float(s) for s in row_scores)))
        return refs, preds

    @staticmethod
    def text_objects(
        answers: Sequence[str | Sequence[str]], predictions: Sequence[str], qa_types: Sequence[str] | None = None
    ) -> tuple[list[Reference], list[Prediction]]:
        refs, preds = [], []
        for i, (answer, text) in enumerate(zip(answers, predictions)):
            answer_tuple = (answer,) if isinstance(answer, str) else tuple(answer)
            qa_type = qa_types[i] if qa_types else None
            public = {"qa_type": qa_type} if qa_type else {}
            refs.append(Reference(id=f"t{i}", line=i + 1, public=public, answers=answer_tuple, qa_type=qa_type))
            preds.append(Prediction(id=f"t{i}", line=i + 1, text=text))
        return refs, preds


class Cli:
    """``python -m scoring`` in a subprocess, the way a user runs it."""

    @staticmethod
    def run(*args: str | Path, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        return subprocess.run(
            [sys.executable, "-m", "scoring", *map(str, args)],
            capture_output=True, text=True, cwd=cwd or REPO_ROOT, env=env, timeout=timeout,
        )

    @staticmethod
    def score_json(*args: str | Path) -> dict[str, Any]:
        result = Cli.run("score", *args)
        assert result.returncode == 0, result.stderr
        report: dict[str, Any] = json.loads(result.stdout)
        return report


@pytest.fixture(scope="session")
def synth() -> type[Synth]:
    return Synth


@pytest.fixture(scope="session")
def jsonl() -> type[Jsonl]:
    return Jsonl


@pytest.fixture(scope="session")
def cli() -> type[Cli]:
    return Cli
