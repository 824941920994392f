"""Generation tasks (captioning, music QA): free text against one or more references."""

from __future__ import annotations

from typing import Any, ClassVar

from scoring.task_types.base import Fields, Prediction, Reference

PUBLIC_FIELDS = ("question", "audio", "context")


class GenerationTask:
    name: ClassVar[str] = "generation"

    def parse_reference(self, fields: Fields) -> Reference | None:
        item_id = fields.identifier()
        answers = fields.text_or_texts("answer")
        fields.text("question", required=False)
        if not fields.ok or item_id is None or answers is None:
            return None
        public = {k: fields.obj[k] for k in PUBLIC_FIELDS if k in fields.obj}
        return Reference(id=item_id, line=fields.line, public=public, answers=answers)

    def parse_prediction(self, fields: Fields, reference: Reference | None) -> Prediction | None:
        item_id = fields.identifier()
        text = fields.prediction_text("prediction")
        if not fields.ok or item_id is None or text is None:
            return None
        return Prediction(id=item_id, line=fields.line, text=text)

    def prediction_json(self, prediction: Prediction, reference: Reference) -> dict[str, Any]:
        return {"id": prediction.id, "prediction": prediction.text}
