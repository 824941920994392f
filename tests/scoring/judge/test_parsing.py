"""Reading replies: strict JSON, fenced, chatty, last-resort pattern, range checks; never raising."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.judge.parsing import FieldSpec, OutputSpec, parse_reply
from scoring.judge.profiles import get_profile

SINGLE = get_profile("jamendo-paper").output
THREE = get_profile("jamendo-released").output
LABEL = get_profile("jamendo-error-type").output
BGM = get_profile("dialbgm-suitability").output


@pytest.mark.parametrize(("text", "method"), [
    ('{"score": 4, "explanation": "close"}', "json"),
    ('  \n{"score": 4, "explanation": "close"}\n', "json"),
    ('```json\n{"score": 4, "explanation": "close"}\n```', "fenced"),
    ('Sure!\n```\n{"score": 4, "explanation": "close"}\n```\nHope that helps.', "fenced"),
    ('Here is my verdict: {"score": 4, "explanation": "it\'s close {mostly}"} -- done', "embedded"),
    ('Template {"score": <0-5>}. My answer: {"score": 4, "explanation": "close"}', "embedded"),
    ("The prediction is close. Score: 4", "pattern"),
    ("**Score**: 4/5 because it is close", "pattern"),
    ('{"score": 4, "explanation": "cut off by max_tok', "pattern"),
])
def test_single_score_replies(text: str, method: str) -> None:
    parsed = parse_reply(text, SINGLE)
    assert parsed.values == {"score": 4.0}, parsed.reason
    assert parsed.method == method
    if method != "pattern":
        assert parsed.rationale and parsed.rationale.startswith(("close", "it's close"))


@pytest.mark.parametrize(("text", "reason"), [
    ("", "empty reply"),
    ("   ", "empty reply"),
    ("I cannot evaluate this.", "no JSON object"),
    ('{"score": ', "no JSON object"),
    ('{"score": 7}', "outside [0, 5]"),
    ('{"score": -1}', "outside [0, 5]"),
    ('{"score": "high"}', "is not a number"),
    ('{"score": true}', "is not a number"),
    ('{"score": null}', "is not a number"),
    ('{"score": NaN}', "is not a number"),
    ('{"score": 1e999}', "is not a number"),
    ('{"explanation": "no score"}', "missing field 'score'"),
    ("[4]", "no JSON object"),
])
def test_broken_or_out_of_range_replies_fail_with_a_reason(text: str, reason: str) -> None:
    parsed = parse_reply(text, SINGLE)
    assert parsed.values is None
    assert reason in (parsed.reason or "")


def test_numeric_strings_are_numbers() -> None:
    assert parse_reply('{"score": "3.5"}', SINGLE).values == {"score": 3.5}


def test_three_criteria() -> None:
    text = 'Result:\n{"correctness": 4, "comparative_validity": 5, "reasoning_quality": 3}'
    assert parse_reply(text, THREE).values == {"correctness": 4.0, "comparative_validity": 5.0,
                                                "reasoning_quality": 3.0}
    missing = parse_reply('{"correctness": 4, "comparative_validity": 5}', THREE)
    assert missing.values is None and "reasoning_quality" in (missing.reason or "")
    # No last-resort pattern when several fields are expected.
    assert parse_reply("correctness: 4, comparative validity: 5", THREE).values is None
    zero = parse_reply('{"correctness": 0, "comparative_validity": 5, "reasoning_quality": 3}', THREE)
    assert zero.values is None and "outside [1, 5]" in (zero.reason or "")


def test_the_first_object_with_the_fields_wins() -> None:
    text = '{"note": "thinking"} then {"score": 2, "explanation": "x"} and {"score": 5}'
    assert parse_reply(text, SINGLE).values == {"score": 2.0}


@pytest.mark.parametrize(("raw", "label"), [
    ("comparative_collapse", "comparative_collapse"),
    ("Comparative Collapse", "comparative_collapse"),
    ("attribute-hallucination", "attribute_hallucination"),
    (" GRANULARITY MISMATCH ", "granularity_mismatch"),
])
def test_labels_are_normalised(raw: str, label: str) -> None:
    parsed = parse_reply(f'{{"error_type": "{raw}", "explanation": "why"}}', LABEL)
    assert parsed.values == {"error_type": label} and parsed.rationale == "why"


def test_unknown_label_fails() -> None:
    parsed = parse_reply('{"error_type": "off_topic"}', LABEL)
    assert parsed.values is None and "not one of" in (parsed.reason or "")


def test_bool_fields() -> None:
    base = '{"technicality": 5.5, "fit": 7, "pacing": 6.0, "prominent_vocals": %s}'
    assert parse_reply(base % "true", BGM).values["prominent_vocals"] == 1.0  # type: ignore[index]
    assert parse_reply(base % '"no"', BGM).values["prominent_vocals"] == 0.0  # type: ignore[index]
    assert parse_reply(base % "0", BGM).values["prominent_vocals"] == 0.0  # type: ignore[index]
    assert "true or false" in (parse_reply(base % '"maybe"', BGM).reason or "")


def test_custom_spec() -> None:
    spec = OutputSpec(fields=(FieldSpec("quality", 0.0, 10.0),), rationale="why")
    assert parse_reply("quality = 8.5 overall", spec).values == {"quality": 8.5}
    assert parse_reply('{"quality": 10.5, "why": "x"}', spec).values is None


def test_huge_and_nested_replies_do_not_raise() -> None:
    assert parse_reply("[" * 100_000, SINGLE).values is None
    assert parse_reply("{" * 50_000 + '"score": 3' + "}" * 50_000, SINGLE).values == {"score": 3.0}
    assert parse_reply("x" * 1_000_000 + '{"score": 3}', SINGLE).values is None  # beyond the scanned prefix
    assert parse_reply(None, SINGLE).reason == "empty reply"  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_string_is_safe(text: str) -> None:
    for spec in (SINGLE, THREE, LABEL, BGM):
        parsed = parse_reply(text, spec)
        assert (parsed.values is None) == (parsed.reason is not None)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='{}[]":,0123456789 .-eE\\nscore\n`json'))
def test_any_json_like_string_is_safe(text: str) -> None:
    parsed = parse_reply(text, SINGLE)
    if parsed.values is not None:
        assert 0.0 <= float(parsed.values["score"]) <= 5.0
