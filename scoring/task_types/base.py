"""What every task type shares: typed records and a field checker that logs problems."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from scoring.reading.jsonl import json_type
from scoring.reading.problems import ProblemLog

MAX_TEXT_CHARS = 20_000  # for reference texts only; predictions are bounded by the line limit


@dataclass(frozen=True, slots=True)
class Reference:
    """One benchmark item: public inputs plus the hidden labels.

    ``answers`` holds the reference text(s) (generation, comparative QA);
    ``gold_ranking`` the candidates best-to-worst (ranking). ``public`` holds the
    inputs anyone may see (question, candidates, audio names, context).
    ``answer_index`` is the correct option of a multiple-choice item; ``groups``
    the ``key=value`` breakdown subsets it belongs to (``task=music``, ``knowledge=*``).
    """

    id: str
    line: int
    public: Mapping[str, Any]
    answers: tuple[str, ...] = ()
    gold_ranking: tuple[str, ...] = ()
    qa_type: str | None = None
    answer_index: int | None = None  # multiple choice: position of the correct option in the shown order
    groups: frozenset[str] = frozenset()  # "key=value" subsets a metric can be restricted to

    def in_subset(self, applies_to: str) -> bool:
        """Whether a metric restricted to ``applies_to`` (a qa_type or a group) covers this item."""
        return self.qa_type == applies_to or applies_to in self.groups

    @property
    def candidates(self) -> tuple[str, ...]:
        return tuple(self.public.get("candidates", ()))


@dataclass(frozen=True, slots=True)
class Prediction:
    """One predicted item: ``text`` for generation/QA, ``scores`` (aligned with the
    reference's candidates, higher is better) for ranking, ``texts`` (one answer per
    prompt, in the prompts' order) for leave-one-out multiple choice."""

    id: str
    line: int
    text: str = ""
    scores: tuple[float, ...] = ()
    texts: tuple[str, ...] = ()


@dataclass(slots=True)
class Fields:
    """Reads fields of one JSON object, logging a problem for each bad one."""

    obj: Mapping[str, Any]
    log: ProblemLog
    file: str
    line: int
    ok: bool = True

    def problem(self, kind: str, message: str, field: str | None) -> None:
        self.ok = False
        self.log.add(self.file, self.line, kind, message, field)

    def warn(self, kind: str, message: str, field: str | None) -> None:
        """Something scored as the publisher scores it; the record stays valid."""
        self.log.warn(self.file, self.line, kind, message, field)

    def require(self, name: str) -> Any:
        if name not in self.obj or self.obj[name] is None:
            told = "is missing" if name not in self.obj else "is null"
            self.problem("missing_field", f'required field "{name}" {told}', name)
            return None
        return self.obj[name]

    def identifier(self) -> str | None:
        value = self.require("id")
        if value is None:
            return None
        if not isinstance(value, str):
            self.problem("wrong_type", f"id must be a string, got {json_type(value)}", "id")
            return None
        if not value.strip():
            self.problem("empty_text", "id is empty", "id")
            return None
        return value

    def text(self, name: str, *, required: bool = True, allow_empty: bool = False) -> str | None:
        value = self.require(name) if required else self.obj.get(name)
        if value is None:
            return None
        if not isinstance(value, str):
            self.problem("wrong_type", f"{name} must be a string, got {json_type(value)}", name)
            return None
        return self._checked_text(value, name, allow_empty)

    def prediction_text(self, name: str = "prediction") -> str | None:
        """A model's answer. Empty, whitespace-only and null answers are scored as the publishers'
        evaluators score them (null as ``""``) and logged as warnings; the only length limit is
        the line limit (:data:`scoring.reading.jsonl.MAX_LINE_BYTES`)."""
        if name not in self.obj:
            self.problem("missing_field", f'required field "{name}" is missing', name)
            return None
        value = self.obj[name]
        if value is None:
            self.warn("null_prediction", f"{name} is null; scored as an empty answer", name)
            return ""
        if not isinstance(value, str):
            self.problem("wrong_type", f"{name} must be a string, got {json_type(value)}", name)
            return None
        if not value:
            self.warn("empty_prediction", f"{name} is empty; scored as the publisher scores an empty answer", name)
        elif not value.strip():
            self.warn("blank_prediction",
                      f"{name} is whitespace only; scored as is, as the publisher scores it", name)
        return value

    def text_or_texts(self, name: str) -> tuple[str, ...] | None:
        value = self.require(name)
        if value is None:
            return None
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            self.problem(
                "wrong_type", f"{name} must be a string or a non-empty array of strings", name
            )
            return None
        texts = []
        for i, item in enumerate(value):
            if not isinstance(item, str):
                self.problem("wrong_type", f"{name}[{i}] must be a string, got {json_type(item)}", name)
                return None
            checked = self._checked_text(item, f"{name}[{i}]", False)
            if checked is None:
                return None
            texts.append(checked)
        return tuple(texts)

    def string_list(self, name: str) -> tuple[str, ...] | None:
        value = self.require(name)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.problem("wrong_type", f"{name} must be an array of strings", name)
            return None
        return tuple(value)

    def number(self, value: Any, field: str) -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.problem("wrong_type", f"{field} must be a number, got {json_type(value)}", field)
            return None
        try:
            number = float(value)
        except OverflowError:  # an integer literal beyond the float range (up to 4,300 digits parse)
            self.problem("non_finite", f"{field} must be a finite number, got an integer too large for a float", field)
            return None
        if not math.isfinite(number):
            self.problem("non_finite", f"{field} must be a finite number, got {value!r}", field)
            return None
        return number

    def _checked_text(self, value: str, field: str, allow_empty: bool) -> str | None:
        if not allow_empty and not value.strip():
            self.problem("empty_text", f"{field} is empty", field)
            return None
        if len(value) > MAX_TEXT_CHARS:
            self.problem(
                "text_too_long",
                f"{field} has {len(value):,} characters; the limit is {MAX_TEXT_CHARS:,}",
                field,
            )
            return None
        return value


class TaskType(Protocol):
    """Schema of one kind of task: how its JSONL records read and write."""

    name: ClassVar[str]

    def parse_reference(self, fields: Fields) -> Reference | None: ...

    def parse_prediction(self, fields: Fields, reference: Reference | None) -> Prediction | None: ...

    def prediction_json(self, prediction: Prediction, reference: Reference) -> dict[str, Any]: ...
