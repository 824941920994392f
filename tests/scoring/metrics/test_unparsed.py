"""The ``unparsed`` diagnostic of every family with an answer parser: the answers the publisher's own parser cannot
map to exactly one option or value, counted by the code that scores them, on messy real outputs.

The oracles below are written in this test from the publishers' released code (MMAU/MMAR ``string_match``,
MuChoMusic ``extract_responses``, RUL-MuChoMusic ``extract_answer`` and ``letter_mapping.get``, CMI-Bench
``evaluate.py``'s ``get_multiclass_acc``, ``extract_int``, ``get_beat`` and ``convert_to_frame_labels``), each
asking the parser's own question, never ``scoring``'s helpers. The CMI-Bench runs are the authors' released raw
outputs of 11 models; the multiple-choice runs are the released gold with answers of the shapes real models write.

Counting moved no number: ``VALUES`` holds digests of every metric value of these runs (per item and aggregated,
bit for bit), recorded with the code before the diagnostic existed (``tests/helpers/parse_data.py``).
"""

from __future__ import annotations

import ast
import gzip
import io
import json
import re
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from scoring.cli import main
from scoring.metrics import METRIC_FAMILIES
from tests.helpers import parse_data
from tests.helpers.parse_data import CMI_MODELS, CMI_TASKS, Run
from tests.helpers.shared import shared_file

VALUES = {  # recorded with the scoring code before the ``unparsed`` diagnostic
    "mmau": "f65124c755ad8798",
    "mmar": "6f0b3160be832774",
    "muchomusic": "885699399d67376a",
    "rul-muchomusic": "f892cf8e0cd13409",
    "GTZAN": "5307fb15f2f015f1",
    "VocalSet_tech": "bba2d2dd0e9f12ae",
    "Nsynth_instrument": "b2ad9a807ad40f0d",
    "EMO_arousal": "d2f5aa1a99f10ada",
    "EMO_valence": "49254b9705616fa7",
    "gtzan_beat": "2b3882ace43fb133",
    "ballroom_beat": "42d9c7b95690d278",
    "gtzan_downbeat": "af9de2d45a40f9fa",
    "ballroom_downbeat": "07d064d4416b4e75",
    "Guzheng_Tech": "f21ed20a61f16ff8",
}
SLOW_TASKS = ("gtzan_beat", "ballroom_beat", "gtzan_downbeat", "ballroom_downbeat",  # mir_eval on every track
              "EMO_arousal", "EMO_valence")  # torch for R²


# --- the publishers' parsers, as each decides -----------------------------------------------------------------


def _words(text: str) -> set[str]:
    return set(re.findall(r"\b\w+\b", text.lower()))


def string_match(answer: str, prediction: str, choices: list[str]) -> bool:
    """MMAU evaluation.py / MMAR code/evaluation.py."""
    said, gold = _words(prediction), _words(answer)
    if not said:
        return False
    wrong: set[str] = set()
    for choice in choices:
        if _words(choice) != gold:
            wrong |= _words(choice) - gold
    return gold <= said and not (said & wrong)


def string_match_unparsed(prediction: str, choices: list[str]) -> bool:
    """string_match tests the gold only: the answer maps to one option when exactly one option, taken as the gold,
    would be credited."""
    return [string_match(c, prediction, choices) for c in choices].count(True) != 1


def extract_responses_unparsed(output: str, options: list[str]) -> bool:
    """muchomusic_eval/scoring.py extract_responses gives -1."""
    output = output.split("The correct answer is:")[-1].strip()
    letters = list({"A", "B", "C", "D"}.intersection(output))
    if len(letters) == 1:
        return False
    normalised = output.lower().strip()
    return not any(o.lower().strip() in normalised for o in options)


def extract_answer(response: str, letter_mapping: dict[str, str]) -> str:
    """ExampleAudioEval/qwen_2_audio.py extract_answer."""
    matches = re.findall(r"\[\[([A-E])\]\]", response)
    if matches:
        return str(matches[-1])
    stated = re.findall(r"(?:answer is|chose|choose|select|guess is|I choose|I select|I guess) ([A-E])\b", response,
                        re.IGNORECASE)
    if stated:
        return str(stated[-1]).upper()
    for letter in ["A", "B", "C", "D", "E"]:
        if f"option {letter}" in response or f"Option {letter}" in response or f"({letter})" in response:
            return letter
    for letter, text in letter_mapping.items():
        if text and text.lower() in response.lower():
            return letter
    return ""


def rul_unparsed(responses: list[str], prompts: list[list[str]]) -> tuple[bool, int]:
    """(no pass gives an answer text, so most_agreed_answer is ""; the passes giving none)."""
    texts = []
    for response, options in zip(responses, prompts):
        mapping = dict(zip(["A", "B", "C", "D"], options))
        texts.append(mapping.get(extract_answer(response, mapping), ""))
    return not any(texts), texts.count("")


