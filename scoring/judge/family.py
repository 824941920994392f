"""The ``judge`` metric family: an LLM judge profile as leaderboard columns.

Params: ``{"profile": <judge profile>, "judge": <name in ScoringContext.judges>}``;
a gated profile (the error type of failed items) also takes ``score_profile``,
``score_field`` and ``below`` (default: the profile's gate, ``jamendo-paper``'s
``score`` < 3).
Outputs are the profile's numeric fields (NaN where unjudged) or, for a label
profile, one 1.0/0.0 indicator per label on the gated items (NaN elsewhere),
so a label's mean is its share among failed items. Per-item notes carry the
raw reply, rationale, status and any injection flag.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from scoring.judge.profiles import TEMPLATES_DIR, JudgeProfile, Prompt, get_profile, load_profile
from scoring.judge.safety import injection_flag
from scoring.metrics.base import ItemScores, MetricFamily, ScoringContext, register_family
from scoring.specs import MetricSpec
from scoring.task_types import Prediction, Reference

if TYPE_CHECKING:  # the runner imports httpx; scoring.metrics must stay quick to import
    from scoring.judge.runner import Judge, JudgeResult

def _builtin_outputs() -> tuple[str, ...]:
    names = (name for path in sorted(TEMPLATES_DIR.glob("*.toml")) for name in load_profile(path).outputs)
    return tuple(dict.fromkeys(names))


@dataclass
class _Outcome:
    """One item's result across the stages it went through (score, then error type)."""

    status: str
    outputs: dict[str, float] = field(default_factory=dict)
    note: dict[str, Any] = field(default_factory=dict)
    results: list[JudgeResult] = field(default_factory=list)

    def spent(self, attribute: str) -> float:
        return float(sum(getattr(r, attribute) for r in self.results))


_DIAGNOSTIC: dict[str, Callable[[_Outcome, str | None], float]] = {
    "judge_unjudged": lambda o, flag: float(o.status == "unjudged"),
    "judge_skipped_budget": lambda o, flag: float(o.status == "skipped_budget"),
    "judge_flagged": lambda o, flag: float(flag is not None),
    "judge_input_tokens": lambda o, flag: o.spent("input_tokens"),
    "judge_output_tokens": lambda o, flag: o.spent("output_tokens"),
    "judge_cost_usd": lambda o, flag: o.spent("cost_usd"),
    "judge_cache_hits": lambda o, flag: float(sum(r.status == "cached" for r in o.results)),
    "judge_requests": lambda o, flag: o.spent("requests"),
}
DIAGNOSTICS = tuple(_DIAGNOSTIC)
"""Per-item diagnostics (the engine sums them): statuses, injection flags, tokens, cost, cache hits, requests."""


