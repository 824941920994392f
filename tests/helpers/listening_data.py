"""Real-model-like outputs for MMAR and RUL-MuChoMusic tests: letters, option text in sentences,
markdown, extra words, refusals, empty and rambling answers."""

from __future__ import annotations

import random
from typing import Any


def mmar_answer(rng: random.Random, row: dict[str, Any]) -> str:
    """Answers shaped like real audio-LM outputs: letters, text in sentences, markdown, rambling, empty."""
    choices, answer = row["choices"], row["answer"]
    wrong = rng.choice(choices)
    letter = "ABCDEF"[rng.randrange(len(choices))]
    return rng.choice([
        answer, answer.lower(), f"({letter}) {answer}", letter, f"{letter}.", f"The answer is {answer}.",
        f"**{answer}**", f"Answer: {answer}\n\nExplanation: the audio clearly suggests this.", wrong,
        f"It could be {wrong} or {answer}.", "", "   ", "I'm sorry, I cannot listen to audio.",
        f"Based on the sounds I hear, I think it's {answer.upper()}!", f"<answer>{answer}</answer>",
        f"Let me think step by step. First, the audio has {wrong}... but no. Final: {answer}",
    ])


def rul_response(rng: random.Random, options: list[str]) -> str:
    """Responses shaped like real audio-LM outputs for the [[Letter]] prompt."""
    letter = "ABCD"[rng.randrange(4)]
    text = rng.choice(options)
    other = rng.choice(options)
    return rng.choice([
        f"[[{letter}]]", f"The answer is [[{letter}]].",
        f"[[{letter}]] ... on reflection [[{'ABCD'[rng.randrange(4)]}]]",
        f"I think the answer is {letter}.", f"i choose {letter.lower()}", f"My guess is {letter}",
        f"Option {letter} fits best.", f"({letter}) {text}", text, text.upper(), f"**{text}**",
        f"It is either {other} or {text}.", "", "   ", "I cannot hear any audio.", "[[E]]",
        f"The answer is a {text}", f"Step 1: listen. Step 2: the instrument is clearly {text.lower()}. Final: {text}",
        f"Answer: {letter}", f"{letter}",
    ])