def cmi_normalise(text: str) -> str:
    return (text.replace("_", "").replace("-", "").replace("#", "\u266f").replace("'", "").replace(" ", "")
            .replace(".", "").lower())


def label_unparsed(response: str, labels: set[str]) -> bool:
    """get_multiclass_acc credits a response only for a label when no other label of the file (``labels``: the
    normalised set of its answers) is in it: it maps to a label when exactly one is."""
    said = cmi_normalise(response)
    return sum(label in said for label in labels) != 1


def extract_int_unparsed(response: str) -> bool:
    """cal_r2: extract_int(re.sub('out of 9', '', response)) returns its -0.5 marker."""
    response = re.sub(r"out of 9", "", response)
    response = response.replace("1-9 scale", "scale").replace("from 1 to 9", "scale")
    response = re.sub(r"\d-point scale", "scale", response)
    response = re.sub(r"\d/\d time signature", "time signature", response)
    response = re.sub(r"\d/\d beat", "time signature", response)
    response = re.sub(r"Example \d", "", response)
    return not [i for i in re.findall(r"\d+", response) if 0 < int(i) < 10]


def get_beat_unparsed(beats: str) -> bool:
    """beat_tracking: get_beat raises inside the try that scores the track 0."""
    try:
        for i in beats.split(","):
            i = i.strip().replace("s", "")
            if len(i) > 0 and i[0].isdigit():
                if ":" not in i:
                    float(i.replace(",", "").strip())
                elif i.split(":")[1] != "":
                    int(i.split(":")[0]) * 60 + float(i.split(":")[1])
    except Exception:
        return True
    return False


def guzheng_unparsed(text: str) -> bool:
    """convert_to_frame_labels (evaluate.py @ 4c15f410, f44d952's reading) reads no event: "No Tech" by default (no
    list up to the first ')', no tuple whose quoted start begins with a digit) or a reading that raises."""
    opening, closing = text.find("["), text.find(")")
    if opening == -1 or opening >= closing:
        return True
    literal = text[opening:closing] + ")]"
    try:
        events = ast.literal_eval(literal[2:] if literal.startswith('["[') else literal)
        if isinstance(events[0], dict):
            events = [(float(e["start"]), float(e["end"]), e["technique"]) for e in events]
        elif all(isinstance(e, tuple) and len(e) == 3 for e in events):
            events = [(float(e[0]), float(e[1]), str(e[2])) for e in events if e[0][0].isdigit()]
            if not events:
                return True
        placed = []
        for start, end, label in events:
            if isinstance(start, str) or isinstance(end, str):
                return True
            label = label[0] if isinstance(label, list) else label
            placed.append((start % 10, (end - 1e-4) % 10 + 1e-4, cmi_normalise(label)))
        if not (len(placed) == 1 and placed[0][2] == "notech"):
            for start, end, _ in placed:
                int(float(start) * 100), int(float(end) * 100)
    except Exception:
        return True
    return False


def oracle(run: Run) -> list[bool]:
    """Per item: the publisher's parser mapped the answer to no single option or value."""
    if run.benchmark in ("mmau", "mmar"):
        return [string_match_unparsed(a, o) for a, o in zip(run.answers, run.options)]
    if run.benchmark == "muchomusic":
        return [extract_responses_unparsed(a, o) for a, o in zip(run.answers, run.options)]
    if run.benchmark == "rul-muchomusic":
        return [rul_unparsed(a, o)[0] for a, o in zip(run.answers, run.options)]
    family = {"cmi-gtzan": "label", "cmi-vocalset-tech": "label", "cmi-nsynth-instrument": "label",
              "cmi-emo-arousal": "rating", "cmi-emo-valence": "rating", "cmi-guzheng-tech": "events"}.get(
        run.benchmark, "beats")
    labels = {cmi_normalise(r.answers[0]) for r in run.references}
    decide = {"label": lambda text: label_unparsed(text, labels), "rating": extract_int_unparsed,
              "beats": get_beat_unparsed, "events": guzheng_unparsed}[family]
    return [decide(a) for a in run.answers]


def unparsed(scores: dict[str, Any]) -> list[bool]:
    values = scores["diag:unparsed"].values
    assert set(np.unique(values)) <= {0.0, 1.0}
    return [bool(v) for v in values]


# --- multiple choice on the released gold -----------------------------------------------------------------------


@pytest.mark.parametrize("make", [parse_data.mmau_run, parse_data.mmar_run, parse_data.muchomusic_run,
                                  parse_data.rul_run], ids=["mmau", "mmar", "muchomusic", "rul-muchomusic"])
