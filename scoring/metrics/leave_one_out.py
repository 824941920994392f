"""Leave-one-out multiple choice, exactly as RUL-MuChoMusic's released code scores it.

``ExampleAudioEval/qwen_2_audio.py`` of yongyizang/AreYouReallyListening: for each prompt (one
distractor left out), ``extract_answer`` maps the raw response to a letter, in this order:

1. the last ``[[X]]`` (X in A-E, case-sensitive);
2. else the last ``(answer is|chose|choose|select|guess is|I choose|I select|I guess) X\\b``,
   case-insensitive, upper-cased;
3. else the first of A..E for which ``option X``, ``Option X`` or ``(X)`` occurs;
4. else the first shown option (A, B ...) whose lower-cased text occurs in the lower-cased response;
5. else no answer.

The letter becomes the option text shown under it (a letter with no option, such as E of four
options, gives no answer); a pass is correct iff that text equals the correct answer. The item's
answer is the most frequent non-empty answer text over its passes, ties going to the one extracted
first (``Counter.most_common(1)``); the item is correct iff it equals the correct answer.

Outputs: ``correct`` (the item's vote, 1/0), ``pass_correct`` (its passes: per item the fraction
correct, aggregated as correct passes over all passes, the released ``pass_accuracy``) and
``answered`` (the vote is not empty). With ``per_item`` the note names each pass's letter and the
voted answer, and two diagnostics count what ``extract_answer`` could not map to an option: ``unparsed``
(no pass gave an option, so the vote is empty: the released ``most_agreed_answer`` is ``""``) and
``unparsed_passes`` (the passes that gave none: no letter found, or a letter with no option such as E).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import (
    UNPARSED,
    ItemScores,
    MetricFamily,
    ScoringContext,
    Totals,
    mean_totals,
    register_family,
    weighted_nanmean,
)
from scoring.metrics.gold_digests import gold_named
from scoring.task_types import Prediction, Reference

LETTERS = ("A", "B", "C", "D", "E")
_BRACKETED = re.compile(r"\[\[([A-E])\]\]")
_STATED = re.compile(r"(?:answer is|chose|choose|select|guess is|I choose|I select|I guess) ([A-E])\b", re.IGNORECASE)
UNPARSED_PASSES = "unparsed_passes"
IMPL = "yongyizang/AreYouReallyListening ExampleAudioEval/qwen_2_audio.py@d3971de1 extract_answer+Counter vote"


def extract_letter(response: str, options: Sequence[str]) -> str:
    """``extract_answer(response, letter_mapping)`` for options shown as A, B ...: a letter or ``""``."""
    bracketed = _BRACKETED.findall(response)
    if bracketed:
        return str(bracketed[-1])
    stated = _STATED.findall(response)
    if stated:
        return str(stated[-1]).upper()
    for letter in LETTERS:
        if f"option {letter}" in response or f"Option {letter}" in response or f"({letter})" in response:
            return letter
    lowered = response.lower()
    for letter, text in zip(LETTERS, options):
        if text and text.lower() in lowered:
            return letter
    return ""


def answer_text(letter: str, options: Sequence[str]) -> str:
    """The option shown under ``letter``; ``""`` for no letter or a letter past the options."""
    index = LETTERS.index(letter) if letter in LETTERS else len(options)
    return options[index] if index < len(options) else ""


def majority_answer(texts: Sequence[str]) -> str:
    """The most frequent non-empty answer, ties to the first seen; ``""`` when there is none."""
    top = Counter(t for t in texts if t).most_common(1)
    return top[0][0] if top else ""


@register_family
class LeaveOneOut(MetricFamily):
    """Majority-vote and pass-level accuracy over leave-one-out prompts."""

    name: ClassVar[str] = "leave_one_out"
    outputs: ClassVar[tuple[str, ...]] = ("correct", "pass_correct", "answered")
    task_types: ClassVar[tuple[str, ...]] = ("leave_one_out",)
    diagnostic_outputs: ClassVar[tuple[str, ...]] = (UNPARSED, UNPARSED_PASSES)

    def __init__(self, params: Mapping[str, Any], context: ScoringContext) -> None:
        super().__init__(params, context)
        if not self.params.get("per_item"):  # the other columns' job would report the same counts again
            self.diagnostic_outputs = ()  # type: ignore[misc]
        self._gold = ""

    def prepare(self, references: Sequence[Reference]) -> None:
        digest = hashlib.sha256()
        for ref in references:
            options = [p["options"] for p in ref.public["prompts"]]
            digest.update(json.dumps([ref.id, options, ref.answers], ensure_ascii=False).encode())
        self._gold = gold_named(digest.hexdigest()[:16], self.context.label_key)

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        correct, passes, answered, unparsed_passes = [], [], [], []
        notes: list[dict[str, Any] | None] = []
        for ref, pred in zip(references, predictions):
            prompts = ref.public["prompts"]
            responses = pred.texts or ("",) * len(prompts)
            letters = [extract_letter(r, p["options"]) for r, p in zip(responses, prompts)]
            texts = [answer_text(letter, p["options"]) for letter, p in zip(letters, prompts)]
            voted = majority_answer(texts)
            gold = ref.answers[0]
            correct.append(float(voted == gold))
            passes.append((sum(t == gold for t in texts), len(prompts)))
            answered.append(float(voted != ""))
            unparsed_passes.append(float(sum(t == "" for t in texts)))
            notes.append({"passes": [letter or "none" for letter in letters], "answer": voted or "unanswered"})
        stats = np.array(passes, dtype=float).reshape(-1, 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            fraction = stats[:, 0] / stats[:, 1]
        return {
            "correct": ItemScores(np.array(correct), notes=notes if self.params.get("per_item") else None),
            "pass_correct": ItemScores(fraction, stats=stats),
            "answered": ItemScores(np.array(answered)),
            UNPARSED: ItemScores(1.0 - np.array(answered, dtype=float)),
            UNPARSED_PASSES: ItemScores(np.array(unparsed_passes, dtype=float)),
        }

    @classmethod
    def parse_rule(cls, params: Mapping[str, Any]) -> str | None:
        return ("extract_answer maps none of the item's four responses to a shown option ([[X]], 'answer is X', "
                "'option X'/'(X)' or an option's text), so the vote is empty")

    @classmethod
    def item_mean_is_value(cls, output: str) -> bool:
        return output != "pass_correct"  # passes over all items' prompts, not a mean of items' fractions

    def aggregate(self, output: str, scores: ItemScores, weights: np.ndarray) -> np.ndarray:
        if output == "pass_correct" and scores.stats is not None:
            return _pass_totals(scores.stats).of(weights)
        return weighted_nanmean(scores.values, weights)

    def totals(self, output: str, scores: ItemScores) -> Totals | None:
        if output == "pass_correct" and scores.stats is not None:
            return _pass_totals(scores.stats)
        return mean_totals(scores.values)

    def signature_fields(self, output: str) -> dict[str, str]:
        return {"impl": IMPL, "gold": self._gold}


def _pass_totals(stats: np.ndarray) -> Totals:
    return Totals(stats, _ratio)


def _ratio(totals: np.ndarray) -> np.ndarray:
    correct, total = totals[:, 0], totals[:, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, correct / np.where(total > 0, total, 1.0), np.nan)
