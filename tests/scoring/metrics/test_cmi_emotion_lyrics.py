"""CMI-Bench emotion regression (cmi-emo-arousal, cmi-emo-valence) and lyrics (cmi-dsing), against
independent implementations of evaluate.py's cal_r2/extract_int and compute_wer_cer."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jiwer
import numpy as np
import pytest
from num2words import num2words

from scoring.metrics.cmi_emotion import cmi_extract_score
from scoring.metrics.cmi_lyrics import cmi_clean_lyrics, cmi_wer_cer
from tests.helpers.cmi_data import released_file, released_records, result_file


def publisher_extract(response: str) -> int | float:
    """evaluate.py extract_int, from its rules (-0.5 = no number)."""
    for phrase in ("1-9 scale", "from 1 to 9"):
        response = response.replace(phrase, "scale")
    response = re.sub(r"\d-point scale", "scale", response)
    response = re.sub(r"\d/\d time signature", "time signature", response)
    response = re.sub(r"\d/\d beat", "time signature", response)
    response = re.sub(r"Example \d", "", response)
    numbers = [n for n in re.findall(r"\d+", response) if 0 < int(n) < 10]
    if not numbers:
        return -0.5
    if len(numbers) == 2 and f"{numbers[0]}.{numbers[1]}" in response:
        return float(f"{numbers[0]}.{numbers[1]}")
    if len(numbers) == 2 and numbers[0] == numbers[1]:
        return int(numbers[0])
    return int(numbers[0])


def publisher_r2(result_list: list[dict[str, Any]]) -> float:
    """evaluate.py cal_r2 on python lists, then R2Score exactly as the script calls it."""
    import torch  # here, not at the top: importing torch and torchmetrics takes seconds
    from torchmetrics import R2Score

    targets = [float(t["correct_answer"]) for t in result_list]
    answers = [publisher_extract(re.sub(r"out of 9", "", t["response"])) for t in result_list]
    given = [x for x in answers if x != -0.5]
    mean, std = np.mean(given), np.std(given)
    assert std != 0
    a, b = 1 / std, -mean / std
    imputed = [mean if x == -0.5 else x for x in answers]
    return float(R2Score()(torch.tensor([a * x + b for x in imputed]), torch.tensor(targets)))


@pytest.mark.parametrize("response", [
    "7", "Estimated score: 3.", "around 6 out of 9.", "7.5", "around 8 and 9", "7, because, so 7",
    "On a 1-9 scale, I'd say 4.", "On a scale from 1 to 9 it is 6", "8 on a 10-point scale",
    "in 4/4 time signature, score 2", "3/4 beat and 5", "120 bpm; score 3", "", "calm", "Score: 6/9",
    "Example 1 shows 5", "70", "between 3 and 8", "07", "5.5.5", "३", "٣.٥ roughly", "1" * 5000 + " then 4",
    "Example 12", "0.9", "10.5", "2 and 2",
])
def test_extraction_is_the_publishers(response: str) -> None:
    expected = publisher_extract(re.sub(r"out of 9", "", response)) if len(response) < 4000 else 4
    got = cmi_extract_score(response)
    assert (got is None and expected == -0.5) or got == expected


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", ["cmi-emo-arousal", "cmi-emo-valence"])
def test_cli_r2_equals_the_publishers_float32_value(benchmark: str, tmp_path: Path, cli) -> None:
    for seed in (1, 2):
        run = tmp_path / f"run{seed}.json"
        items = result_file(benchmark, run, seed, jsonl=seed == 2)
        expected = publisher_r2([{"response": i["response"], "correct_answer": i["output"]} for i in items])
        report = cli.score_json("--benchmark", benchmark, "--references", released_file(benchmark),
                                "--references-format", "cmi-bench", "--predictions", run,
                                "--predictions-format", "cmi-bench", "--bootstrap", "30")
        assert report["metrics"]["r2"] == pytest.approx(expected, abs=1e-9)
        assert report["metrics"]["r2"] == expected
        unanswered = sum(1 for i in items if publisher_extract(re.sub("out of 9", "", i["response"])) == -0.5)
        assert report["diagnostics"]["unanswered"] == [unanswered] and unanswered > 0
        low, high = report["ci95"]["r2"]
        assert low <= high


@pytest.mark.slow
def test_r2_is_not_computed_where_the_answers_have_no_spread(tmp_path: Path, cli) -> None:
    records = released_records("cmi-emo-arousal")
    items = [{**r, "response": "I'd say 5." if n % 2 else "calm"} for n, r in enumerate(records)]
    (tmp_path / "flat.json").write_text(json.dumps(items))
    report = cli.score_json("--benchmark", "cmi-emo-arousal", "--references", released_file("cmi-emo-arousal"),
                            "--references-format", "cmi-bench", "--predictions", tmp_path / "flat.json",
                            "--bootstrap", "10")
    assert report["metrics"]["r2"] is None


PUBLISHER_PUNCTUATION = '!"#$%&\\()*+,-./:;<=>?@[\\]^_`{|}~'


def publisher_wer_cer(prediction: str, reference: str) -> tuple[float, float]:
    """evaluate.py compute_wer_cer, from its rules."""
    for pattern in (r".*? lyrics .*?are.*?:", r".*? content .*?is.*?:", r".*? transcription .*?is.*?:",
                    r".*? text .*?is.*?:", "<s>", "</s>"):
        prediction = re.sub(pattern, "", prediction).strip()

    def clean(text: str) -> str:
        words = text.translate(str.maketrans("", "", PUBLISHER_PUNCTUATION)).lower().replace("\n", " ").split()
        return " ".join(num2words(int(w)) if w.isdigit() else w for w in words)

    return jiwer.wer(clean(reference), clean(prediction)), jiwer.cer(clean(reference), clean(prediction))


@pytest.mark.parametrize("response, reference", [
    ("The lyrics of the song are: some days I'm rich", "SOME DAYS I'M RICH"),
    ("The transcription is: 2 days, 1999!", "TWO DAYS ONE THOUSAND NINE HUNDRED AND NINETY-NINE"),
    ("<s>Hello\nworld</s>", "HELLO WORLD"), ("", "HELLO"), ("21st century (oh)", "TWENTY FIRST CENTURY"),
    ("Here's the text that is: a: b: c", "A B C"), ("first line\nthe lyrics are: second", "SECOND"),
])
def test_wer_cer_are_the_publishers(response: str, reference: str) -> None:
    assert cmi_wer_cer(response, reference) == pytest.approx(publisher_wer_cer(response, reference), abs=1e-12)


def test_digit_words_num2words_cannot_spell_are_kept() -> None:
    assert cmi_clean_lyrics("x² 3 ٣") == "x² three three"
    assert cmi_clean_lyrics("²") == "²"


def test_cli_wer_cer_equal_the_publishers_mean(tmp_path: Path, cli) -> None:
    run = tmp_path / "run.jsonl"
    items = result_file("cmi-dsing", run, 7, jsonl=True)
    rates = np.array([publisher_wer_cer(i["response"], i["output"]) for i in items])
    report = cli.score_json("--benchmark", "cmi-dsing", "--references", released_file("cmi-dsing"),
                            "--references-format", "cmi-bench", "--predictions", run,
                            "--predictions-format", "cmi-bench", "--bootstrap", "20")
    assert report["metrics"]["wer"] == pytest.approx(100 * float(np.mean(rates[:, 0])), abs=1e-9)
    assert report["metrics"]["cer"] == pytest.approx(100 * float(np.mean(rates[:, 1])), abs=1e-9)
    assert 10 < report["metrics"]["wer"] < 150
    assert "jiwer:4.0.0" in report["signatures"]["wer"] and "num2words:0.5.14" in report["signatures"]["cer"]


def test_a_non_numeric_emotion_reference_is_an_error_naming_line_and_field(tmp_path: Path, cli) -> None:
    records = released_records("cmi-emo-valence")[:5]
    records[2] = {**records[2], "output": "high"}
    (tmp_path / "refs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    result = cli.run("validate", "--benchmark", "cmi-emo-valence", "--references", tmp_path / "refs.jsonl",
                     "--references-format", "cmi-bench", "--predictions", tmp_path / "refs.jsonl")
    assert result.returncode == 1
    assert "refs.jsonl:3: output: output of an emotion-regression item must be a number, got 'high'" in result.stdout


def test_the_valence_boards_description_states_what_its_released_file_holds() -> None:
    """The released valence test file is the arousal file; the board says so (and must stop saying it if a
    release ever differs)."""
    from scoring.specs import get_benchmark
    from tests.helpers.cmi_data import released_file

    same = released_file("cmi-emo-valence").read_bytes() == released_file("cmi-emo-arousal").read_bytes()
    assert same
    assert "byte for byte the arousal one" in get_benchmark("cmi-emo-valence").description
    first = released_file("cmi-emo-valence").read_text(encoding="utf-8")
    assert first.startswith('{"instruction": "Estimate the arousal score')
