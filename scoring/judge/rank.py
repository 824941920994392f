"""DialBGM with an LLM judge as the ranker: score each candidate 0.0-10.0 for background
suitability (Appendix D) from its caption, and write a ranking prediction file
``{"id", "scores": {candidate: score}}`` that the ranking metrics then score.

An item with any candidate left unjudged is not written (a made-up score would
rank it); its reason is returned so the run can be repeated, and the cache
makes the candidates already judged free.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scoring.judge.profiles import JudgeProfile, Prompt, get_profile
from scoring.judge.runner import Judge, JudgeResult
from scoring.task_types import Reference

DEFAULT_PROFILE = "dialbgm-suitability"
CONTEXTS = ("dialogue", "summary")


@dataclass
class RankOutcome:
    """Prediction rows for the fully judged items, and why the others were left out."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)
    results: dict[tuple[str, str], JudgeResult] = field(default_factory=dict)


def judge_rank(
    references: Sequence[Reference],
    judge: Judge,
    *,
    profile: str = DEFAULT_PROFILE,
    context: str = "dialogue",
    captions: Mapping[str, str] | None = None,
) -> RankOutcome:
    """Score every candidate of every reference; ``context`` picks the full dialogue or its
    one-line summary; ``captions`` (candidate id -> caption) fills in what references lack."""
    if context not in CONTEXTS:
        raise ValueError(f"context must be one of {', '.join(CONTEXTS)}")
    spec = get_profile(profile)
    outcome = RankOutcome()
    slots: list[tuple[str, str]] = []
    prompts: list[Prompt] = []
    for ref in references:
        text = context_text(ref.public, context)
        for candidate in ref.candidates:
            caption = candidate_caption(ref.public, candidate, captions)
            if caption is None:
                outcome.left_out.setdefault(ref.id, f"no caption for candidate {candidate!r}")
                continue
            slots.append((ref.id, candidate))
            prompts.append(spec.render({"dialogue": text, "candidate": candidate, "caption": caption}))
    outcome.results = dict(zip(slots, judge.judge(spec, prompts)))
    for ref in references:
        _add_row(outcome, ref, spec)
    return outcome


def _add_row(outcome: RankOutcome, ref: Reference, spec: JudgeProfile) -> None:
    if ref.id in outcome.left_out:
        return
    scores: dict[str, float] = {}
    for candidate in ref.candidates:
        result = outcome.results[(ref.id, candidate)]
        if result.values is None:
            outcome.left_out[ref.id] = f"candidate {candidate!r} {result.status}: {result.reason}"
            return
        scores[candidate] = float(result.values[spec.primary or spec.outputs[0]])
    outcome.rows.append({"id": ref.id, "scores": scores})


def context_text(public: Mapping[str, Any], context: str) -> str:
    """The dialogue as ``Speaker: text`` lines, or the summary."""
    value = public.get(context)
    if value is None and context == "summary":
        value = public.get("dialogue")
    if isinstance(value, list):
        return "\n".join(_turn(turn) for turn in value)
    return "" if value is None else str(value)


def _turn(turn: Any) -> str:
    if isinstance(turn, Mapping):
        speaker = turn.get("speaker") or turn.get("role")
        text = turn.get("text") or turn.get("utterance") or ""
        return f"{speaker}: {text}" if speaker else str(text)
    return str(turn)


def candidate_caption(public: Mapping[str, Any], candidate: str, captions: Mapping[str, str] | None) -> str | None:
    """From the reference's ``candidate_captions`` (an object by id, or a list aligned with
    the candidates), else from ``captions``."""
    given = public.get("candidate_captions")
    if isinstance(given, Mapping) and given.get(candidate):
        return str(given[candidate])
    if isinstance(given, list):
        candidates = list(public.get("candidates", ()))
        index = candidates.index(candidate)
        if index < len(given) and given[index]:
            return str(given[index])
    return captions.get(candidate) if captions else None


def read_captions(path: str | Path) -> dict[str, str]:
    """Captions by clip id from ``musiccaps-public.csv`` (ytid, caption) or a JSON object."""
    path = Path(path)
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(k): str(v) for k, v in data.items()}
    with open(path, newline="", encoding="utf-8") as handle:
        return {row["ytid"]: row["caption"] for row in csv.DictReader(handle)}