@register_family
class JudgeMetrics(MetricFamily):
    """LLM-as-a-judge scores of one judge profile, by one configured judge."""

    name: ClassVar[str] = "judge"
    outputs: ClassVar[tuple[str, ...]] = _builtin_outputs()
    task_types: ClassVar[tuple[str, ...]] = ("comparative_qa", "generation")
    diagnostic_outputs: ClassVar[tuple[str, ...]] = DIAGNOSTICS
    needs: ClassVar[str | None] = "judges"

    @classmethod
    def value_range(cls, params: Mapping[str, Any], output: str) -> tuple[float, float]:
        """The rubric's range: a reply field's declared minimum and maximum, a derived output's bounds."""
        return get_profile(str(params.get("profile", ""))).output_range(output)

    @classmethod
    def label_gated(cls, params: Mapping[str, Any], output: str) -> bool:
        return get_profile(str(params.get("profile", ""))).gate is not None

    def __init__(self, params: Mapping[str, Any], context: ScoringContext) -> None:
        super().__init__(params, context)
        self.profile = get_profile(str(self.params.get("profile")))
        if self.profile.task_type not in self.task_types:
            raise ValueError(f"judge profile {self.profile.name!r} is for {self.profile.task_type} tasks")
        self.score_profile: JudgeProfile | None = None
        if self.profile.gate is not None:
            self.score_profile = get_profile(str(self.params.get("score_profile", self.profile.gate.score_profile)))
            if self.gate_field not in self.score_profile.outputs:
                raise ValueError(f"score profile {self.score_profile.name!r} has no output {self.gate_field!r} "
                                 "to gate on (set score_field)")

    def unavailable_reason(self) -> str | None:
        name = self.params.get("judge")
        judges = self.context.judges or {}
        if name in judges:
            return None
        configured = ", ".join(sorted(judges)) or "none"
        return f"no judge configured named {name!r} (configured: {configured})"

    @property
    def judge(self) -> Judge:
        judge: Judge = self.context.judges[self.params["judge"]]
        return judge

    @property
    def gate_field(self) -> str:
        assert self.profile.gate is not None
        return str(self.params.get("score_field", self.profile.gate.field))

    @property
    def threshold(self) -> float:
        assert self.profile.gate is not None
        return float(self.params.get("below", self.profile.gate.below))

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        items = [i for i, ref in enumerate(references) if self.profile.applies_to(ref.qa_type)]
        values = [item_fields(references[i], predictions[i]) for i in items]
        outcomes = self._gated(values) if self.score_profile is not None else self._judged(values)
        flags = [injection_flag(predictions[i].text) for i in items]
        return _item_scores(len(references), items, outcomes, flags, outputs)

    def signature_fields(self, output: str) -> dict[str, str]:
        fields = self.judge.signature(self.profile)
        if self.score_profile is not None:
            fields["judge_gate"] = (f"{self.score_profile.name}@{self.score_profile.template_hash}"
                                    f"/{self.gate_field}<{self.threshold:g}")
        return fields

    def _judged(self, values: list[dict[str, str]]) -> list[_Outcome]:
        results = self.judge.judge(self.profile, [self.profile.render(v) for v in values])
        return [_outcome(self.profile, result) for result in results]

    def _gated(self, values: list[dict[str, str]]) -> list[_Outcome]:
        """Score every item with the score profile (cached when already judged), then ask
        for the error type of the items below the threshold."""
        assert self.score_profile is not None
        field_name, threshold = self.gate_field, self.threshold
        scores = self.judge.judge(self.score_profile, [self.score_profile.render(v) for v in values])
        failed = [k for k, s in enumerate(scores) if s.values is not None and float(s.values[field_name]) < threshold]
        prompts: list[Prompt] = [self.profile.render(values[k]) for k in failed]
        labels = dict(zip(failed, self.judge.judge(self.profile, prompts)))
        return [self._gated_outcome(score, labels.get(k)) for k, score in enumerate(scores)]

    def _gated_outcome(self, score: JudgeResult, label: JudgeResult | None) -> _Outcome:
        assert self.score_profile is not None
        if score.values is None:
            return _Outcome(score.status, note={**score.note(), "stage": self.score_profile.name}, results=[score])
        gate_note = {"gate_" + key: value for key, value in score.note().items() if key != "status"}
        gate_note["score"] = float(score.values[self.gate_field])
        if label is None:
            return _Outcome("not_failed", note={"status": "not_failed", **gate_note}, results=[score])
        outcome = _outcome(self.profile, label)
        outcome.note.update(gate_note)
        outcome.results.insert(0, score)
        return outcome


def _outcome(profile: JudgeProfile, result: JudgeResult) -> _Outcome:
    note = result.note()
    if result.values is None:
        return _Outcome(result.status, note=note, results=[result])
    if profile.output.label:
        note["label"] = result.values[profile.output.label]
    return _Outcome(result.status, profile.output_values(result.values), note, [result])


def _item_scores(
    n: int, items: list[int], outcomes: list[_Outcome], flags: list[str | None], outputs: Collection[str]
) -> dict[str, ItemScores]:
    notes: list[dict[str, Any] | None] = [None] * n
    for i, outcome, flag in zip(items, outcomes, flags):
        notes[i] = {**outcome.note, "flag": flag} if flag else outcome.note
    result = {}
    for name in outputs:
        values = np.full(n, np.nan)
        if name in DIAGNOSTICS:
            values[items] = [_DIAGNOSTIC[name](o, flag) for o, flag in zip(outcomes, flags)]
        else:
            values[items] = [o.outputs.get(name, np.nan) for o in outcomes]
        result[name] = ItemScores(values, notes=notes)
    return result


def item_fields(reference: Reference, prediction: Prediction) -> dict[str, str]:
    """Template values of one QA item: the public inputs, the gold answer(s), the prediction."""
    public = reference.public
    values = {k: str(public[k]) for k in ("question", "audio1", "audio2", "pair_id", "qa_type") if public.get(k)}
    answers = reference.answers
    values["gold"] = answers[0] if len(answers) == 1 else "\n".join(f"- {a}" for a in answers)
    values["prediction"] = prediction.text
    return values


def judge_metric_specs(profile: str, judge: str, *, prefix: str = "judge_", **params: Any) -> tuple[MetricSpec, ...]:
    """Leaderboard columns for every output of a judge profile (``<prefix><output>``),
    restricted to the profile's qa_type. Extra ``params`` go to the family (``score_profile``)."""
    spec = get_profile(profile)
    ranges = {f.name: f"{f.minimum:g}-{f.maximum:g}" for f in spec.output.fields}
    columns = []
    for output in spec.outputs:
        is_label = output in spec.output.labels
        label = output.replace("_", " ").capitalize()
        description = (f"Share of failed items ({spec.name}) with this primary error type." if is_label
                       else f"{label} ({ranges.get(output, 'derived')}) by the {spec.name} judge profile.")
        columns.append(MetricSpec(
            f"{prefix}{output}", "judge", output, f"Judge {label.lower()}",
            {"profile": profile, "judge": judge, **params},
            higher_is_better=not is_label, applies_to=spec.qa_type, description=description, decimals=3,
        ))
    return tuple(columns)
