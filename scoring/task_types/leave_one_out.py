"""Leave-one-out multiple choice (RUL-MuChoMusic): one question asked with several option sets.

Reference line::

    {"id", "question", "answer": "<the correct option text>",
     "prompts": [{"options": ["..", ..], "prompt"?: "<the text shown>"}, ...], "metadata"?: {..}}

Each prompt's ``options`` are the texts shown as A, B, C ... in that order; every prompt lists the
answer. Prediction line: ``{"id", "responses": ["<raw model text>", ...]}``, one response per
prompt, in the order of ``prompts``. Empty and null responses are scored (an empty one extracts no
answer) and reported as warnings.
"""

from __future__ import annotations

from typing import Any, ClassVar

from scoring.reading.jsonl import json_type
from scoring.task_types.base import Fields, Prediction, Reference
from scoring.task_types.multiple_choice import item_groups, item_metadata

MAX_PROMPT_OPTIONS = 5  # the publisher's extract_answer reads letters A-E


class LeaveOneOutTask:
    name: ClassVar[str] = "leave_one_out"

    def parse_reference(self, fields: Fields) -> Reference | None:
        item_id = fields.identifier()
        question = fields.text("question")
        answer = fields.text("answer")
        prompts = _prompts(fields, answer)
        metadata = item_metadata(fields)
        if not fields.ok or item_id is None or question is None or answer is None or prompts is None:
            return None
        public: dict[str, Any] = {"question": question, "prompts": prompts}
        if metadata:
            public["metadata"] = metadata
        return Reference(id=item_id, line=fields.line, public=public, answers=(answer,), groups=item_groups(metadata))

    def parse_prediction(self, fields: Fields, reference: Reference | None) -> Prediction | None:
        item_id = fields.identifier()
        responses = _responses(fields, reference)
        if not fields.ok or item_id is None or responses is None:
            return None
        return Prediction(id=item_id, line=fields.line, texts=responses)

    def prediction_json(self, prediction: Prediction, reference: Reference) -> dict[str, Any]:
        return {"id": prediction.id, "responses": list(prediction.texts)}


def _prompts(fields: Fields, answer: str | None) -> list[dict[str, Any]] | None:
    value = fields.require("prompts")
    if value is None:
        return None
    if not isinstance(value, list) or not value:
        fields.problem("wrong_type", f"prompts must be a non-empty array of objects, got {json_type(value)}",
                       "prompts")
        return None
    prompts = []
    for n, prompt in enumerate(value):
        where = f"prompts[{n}]"
        options = prompt.get("options") if isinstance(prompt, dict) else None
        if not isinstance(options, list) or not all(isinstance(o, str) and o.strip() for o in options):
            fields.problem("wrong_type", f"{where}.options must be an array of non-empty strings", "prompts")
            return None
        if not 2 <= len(options) <= MAX_PROMPT_OPTIONS:
            fields.problem("invalid_value", f"{where}.options must list 2 to {MAX_PROMPT_OPTIONS} choices, "
                           f"got {len(options)}", "prompts")
            return None
        if answer is not None and answer not in options:
            fields.problem("invalid_value", f"{where}.options does not list the answer", "prompts")
            return None
        text = prompt.get("prompt")
        if text is not None and not isinstance(text, str):
            fields.problem("wrong_type", f"{where}.prompt must be a string, got {json_type(text)}", "prompts")
            return None
        prompts.append({"options": list(options), **({"prompt": text} if text is not None else {})})
    return prompts


def _responses(fields: Fields, reference: Reference | None) -> tuple[str, ...] | None:
    value = fields.require("responses")
    if value is None:
        return None
    if not isinstance(value, list):
        fields.problem("wrong_type", f"responses must be an array of strings, got {json_type(value)}", "responses")
        return None
    expected = len(reference.public["prompts"]) if reference is not None else None
    if expected is not None and len(value) != expected:
        fields.problem("invalid_value", f"responses must hold {expected} answers, one per prompt in the order of "
                       f"the item's prompts (inputs download), got {len(value)}", "responses")
        return None
    texts = []
    for n, response in enumerate(value):
        if response is None:  # one warning for it, not a second one for the empty answer it becomes
            fields.warn("null_prediction", f"responses[{n}] is null; scored as an empty answer", "responses")
            texts.append("")
            continue
        if not isinstance(response, str):
            fields.problem("wrong_type", f"responses[{n}] must be a string, got {json_type(response)}", "responses")
            return None
        if not response.strip():
            fields.warn("empty_prediction", f"responses[{n}] is empty; it extracts no answer, as in the "
                        "publisher's code", "responses")
        texts.append(response)
    return tuple(texts)
