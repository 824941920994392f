"""Multiple-choice answer extraction, exactly as each publisher's released code does it.

The matchers, selected by the ``matcher`` parameter of the ``mcq`` family:

* ``mmau`` — ``string_match`` of MMAU's ``evaluation.py`` (Sakshi113/MMAU, last changed
  74682927, 2025-01-29; MMAR's ``code/evaluation.py`` uses the identical function, matcher
  ``mmar``, which names MMAR's code in signatures). Token
  sets of ``\\b\\w+\\b`` in lower case; correct iff every gold token is in the prediction and
  no token of a differing wrong choice (minus gold tokens) is. A bare letter is never credited.
* ``muchomusic`` — ``extract_responses`` of MuChoMusic's ``muchomusic_eval/scoring.py``
  (mulab-mir/muchomusic @ d3c9a423): cut at the last ``"The correct answer is:"``; exactly one
  distinct *character* among A-D picks that position; otherwise the first option (shown order)
  whose lower-cased text is a substring of the lower-cased output; otherwise unanswered.

Per item the family gives ``correct`` (1/0), ``answered`` (1/0) and, with ``per_item`` (the
all-items accuracy column), a note naming the chosen option (``"B"``) or ``"unanswered"`` and two
diagnostics: ``empty_outputs`` (empty answers are scored, and wrong) and ``unparsed``, the answers the
publisher's parser cannot map to exactly one option. For ``string_match``, which only tests the gold
answer, that is the number of options it would credit were each the gold: none (no option's words, or
words of two options), or several (options with the same word set, such as MMAR's "From near to far" and
"From far to near": the released code credits such an answer when either is the gold). For
``extract_responses``, no option found (its ``-1``, the complement of the instruction-following rate).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import UNPARSED, ItemScores, MetricFamily, ScoringContext, register_family
from scoring.metrics.gold_digests import gold_named
from scoring.task_types import Prediction, Reference

UNANSWERED = -1
MUCHOMUSIC_PREFIX = "The correct answer is:"
MUCHOMUSIC_LETTERS = ("A", "B", "C", "D")
_WORD = re.compile(r"\b\w+\b")


def mmau_tokens(text: str) -> set[str]:
    """MMAU's tokenisation: the set of ``\\b\\w+\\b`` matches of the lower-cased text."""
    return set(_WORD.findall(text.lower()))


def mmau_string_match(answer: str, prediction: str, choices: Sequence[str]) -> bool:
    """MMAU ``string_match(answer, prediction, choices)``, as released."""
    prediction_tokens = mmau_tokens(prediction)
    answer_tokens = mmau_tokens(answer)
    if not prediction_tokens:
        return False
    incorrect: set[str] = set()
    for choice in choices:
        choice_tokens = mmau_tokens(choice)
        if choice_tokens != answer_tokens:
            incorrect.update(choice_tokens - answer_tokens)
    return answer_tokens.issubset(prediction_tokens) and prediction_tokens.isdisjoint(incorrect)


def mmau_choice(prediction: str, options: Sequence[str]) -> int:
    """The first option (shown order) ``string_match`` would credit, or -1 (our per-item view;
    the released code only decides correct/wrong)."""
    for index, option in enumerate(options):
        if mmau_string_match(option, prediction, options):
            return index
    return UNANSWERED


def mmau_unparsed(prediction: str, options: Sequence[str]) -> bool:
    """``string_match`` credits the prediction for no option or for more than one, each option taken as the gold."""
    return sum(mmau_string_match(option, prediction, options) for option in options) != 1


def muchomusic_choice(output: str, options: Sequence[str]) -> int:
    """MuChoMusic ``extract_responses`` for one output: the chosen position, or -1."""
    output = output.split(MUCHOMUSIC_PREFIX)[-1].strip()
    letters = set(MUCHOMUSIC_LETTERS).intersection(output)
    if len(letters) == 1:
        return MUCHOMUSIC_LETTERS.index(letters.pop())
    normalized = output.lower().strip()
    for index, option in enumerate(options):
        if option.lower().strip() in normalized:
            return index
    return UNANSWERED


def _mmau_correct(reference: Reference, text: str) -> bool:
    return mmau_string_match(reference.answers[0], text, reference.public["options"])


