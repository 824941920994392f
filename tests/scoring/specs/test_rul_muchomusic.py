"""RUL-MuChoMusic scored as yongyizang/AreYouReallyListening ``ExampleAudioEval/qwen_2_audio.py``
(@ d3971de1) scores its leave-one-out runs, on the released RUL-MuchoMusic.json.

``released_extract_answer`` and ``released_leave_one_out`` are written in this test from the
released code's rules (``extract_answer``, the per-pass ``letter_mapping`` lookup, the
``Counter(extracted_answers).most_common(1)`` vote, ``pass_accuracy``), not from ``scoring``.
Hand-worked expectations come from reading those rules.
"""

from __future__ import annotations

import io
import json
import random
import re
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from scoring.cli import main
from scoring.metrics.leave_one_out import extract_letter, majority_answer
from tests.helpers.listening_data import rul_response
from tests.helpers.shared import shared_file


def released_extract_answer(response: str, letter_mapping: dict[str, str]) -> str:
    bracketed = re.findall(r"\[\[([A-E])\]\]", response)
    if bracketed:
        return bracketed[-1]
    said = re.findall(r"(?:answer is|chose|choose|select|guess is|I choose|I select|I guess) ([A-E])\b", response,
                      re.IGNORECASE)
    if said:
        return said[-1].upper()
    for letter in "ABCDE":
        if f"option {letter}" in response or f"Option {letter}" in response or f"({letter})" in response:
            return letter
    for letter, text in letter_mapping.items():
        if text and text.lower() in response.lower():
            return letter
    return ""


def released_leave_one_out(items: list[dict[str, Any]], gold: dict[str, str]) -> tuple[float, float]:
    """(item accuracy, pass accuracy) as fractions, over ``{"id", "prompts", "responses"}`` items."""
    item_hits, pass_hits, n_passes = 0, 0, 0
    for item in items:
        extracted = []
        for prompt, response in zip(item["prompts"], item["responses"]):
            mapping = dict(zip(["A", "B", "C", "D"], prompt["options"]))
            text = mapping.get(released_extract_answer(response, mapping), "")
            pass_hits += text == gold[item["id"]]
            n_passes += 1
            if text:
                extracted.append(text)
        top = Counter(extracted).most_common(1)
        item_hits += (top[0][0] if top else "") == gold[item["id"]]
    return item_hits / len(items), pass_hits / n_passes


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def released() -> tuple[Path, dict[str, Any]]:
    path = shared_file("data", "rul-muchomusic", "RUL-MuchoMusic.json")
    return path, json.loads(path.read_text(encoding="utf-8"))


def _inputs(path: Path) -> list[dict[str, Any]]:
    code, out, err = _run("inputs", "--benchmark", "rul-muchomusic", "--references", str(path),
                          "--references-format", "rul-muchomusic")
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_rul_inputs_publish_four_leave_one_out_prompts_per_question(released) -> None:
    path, data = released
    inputs = _inputs(path)
    assert [i["id"] for i in inputs] == list(data)
    assert inputs == _inputs(path)  # the seeded order is the same every time
    for item in inputs:
        source = data[item["id"]]
        assert set(item) == {"id", "question", "prompts"}  # no answer, caption or PI
        assert len(item["prompts"]) == 4
        for left_out, prompt in enumerate(item["prompts"]):
            kept = [source["correct_answer"]] + [d for k, d in enumerate(source["distractors"]) if k != left_out]
            assert sorted(prompt["options"]) == sorted(kept)
            shown = " ".join(f"({'ABCD'[j]}) {o}" for j, o in enumerate(prompt["options"]))
            assert prompt["prompt"] == (
                "Provide your best guess of this question. Think step by step.\n\nQuestion: "
                f"{source['question']}\n\nOptions: {shown}\n\nWrite out your guess in the format of [[Letter]], "
                "such as [[A]], [[B]], [[C]], [[D]].")
    positions = Counter(p["options"].index(data[i["id"]]["correct_answer"]) for i in inputs for p in i["prompts"])
    assert all(1000 < n < 1400 for n in positions.values())  # shuffled: the answer sits anywhere


def test_rul_cli_equals_the_released_leave_one_out_on_messy_responses(released, tmp_path) -> None:
    path, data = released
    inputs = _inputs(path)
    rng = random.Random(11)
    items = [{"id": i["id"], "prompts": i["prompts"],
              "responses": [rul_response(rng, p["options"]) for p in i["prompts"]]} for i in inputs]
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps({"id": i["id"], "responses": i["responses"]}) + "\n" for i in items),
                   encoding="utf-8")
    code, out, err = _run("score", "--benchmark", "rul-muchomusic", "--references", str(path),
                          "--references-format", "rul-muchomusic", "--predictions", str(run), "--bootstrap", "20")
    assert code == 0, err
    report = json.loads(out)
    item_accuracy, pass_accuracy = released_leave_one_out(items, {k: v["correct_answer"] for k, v in data.items()})
    assert report["metrics"]["accuracy"] == pytest.approx(item_accuracy * 100, abs=1e-9)
    assert report["metrics"]["pass_accuracy"] == pytest.approx(pass_accuracy * 100, abs=1e-9)
    assert 10 < report["metrics"]["accuracy"] < 90 and report["metrics"]["accuracy"] != report["metrics"][
        "pass_accuracy"]
    assert report["warnings"]["counts"]["empty_prediction"] > 0


