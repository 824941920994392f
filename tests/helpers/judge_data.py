"""Shared test data of the judge tests: the fake API key and small Jamendo-MT-QA item sets."""

from __future__ import annotations

from scoring.task_types import Prediction, Reference

API_KEY_ENV = "FAKE_JUDGE_API_KEY"
API_KEY = "sk-test-SECRET-0123456789"
SENTENCES = (
    "Track A is faster and brighter than Track B",
    "Both tracks are calm",
    "Track B uses roughly more synths",
    "Track A has a busy drum kit with distorted guitars while Track B is a soft piano ballad",
    "A is louder",
)


def jamendo_items(pairs: int, sentences: tuple[str, ...] = SENTENCES) -> tuple[list[Reference], list[Prediction]]:
    """``pairs`` track pairs x (yes_no, short_answer, sentence) items, with predictions."""
    references, predictions = [], []
    for p in range(pairs):
        audio1, audio2 = f"rock_Song{p}", f"jazz_Tune{p}"
        items = (
            ("yes_no", f"Is {audio1} faster than {audio2}?", "Yes", "yes"),
            ("short_answer", "Which track has more distortion?", audio1, audio1),
            ("sentence", "In one sentence, how do the two tracks differ in energy?",
             f"{audio1} is energetic rock while {audio2} is relaxed jazz.", sentences[p % len(sentences)]),
        )
        for qa_type, question, gold, prediction in items:
            item_id = f"{audio1}__{audio2}::{qa_type}"
            public = {"pair_id": f"{audio1}__{audio2}", "audio1": audio1, "audio2": audio2,
                      "question": question, "qa_type": qa_type}
            references.append(Reference(item_id, len(references) + 1, public, (gold,), qa_type=qa_type))
            predictions.append(Prediction(item_id, len(predictions) + 1, text=prediction))
    return references, predictions