def _muchomusic_correct(reference: Reference, text: str) -> bool:
    return muchomusic_choice(text, reference.public["options"]) == reference.answer_index


def _muchomusic_unparsed(output: str, options: Sequence[str]) -> bool:
    return muchomusic_choice(output, options) == UNANSWERED


Choose = Callable[[str, Sequence[str]], int]
Correct = Callable[[Reference, str], bool]
Unparsed = Callable[[str, Sequence[str]], bool]
MATCHERS: dict[str, tuple[Choose, Correct, str, Unparsed]] = {
    "mmau": (mmau_choice, _mmau_correct,
             "Sakshi113/MMAU evaluation.py@74682927 string_match", mmau_unparsed),
    "mmar": (mmau_choice, _mmau_correct,
             "ddlBoJack/MMAR code/evaluation.py@3bce090a string_match", mmau_unparsed),
    "muchomusic": (muchomusic_choice, _muchomusic_correct,
                   "mulab-mir/muchomusic scoring.py@d3c9a423 extract_responses", _muchomusic_unparsed),
}
PARSE_RULES = {
    "mmau": ("string_match (raw, no answer mapping) credits the answer for no option, or for more than one, "
             "taking each option as the gold"),
    "muchomusic": "extract_responses finds no option: neither exactly one of the letters A-D nor an option's text",
}


def option_letter(index: int) -> str:
    """``A``, ``B`` ... for a shown position; ``unanswered`` for -1."""
    return "unanswered" if index == UNANSWERED else chr(ord("A") + index)


def gold_digest(references: Sequence[Reference]) -> str:
    """A short hash of the gold items (id, options, answer): the gold file's version in signatures."""
    digest = hashlib.sha256()
    for ref in references:
        digest.update(json.dumps([ref.id, list(ref.public.get("options", ())), ref.answers, ref.answer_index],
                                 ensure_ascii=False).encode())
    return digest.hexdigest()[:16]


@register_family
class MultipleChoice(MetricFamily):
    """Correctness and answered-rate of free-text answers to multiple-choice items."""

    name: ClassVar[str] = "mcq"
    outputs: ClassVar[tuple[str, ...]] = ("correct", "answered")
    task_types: ClassVar[tuple[str, ...]] = ("multiple_choice",)
    diagnostic_outputs: ClassVar[tuple[str, ...]] = ("empty_outputs", UNPARSED)

    def __init__(self, params: Mapping[str, Any], context: ScoringContext) -> None:
        super().__init__(params, context)
        if self.params.get("matcher") not in MATCHERS:
            raise KeyError(f"unknown mcq matcher {self.params.get('matcher')!r}; valid: {', '.join(MATCHERS)}")
        self._choose, self._correct, self._impl, self._unparsed = MATCHERS[self.params["matcher"]]
        if not self.params.get("per_item"):  # subset columns would overwrite the all-items count
            self.diagnostic_outputs = ()  # type: ignore[misc]
        self._gold = ""

    def prepare(self, references: Sequence[Reference]) -> None:
        self._gold = gold_named(gold_digest(references), self.context.label_key)

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        choices = [self._choose(p.text, r.public["options"]) for r, p in zip(references, predictions)]
        correct = np.array([float(self._correct(r, p.text)) for r, p in zip(references, predictions)])
        notes: list[dict[str, Any] | None] | None = None
        if self.params.get("per_item"):
            notes = [{"choice": option_letter(c)} for c in choices]
        empty = np.array([float(not p.text.strip()) for p in predictions])
        scores = {
            "correct": ItemScores(correct, notes=notes),
            "answered": ItemScores(np.array([float(c != UNANSWERED) for c in choices])),
            "empty_outputs": ItemScores(empty),
        }
        if UNPARSED in outputs:
            unparsed = [self._unparsed(p.text, r.public["options"]) for r, p in zip(references, predictions)]
            scores[UNPARSED] = ItemScores(np.array(unparsed, dtype=float))
        return scores

    @classmethod
    def parse_rule(cls, params: Mapping[str, Any]) -> str | None:
        return PARSE_RULES["muchomusic" if params.get("matcher") == "muchomusic" else "mmau"]

    def signature_fields(self, output: str) -> dict[str, str]:
        return {"impl": self._impl, "gold": self._gold}
