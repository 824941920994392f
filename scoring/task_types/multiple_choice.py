"""Multiple-choice questions (MMAU, MuChoMusic, MMAR): options in a fixed shown order, free-text answers.

Reference line::

    {"id", "question", "options": ["..", ".."], "answer": "<one of the options>",
     "answer_index"?: <position of the answer>, "audio"?: "..", "metadata"?: {"task": "music", "knowledge": [..]}}

``answer`` is kept exactly as the publisher gives it (MMAU's matcher reads its tokens);
``answer_index`` defaults to the option equal to it (spaces ignored). Metadata values (a
string or a list of strings) define the breakdown subsets ``key=value`` (and ``key=*`` for a
non-empty list). Prediction line: ``{"id", "prediction": "<raw model text>", "options"?: [..]}``;
when ``options`` is given it must equal the published shown order (surrounding whitespace of an
option aside). An empty, whitespace-only or null prediction is scored (null as ``""``), and wrong,
with a warning; an answer's only length limit is the line limit.
"""

from __future__ import annotations

from typing import Any, ClassVar

from scoring.reading.jsonl import json_type
from scoring.task_types.base import Fields, Prediction, Reference

MAX_OPTIONS = 26


class MultipleChoiceTask:
    name: ClassVar[str] = "multiple_choice"

    def parse_reference(self, fields: Fields) -> Reference | None:
        item_id = fields.identifier()
        question = fields.text("question")
        options = _options(fields)
        answer = fields.text("answer")
        metadata = item_metadata(fields)
        audio = fields.text("audio", required=False)
        index = _answer_index(fields, options, answer)
        if not fields.ok or item_id is None or question is None or options is None or answer is None:
            return None
        public: dict[str, Any] = {"question": question, "options": list(options)}
        if audio is not None:
            public["audio"] = audio
        if metadata:
            public["metadata"] = metadata
        return Reference(id=item_id, line=fields.line, public=public, answers=(answer,),
                         answer_index=index, groups=item_groups(metadata))

    def parse_prediction(self, fields: Fields, reference: Reference | None) -> Prediction | None:
        item_id = fields.identifier()
        text = fields.prediction_text("prediction")
        if "options" in fields.obj and reference is not None:
            shown = reference.public["options"]
            if not _same_options(fields.obj["options"], shown):
                fields.problem("options_mismatch", "options differ from the published options or their order "
                               f"for this item (expected {shown!r}; take them from the split's inputs download)",
                               "options")
        if not fields.ok or item_id is None or text is None:
            return None
        return Prediction(id=item_id, line=fields.line, text=text)

    def prediction_json(self, prediction: Prediction, reference: Reference) -> dict[str, Any]:
        return {"id": prediction.id, "prediction": prediction.text}


def _same_options(given: Any, shown: list[str]) -> bool:
    """Equal up to each option's surrounding whitespace, which neither released matcher reads
    (MMAU's takes word tokens, MuChoMusic's strips every option)."""
    if not isinstance(given, list) or len(given) != len(shown) or not all(isinstance(o, str) for o in given):
        return False
    return [o.strip() for o in given] == [o.strip() for o in shown]


def _options(fields: Fields) -> tuple[str, ...] | None:
    options = fields.string_list("options")
    if options is None:
        return None
    if not 2 <= len(options) <= MAX_OPTIONS:
        fields.problem("invalid_value", f"options must list 2 to {MAX_OPTIONS} choices, got {len(options)}", "options")
        return None
    empty = [i for i, o in enumerate(options) if not o.strip()]
    if empty:  # MMAR-meta.jsonl has four; the publishers' matchers read them as they are
        fields.warn("empty_option", f"option {empty[0] + 1} of {len(options)} is empty; kept, as the publisher's "
                    "matcher reads it", "options")
    return options


def _answer_index(fields: Fields, options: tuple[str, ...] | None, answer: str | None) -> int | None:
    if options is None or answer is None:
        return None
    given = fields.obj.get("answer_index")
    if given is not None:
        if isinstance(given, bool) or not isinstance(given, int) or not 0 <= given < len(options):
            fields.problem("invalid_value", f"answer_index must be a position 0..{len(options) - 1}", "answer_index")
            return None
        if options[given].strip() != answer.strip():
            fields.problem("invalid_value", "answer_index does not point at the answer", "answer_index")
            return None
        return int(given)
    stripped = [o.strip() for o in options]
    if answer.strip() not in stripped:
        fields.problem("invalid_value", "answer is not one of the options", "answer")
        return None
    return stripped.index(answer.strip())


def item_metadata(fields: Fields) -> dict[str, Any]:
    """A reference's ``metadata`` object (strings or arrays of strings); a problem logged for any other shape."""
    value = fields.obj.get("metadata")
    if value is None:
        return {}
    if not isinstance(value, dict):
        fields.problem("wrong_type", f"metadata must be an object, got {json_type(value)}", "metadata")
        return {}
    for key, item in value.items():
        ok = isinstance(item, str) or (isinstance(item, list) and all(isinstance(v, str) for v in item))
        if not ok:
            fields.problem("wrong_type", f"metadata.{key} must be a string or an array of strings", "metadata")
    return dict(value)


def item_groups(metadata: dict[str, Any]) -> frozenset[str]:
    """The item subsets a metric's ``applies_to`` can name: ``key=value`` per value, ``key=*`` for a non-empty array."""
    groups: set[str] = set()
    for key, value in metadata.items():
        values = [value] if isinstance(value, str) else list(value)
        groups.update(f"{key}={v}" for v in values)
        if isinstance(value, list) and value:
            groups.add(f"{key}=*")
    return frozenset(groups)