def test_multiple_choice_unparsed_equals_the_publisher_parser_and_no_value_moved(make, tmp_path) -> None:
    run = make(tmp_path)
    scorer, scores = parse_data.run_scores(run)
    expected = oracle(run)
    assert unparsed(scores) == expected
    assert 0 < sum(expected) < 0.8 * len(expected)  # messy answers: some parsed, some not
    assert parse_data.values_digest(scorer, scores) == VALUES[run.benchmark]


def test_string_match_counts_answers_it_would_credit_for_two_options(tmp_path) -> None:
    """MMAR's "From near to far" and "From far to near" are one word set: string_match credits an answer naming
    either for both, so it maps to no single option, and is still correct when either is the gold."""
    run = parse_data.mmar_run(tmp_path)
    twins = [n for n, (ref, options) in enumerate(zip(run.references, run.options))
             if any(o != ref.answers[0] and _words(o) == _words(ref.answers[0]) for o in options)]
    assert len(twins) >= 3
    for n in twins:
        run.predictions[n] = replace(run.predictions[n], text=run.references[n].answers[0])
    _, scores = parse_data.run_scores(run)
    assert [scores["diag:unparsed"].values[n] for n in twins] == [1.0] * len(twins)
    assert [scores["accuracy"].values[n] for n in twins] == [1.0] * len(twins)


def test_rul_counts_passes_without_an_option(tmp_path) -> None:
    run = parse_data.rul_run(tmp_path)
    _, scores = parse_data.run_scores(run)
    passes = [rul_unparsed(a, o)[1] for a, o in zip(run.answers, run.options)]
    assert scores["diag:unparsed_passes"].values.tolist() == passes
    assert sum(passes) > 4 * sum(unparsed(scores))  # passes go unread long before a whole item does


def test_muchomusic_unparsed_is_the_complement_of_instruction_following(tmp_path) -> None:
    run = parse_data.muchomusic_run(tmp_path)
    _, scores = parse_data.run_scores(run)
    assert scores["diag:unparsed"].values.tolist() == (1.0 - scores["instruction_following_rate"].values).tolist()


# --- CMI-Bench: the authors' released outputs of 11 models -------------------------------------------------------


@pytest.mark.parametrize("task", [t if t not in SLOW_TASKS else pytest.param(t, marks=pytest.mark.slow)
                                  for t in CMI_TASKS])
def test_cmi_released_outputs_unparsed_equals_the_publisher_parser_and_no_value_moved(task: str) -> None:
    digests, counts = {}, {}
    for model in CMI_MODELS:
        run = parse_data.cmi_run(model, task)
        scorer, scores = parse_data.run_scores(run)
        expected = oracle(run)
        assert unparsed(scores) == expected, model
        counts[model] = sum(expected)
        digests[model] = parse_data.values_digest(scorer, scores)
    assert parse_data.combined_digest(digests) == VALUES[task]
    assert any(counts.values())  # every task has models whose answers the parser cannot read


@pytest.mark.slow
def test_cmi_beat_and_technique_keep_their_older_diagnostic_names() -> None:
    for task in ("gtzan_beat", "Guzheng_Tech"):
        _, scores = parse_data.run_scores(parse_data.cmi_run("ltu", task))
        assert scores["diag:unparsed_outputs"].values.tolist() == scores["diag:unparsed"].values.tolist()
    _, scores = parse_data.run_scores(parse_data.cmi_run("qwen", "EMO_arousal"))
    assert scores["diag:unanswered"].values.tolist() == scores["diag:unparsed"].values.tolist()


# --- whose knowledge a parse status is ------------------------------------------------------------------------


def _other_gold(run: Run) -> Run:
    """The same items and answers against other gold: each item's answer moved to another option."""
    references = []
    for ref in run.references:
        if run.benchmark == "rul-muchomusic":
            options = ref.public["prompts"][0]["options"]
            references.append(replace(ref, answers=(next(o for o in options if o != ref.answers[0]),)))
        else:
            options = list(ref.public["options"])
            index = (options.index(ref.answers[0]) + 1) % len(options) if ref.answers[0] in options else 0
            references.append(replace(ref, answers=(options[index],), answer_index=index))
    return replace(run, references=references)


@pytest.mark.parametrize("make", [parse_data.mmau_run, parse_data.muchomusic_run, parse_data.rul_run],
                         ids=["mmau", "muchomusic", "rul-muchomusic"])
def test_a_multiple_choice_parse_status_reads_no_gold(make, tmp_path) -> None:
    run = make(tmp_path)
    _, scores = parse_data.run_scores(run)
    _, moved = parse_data.run_scores(_other_gold(run))
    assert unparsed(moved) == unparsed(scores)
    assert moved["accuracy"].values.tolist() != scores["accuracy"].values.tolist()


