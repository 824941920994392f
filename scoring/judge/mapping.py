"""The ``mcq_mapped`` metric family: a multiple-choice answer mapped onto an option by an LLM, then scored by
the publisher's matcher.

MMAU's official board maps free-form answers with GPT-4o before ``string_match`` (its prompt is unreleased);
this family offers that kind of protocol with this site's prompt (``scoring/judge/templates/
mmau-answer-mapping.toml``) and a configured judge, one column per judge (the engine's per-judge plan), so an
entry's raw and mapped accuracies stand side by side, each ranked only with its own kind.

Per item: the judge names an option (1, 2, ...) or none (0). A named option's text is what ``string_match``
scores; an answer mapped to no option, or not mapped (the judge failed or the budget ran out), is scored as
written, so every item is scored and the column never averages over fewer items than the raw one. The judge
sees the question, the options and the answer, never the gold.

Params: ``{"matcher": "mmau", "profile": "mmau-answer-mapping", "judge": <name>, "per_item": bool}``.
Diagnostics (``per_item`` only): ``mapped_unjudged`` (answers scored as written because the judge gave no
usable reply) and ``mapped_changed`` (answers whose correctness the mapping changed).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from scoring.judge.profiles import get_profile
from scoring.metrics.base import ItemScores, MetricFamily, ScoringContext, register_family
from scoring.metrics.gold_digests import gold_named
from scoring.metrics.mcq import MATCHERS, gold_digest, option_letter
from scoring.task_types import Prediction, Reference

if TYPE_CHECKING:  # the runner imports httpx; scoring.metrics must stay quick to import
    from scoring.judge.runner import Judge, JudgeResult

MAPPED_UNJUDGED, MAPPED_CHANGED = "mapped_unjudged", "mapped_changed"


def options_text(options: Sequence[str]) -> str:
    """The options as the prompt lists them: ``1. first`` per line."""
    return "\n".join(f"{n}. {option}" for n, option in enumerate(options, start=1))


def mapped_text(result: JudgeResult, prediction: str, options: Sequence[str]) -> tuple[str, int | None]:
    """What the matcher scores for one item (the chosen option's text, or the answer as written) and the option
    index chosen (None: not mapped; -1: mapped to no option)."""
    if result.values is None:
        return prediction, None
    choice = float(result.values["choice"])
    if choice.is_integer() and 1 <= choice <= len(options):
        return options[int(choice) - 1], int(choice) - 1
    return prediction, -1


@register_family
class MappedChoice(MetricFamily):
    """Accuracy of answers first mapped onto an option by a configured LLM judge."""

    name: ClassVar[str] = "mcq_mapped"
    outputs: ClassVar[tuple[str, ...]] = ("correct",)
    task_types: ClassVar[tuple[str, ...]] = ("multiple_choice",)
    diagnostic_outputs: ClassVar[tuple[str, ...]] = (MAPPED_UNJUDGED, MAPPED_CHANGED)
    needs: ClassVar[str | None] = "judges"

    def __init__(self, params: Mapping[str, Any], context: ScoringContext) -> None:
        super().__init__(params, context)
        if self.params.get("matcher") not in MATCHERS:
            raise KeyError(f"unknown mcq matcher {self.params.get('matcher')!r}; valid: {', '.join(MATCHERS)}")
        self._correct, self._impl = MATCHERS[self.params["matcher"]][1:3]
        self.profile = get_profile(str(self.params.get("profile", "mmau-answer-mapping")))
        if not self.params.get("per_item"):  # subset columns would overwrite the all-items counts
            self.diagnostic_outputs = ()  # type: ignore[misc]
        self._gold = ""

    def unavailable_reason(self) -> str | None:
        name, judges = self.params.get("judge"), self.context.judges or {}
        return None if name in judges else f"no judge configured named {name!r}"

    @property
    def judge(self) -> Judge:
        judge: Judge = self.context.judges[self.params["judge"]]
        return judge

    def prepare(self, references: Sequence[Reference]) -> None:
        self._gold = gold_named(gold_digest(references), self.context.label_key)

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        prompts = [self.profile.render({"question": str(r.public.get("question", "")),
                                        "options": options_text(r.public["options"]), "prediction": p.text})
                   for r, p in zip(references, predictions)]
        results = self.judge.judge(self.profile, prompts)
        mapped = [mapped_text(result, p.text, r.public["options"])
                  for result, r, p in zip(results, references, predictions)]
        correct = np.array([float(self._correct(r, text)) for r, (text, _) in zip(references, mapped)])
        raw = np.array([float(self._correct(r, p.text)) for r, p in zip(references, predictions)])
        notes: list[dict[str, Any] | None] | None = None
        if self.params.get("per_item"):
            notes = [{**result.note(), "choice": "not mapped" if index is None else option_letter(index)}
                     for result, (_, index) in zip(results, mapped)]
        return {
            "correct": ItemScores(correct, notes=notes),
            MAPPED_UNJUDGED: ItemScores(np.array([float(index is None) for _, index in mapped])),
            MAPPED_CHANGED: ItemScores((correct != raw).astype(float)),
        }

    def signature_fields(self, output: str) -> dict[str, str]:
        return {"impl": f"{self._impl} after LLM answer mapping", "gold": self._gold,
                **self.judge.signature(self.profile)}
