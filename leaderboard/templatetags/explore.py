"""Formatting for the item explorer and the comparison page: inputs in full, numbers for reading."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def inputs_view(inputs: Any) -> dict[str, Any]:
    """An item's public inputs in reading order: question, both tracks, dialogue turns, candidates."""
    inputs = inputs if isinstance(inputs, dict) else {}
    captions = inputs.get("candidate_captions")
    candidates = [str(c) for c in inputs.get("candidates") or []]
    if isinstance(captions, dict):
        pairs = [(c, str(captions.get(c, ""))) for c in candidates or captions]
    elif isinstance(captions, list):
        pairs = [(c, str(t)) for c, t in zip(candidates, captions)]
    else:
        pairs = [(c, "") for c in candidates]
    dialogue = inputs.get("dialogue")
    turns = [dialogue] if isinstance(dialogue, str) else [_turn(t) for t in dialogue or []]
    tracks = [str(inputs[k]) for k in ("audio1", "audio2", "audio") if inputs.get(k)]
    prompts = [p.get("options") or [] for p in inputs.get("prompts") or [] if isinstance(p, dict)]
    return {"question": inputs.get("question", ""), "tracks": tracks, "turns": turns,
            "tracks_label": "Tracks" if len(tracks) > 1 else "Audio",
            "summary": inputs.get("summary", ""), "candidates": pairs, "context": inputs.get("context", ""),
            "setting": inputs.get("setting", ""), "option_sets": [inputs["options"]] if inputs.get("options")
            else prompts}


@register.filter
def answers_view(item: Any) -> list[dict[str, str]]:
    """A multiple-choice item's raw responses, each beside the answer the publisher's rules extract
    from it (from the item's notes; empty where none are shown)."""
    notes = _parse_note(item.get("notes")) if isinstance(item, dict) else None
    prediction = item.get("prediction") if isinstance(item, dict) else None
    if not isinstance(notes, dict):
        return []
    if isinstance(notes.get("passes"), list) and isinstance(prediction, list):
        return [{"raw": str(raw), "parsed": str(parsed)} for raw, parsed in zip(prediction, notes["passes"])]
    if "choice" in notes and isinstance(prediction, str):
        return [{"raw": prediction, "parsed": str(notes["choice"])}]
    return []


def _parse_note(notes: Any) -> Any:
    """The note that holds what the publisher's rules read from the answer: the accuracy's (multiple choice), else
    the first one with a ``choice`` (the key a CMI-Bench key answer is read as)."""
    if not isinstance(notes, dict):
        return None
    if "accuracy" in notes:
        return notes["accuracy"]
    return next((n for n in notes.values() if isinstance(n, dict) and "choice" in n), None)


def _turn(turn: Any) -> str:
    if isinstance(turn, dict):
        speaker = turn.get("speaker") or turn.get("role") or ""
        text = turn.get("text") or turn.get("utterance") or turn.get("content") or ""
        return f"{speaker}: {text}" if speaker else str(text)
    return str(turn)


@register.filter
def as_responses(prediction: Any) -> list[str]:
    """A prediction that is several raw responses (one per prompt), else an empty list."""
    if isinstance(prediction, list) and prediction and all(isinstance(p, str) for p in prediction):
        return prediction
    return []


@register.filter
def readable(value: Any, decimals: int = 3) -> str:
    """A prediction or reference for reading: candidate scores rounded, rankings numbered, lists joined."""
    if value is None:
        return "–"
    if isinstance(value, str) and not value.strip():
        return EMPTY
    if isinstance(value, dict):
        if _is_ranking(value):  # a ranking submitted as a list is stored as n..1: shown as the ranking
            return " > ".join(sorted(value, key=lambda k: -value[k]))
        return ", ".join(f"{k}: {_round(v, decimals)}" for k, v in value.items())
    if isinstance(value, list):
        if value and all(isinstance(v, str) for v in value):
            return " > ".join(value)
        return ", ".join(_round(v, decimals) for v in value)
    if isinstance(value, float):
        return _round(value, decimals)
    return str(value)


EMPTY = "(empty)"  # an empty or blank prediction, as the explorer shows it and its text search finds it


def _is_ranking(scores: dict[str, Any]) -> bool:
    """Scores that are exactly the ranks n..1 of n candidates: what a submitted ranking is stored as."""
    values = list(scores.values())
    if not values or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return False
    return sorted(values) == [float(i) for i in range(1, len(values) + 1)]


def _round(value: Any, decimals: int) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    return f"{value:.{decimals}f}"


@register.filter
def signed(value: Any, decimals: int = 4) -> str:
    if value is None:
        return "–"
    return f"{float(value):+.{int(decimals)}f}"


@register.filter
def pvalue(value: Any) -> str:
    if value is None:
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


@register.simple_tag(takes_context=True)
def main_scores(context: Any, submission: Any) -> list[tuple[str, str]]:
    from leaderboard.services.policy.entries import entry_main_scores

    return entry_main_scores(submission=submission, user=context["request"].user)
