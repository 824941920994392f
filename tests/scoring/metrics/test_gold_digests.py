"""Label digests in signatures: keyed where labels are hidden, the same whether keyed at scoring or afterwards."""

from __future__ import annotations

import pytest

from scoring.metrics.base import ScoringContext
from scoring.metrics.cmi_classification import CmiLabelAccuracy
from scoring.metrics.gold_digests import KEYED_PREFIX, gold_keyed, signature_gold_keyed
from scoring.metrics.leave_one_out import LeaveOneOut
from scoring.metrics.mcq import MultipleChoice
from scoring.task_types import Reference

KEY = b"server secret"
OPTIONS = ["oboe", "tuba", "harp", "sitar"]


def _rul() -> list[Reference]:
    return [Reference(f"q{i}", i + 1, {"prompts": [{"options": OPTIONS}, {"options": OPTIONS[::-1]}]}, (answer,))
            for i, answer in enumerate(["tuba", "sitar", "oboe", "harp"])]


def _mcq() -> list[Reference]:
    return [Reference(f"q{i}", i + 1, {"options": OPTIONS}, (answer,), answer_index=OPTIONS.index(answer))
            for i, answer in enumerate(["tuba", "sitar"])]


def _cmi() -> list[Reference]:
    return [Reference(f"c{i}", i + 1, {}, (label,)) for i, label in enumerate(["jazz", "rock", "jazz"])]


def _signature(family: type, params: dict, references: list[Reference], output: str, key: bytes | None) -> str:
    scorer = family(params, ScoringContext(label_key=key))
    scorer.prepare(references)
    return "|".join(f"{name}:{value}" for name, value in scorer.signature_fields(output).items())


@pytest.mark.parametrize(("family", "params", "references", "output", "field"), [
    (LeaveOneOut, {}, _rul(), "correct", "gold:"),
    (MultipleChoice, {"matcher": "mmau"}, _mcq(), "correct", "gold:"),
    (CmiLabelAccuracy, {}, _cmi(), "accuracy", "labels:"),
])
def test_hidden_labels_are_named_by_a_keyed_digest_equal_to_keying_the_public_one_afterwards(
        family: type, params: dict, references: list[Reference], output: str, field: str) -> None:
    public = _signature(family, params, references, output, None)
    hidden = _signature(family, params, references, output, KEY)
    assert f"{field}{KEYED_PREFIX}" in hidden and f"{field}{KEYED_PREFIX}" not in public
    assert signature_gold_keyed(public, KEY) == hidden  # what import_references --hidden-labels stores
    assert signature_gold_keyed(hidden, KEY) == hidden


def test_a_hidden_label_sets_size_is_not_in_its_signature() -> None:
    assert "labels:2:" in _signature(CmiLabelAccuracy, {}, _cmi(), "accuracy", None)
    assert ":2:" not in _signature(CmiLabelAccuracy, {}, _cmi(), "accuracy", KEY)


def test_keying_touches_only_whole_label_digest_fields() -> None:
    gold, labels = "0123456789abcdef", "0123456789ab"
    signature = f"impl:x|gold:{gold}|labels:12:{labels}|nrefs:2|rules:1"
    assert signature_gold_keyed(signature, KEY) == (
        f"impl:x|gold:{gold_keyed(gold, KEY)}|labels:{gold_keyed(labels, KEY)}|nrefs:2|rules:1")
    for untouched in (f"gold:{labels}", f"gold:{gold}0", f"labels:{gold}", f"xgold:{gold}", f"impl:gold:{gold}"):
        assert signature_gold_keyed(untouched, KEY) == untouched
    assert gold_keyed(gold, KEY) != gold_keyed(gold, b"another secret")