@pytest.mark.parametrize(("response", "expected"), [
    ("[[B]]", "B"),
    ("[[A]] no wait, [[C]]", "C"),                  # the last [[X]]
    ("[[b]]", ""),                                  # [[x]] is case-sensitive; nothing else matches
    ("I think the answer is D.", "D"),
    ("the ANSWER IS c", "C"),                       # the stated forms ignore case, the letter is upper-cased
    ("The answer is a violin", "A"),                # "a" is read as the letter A
    ("The answer is Brass", ""),                    # no word boundary after the B; "brass section" is not in it
    ("i choose b, final answer is c", "C"),         # the last stated form
    ("I'd pick option C over option A", "A"),       # letters are tried A..E: "option A" exists
    ("Option D", "D"),
    ("OPTION D", ""),                               # only "option"/"Option"; no option text either
    ("(B) Piano", "B"),
    ("piano and drums", "A"),                       # option text in shown order: Piano (A) before Drums (B)
    ("definitely VIOLIN", "D"),
    ("[[E]]", "E"),                                 # extracted, though no option is shown as E
    ("", ""),
    ("I cannot hear the audio.", ""),
])
def test_rul_extract_answer_rules(response: str, expected: str) -> None:
    options = ["Piano", "Drums", "Brass section", "Violin"]
    assert extract_letter(response, options) == expected
    assert released_extract_answer(response, dict(zip("ABCD", options))) == expected


def test_rul_vote_ties_go_to_the_first_extracted_answer() -> None:
    assert majority_answer(["x", "y", "y", "x"]) == "x"
    assert majority_answer(["", "y", "x", "x"]) == "x"
    assert majority_answer(["", "y", "", "x"]) == "y"
    assert majority_answer(["", "", "", ""]) == ""


@pytest.mark.slow
def test_rul_a_letter_past_the_options_is_no_answer_and_loses_the_vote(released, tmp_path) -> None:
    path, data = released
    inputs = _inputs(path)
    rows = []
    for item in inputs:
        gold = data[item["id"]]["correct_answer"]
        right = ["[[" + "ABCD"[p["options"].index(gold)] + "]]" for p in item["prompts"]]
        rows.append({"id": item["id"], "responses": [right[0], "[[E]]", "[[E]]", "[[E]]"]})
    run = tmp_path / "e.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, _ = _run("score", "--benchmark", "rul-muchomusic", "--references", str(path),
                        "--references-format", "rul-muchomusic", "--predictions", str(run), "--bootstrap", "5")
    assert code == 0
    metrics = json.loads(out)["metrics"]
    assert (metrics["accuracy"], metrics["pass_accuracy"], metrics["answered_rate"]) == (100.0, 25.0, 100.0)


def test_rul_responses_must_match_the_prompts(released, tmp_path) -> None:
    path, data = released
    ids = list(data)
    lines = [{"id": i, "responses": ["[[A]]"] * 4} for i in ids]
    lines[2] = {"id": ids[2], "responses": ["[[A]]"] * 3}
    lines[5] = {"id": ids[5], "responses": ["[[A]]", 4, "", None]}
    lines[7] = {"id": ids[7], "prediction": "[[A]]"}
    run = tmp_path / "bad.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    code, out, _ = _run("validate", "--benchmark", "rul-muchomusic", "--references", str(path),
                          "--references-format", "rul-muchomusic", "--predictions", str(run))
    assert code == 1
    problems = [line for line in out.splitlines() if ": warning: " not in line]
    assert problems == [
        "bad.jsonl:3: responses: responses must hold 4 answers, one per prompt in the order of the item's prompts "
        "(inputs download), got 3",
        "bad.jsonl:6: responses: responses[1] must be a string, got number",
        'bad.jsonl:8: responses: required field "responses" is missing',
    ]


def test_rul_a_null_response_is_one_warning_and_a_null_list_is_named_null(released, tmp_path) -> None:
    path, data = released
    ids = list(data)
    lines = [{"id": i, "responses": ["[[A]]"] * 4} for i in ids]
    lines[1] = {"id": ids[1], "responses": ["[[A]]", None, "[[B]]", "[[C]]"]}
    run = tmp_path / "nulls.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    code, out, _ = _run("validate", "--benchmark", "rul-muchomusic", "--references", str(path),
                        "--references-format", "rul-muchomusic", "--predictions", str(run))
    assert code == 0
    assert [line for line in out.splitlines() if line.startswith("nulls.jsonl:2:")] == [
        "nulls.jsonl:2: responses: warning: responses[1] is null; scored as an empty answer"]
    lines[1] = {"id": ids[1], "responses": None}
    run.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    code, out, _ = _run("validate", "--benchmark", "rul-muchomusic", "--references", str(path),
                        "--references-format", "rul-muchomusic", "--predictions", str(run))
    assert code == 1 and 'nulls.jsonl:2: responses: required field "responses" is null' in out
