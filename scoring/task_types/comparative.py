"""Comparative QA over two tracks (Jamendo-MT-QA): yes/no, short-answer and sentence items."""

from __future__ import annotations

from typing import Any, ClassVar

from scoring.reading.jamendo_rules import yes_no_label
from scoring.task_types.base import Fields, Prediction, Reference
from scoring.task_types.generation import GenerationTask

QA_TYPES = ("yes_no", "short_answer", "sentence")


class ComparativeQATask:
    name: ClassVar[str] = "comparative_qa"

    def parse_reference(self, fields: Fields) -> Reference | None:
        """evaluate.py's semantics: an unknown or null ``qa_type`` is left out (whatever the other
        fields hold); an empty gold answer (or a yes_no one that is neither yes nor no) counts and is
        always wrong; an empty question is scored. Each is a warning."""
        item_id = fields.identifier()
        qa_type = fields.obj.get("qa_type")
        if item_id is not None and (qa_type is None or isinstance(qa_type, str)) and qa_type not in QA_TYPES:
            fields.warn("unknown_qa_type", f"qa_type is not one of {', '.join(QA_TYPES)}: the item is left out, "
                        "as evaluate.py leaves it out", "qa_type")
            return None
        qa_type = fields.text("qa_type")
        public = {k: fields.text(k) for k in ("pair_id", "audio1", "audio2")}
        public["question"] = fields.text("question", allow_empty=True)
        answer = fields.text("answer", allow_empty=True)
        if not fields.ok or item_id is None or answer is None or qa_type is None:
            return None
        if not (public["question"] or "").strip():
            fields.warn("empty_question", "the question is empty; scored as evaluate.py scores it (it reads only "
                        "the answers)", "question")
        if not answer.strip():
            fields.warn("empty_gold_answer", "the gold answer is empty: the item counts and is always wrong, "
                        "as in evaluate.py", "answer")
        elif qa_type == "yes_no" and _yes_no_label(answer) is None:
            fields.warn("unlabelled_gold_answer", 'the yes_no gold answer starts with neither "yes" nor "no": '
                        "the item counts and is always wrong, as in evaluate.py", "answer")
        public["qa_type"] = qa_type
        return Reference(
            id=item_id, line=fields.line, public=public, answers=(answer,), qa_type=qa_type
        )

    def parse_prediction(self, fields: Fields, reference: Reference | None) -> Prediction | None:
        return GenerationTask().parse_prediction(fields, reference)

    def prediction_json(self, prediction: Prediction, reference: Reference) -> dict[str, Any]:
        return {"id": prediction.id, "prediction": prediction.text}


def _yes_no_label(text: str) -> str | None:
    return yes_no_label(text, accept_true_false=False)