@pytest.mark.slow
@pytest.mark.parametrize("task", ["EMO_arousal", "Guzheng_Tech", "gtzan_beat"])
def test_a_cmi_rating_beat_or_technique_parse_status_reads_no_gold(task: str) -> None:
    run = parse_data.cmi_run("ltu_as", task)
    _, scores = parse_data.run_scores(run)
    shuffled = [run.references[(n + 7) % len(run.references)] for n in range(len(run.references))]
    others = [replace(ref, id=own.id, line=own.line) for ref, own in zip(shuffled, run.references)]
    _, moved = parse_data.run_scores(replace(run, references=others))
    assert unparsed(moved) == unparsed(scores)


def test_a_label_parse_status_reads_the_label_set_so_it_is_gold_on_hidden_splits() -> None:
    run = parse_data.cmi_run("qwen", "GTZAN")
    _, scores = parse_data.run_scores(run)
    dropped = Counter(r.answers[0] for r in run.references).most_common()[-1][0]
    kept = next(r.answers[0] for r in run.references if r.answers[0] != dropped)
    others = [replace(r, answers=(kept,)) if r.answers[0] == dropped else r for r in run.references]
    _, moved = parse_data.run_scores(replace(run, references=others))
    assert unparsed(moved) != unparsed(scores)
    reads_labels = {name for name, family in METRIC_FAMILIES.items() if family.parse_reads_labels}
    assert reads_labels == {"cmi_label", "songform"}
    assert {name for name, family in METRIC_FAMILIES.items() if family.parse_rule({}) is not None} == {
        "mcq", "leave_one_out", "cmi_label", "cmi_r2", "cmi_beat", "cmi_guzheng", "songform", "cmi_key"}


# --- the CLI's report -------------------------------------------------------------------------------------------


def _score(*argv: str) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["score", *argv, "--bootstrap", "5"])
    assert code == 0, err.getvalue()
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


def test_cli_reports_unparsed_for_the_publishers_files(tmp_path) -> None:
    gold = shared_file("data", "mmau", "mmau-test-mini.json")
    run = parse_data.mmau_run(tmp_path)
    items = {i["id"]: i for i in json.loads(gold.read_text(encoding="utf-8"))}
    for ref, answer in zip(run.references, run.answers):
        items[ref.id]["model_output"] = answer
    (tmp_path / "run.json").write_text(json.dumps(list(items.values())), encoding="utf-8")
    report = _score("--benchmark", "mmau", "--references", str(gold), "--references-format", "mmau",
                    "--predictions", str(tmp_path / "run.json"), "--predictions-format", "mmau",
                    "--per-item", str(tmp_path / "items.jsonl"))
    assert report["diagnostics"]["unparsed"] == [sum(oracle(run))]
    rows = [json.loads(line) for line in (tmp_path / "items.jsonl").read_text().splitlines()]
    assert [bool(r["unparsed"]) for r in rows] == oracle(run)


@pytest.mark.slow
@pytest.mark.parametrize(("model", "task"), [("ltu_as", "GTZAN"), ("gama_it", "EMO_valence"),
                                             ("qwen2", "ballroom_downbeat"), ("qwen", "Guzheng_Tech")])
def test_cli_reports_unparsed_for_a_released_cmi_file(model: str, task: str, tmp_path) -> None:
    released = shared_file("data", "cmi-bench-results", model, f"{model}_{task}.jsonl.gz")
    path = tmp_path / released.name.removesuffix(".gz")
    path.write_bytes(gzip.decompress(released.read_bytes()))
    files = {"GTZAN": "CMI_GTZAN_test.jsonl", "EMO_valence": "CMI_EMO_valence_test.jsonl",
             "ballroom_downbeat": "CMI_ballroom_downbeat_test.jsonl", "Guzheng_Tech": "CMI_Guzheng_Tech_test.jsonl"}
    references = shared_file("data", "cmi-bench", files[task])
    report = _score("--benchmark", CMI_TASKS[task], "--references", str(references), "--references-format",
                    "cmi-bench", "--predictions", str(path), "--predictions-format", "cmi-bench")
    assert report["diagnostics"]["unparsed"] == [sum(oracle(parse_data.cmi_run(model, task)))]
    assert report["diagnostics"]["unparsed"][0] > 0


def test_a_family_without_a_parser_reports_no_unparsed(tmp_path) -> None:
    released = shared_file("data", "cmi-bench-results", "qwen", "qwen_DSing.jsonl.gz")
    path = tmp_path / "qwen_DSing.jsonl"
    path.write_bytes(gzip.decompress(released.read_bytes()))
    report = _score("--benchmark", "cmi-dsing", "--references", str(shared_file("data", "cmi-bench",
                                                                                "CMI_DSing_test.jsonl")),
                    "--references-format", "cmi-bench", "--predictions", str(path), "--predictions-format",
                    "cmi-bench")
    assert "unparsed" not in report["diagnostics"]

