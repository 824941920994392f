"""``python -m scoring score`` on the released CMI-Bench beat, downbeat, Guzheng and captioning files
with result files of model-like responses: every number equals the publisher's rules as the
independent oracles in ``helpers.cmi_mir`` compute them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.metrics.cmi_guzheng import technique_frames
from scoring.metrics.meteor import load_wordnet, wordnet_dir, wordnet_missing
from tests.helpers.cmi_mir import (
    BEAT_BENCHMARKS,
    oracle_beat,
    oracle_captioning,
    oracle_guzheng,
    oracle_times,
    released_file,
    released_records,
    result_file,
)


def score(cli, benchmark: str, predictions: Path, *extra: str) -> dict:
    return cli.score_json("--benchmark", benchmark, "--references", released_file(benchmark),
                          "--references-format", "cmi-bench", "--predictions", predictions,
                          "--predictions-format", "cmi-bench", "--bootstrap", "20", *extra)


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", BEAT_BENCHMARKS)
def test_cli_beat_tracking_equals_the_publishers_rules(benchmark: str, tmp_path: Path, cli) -> None:
    run = tmp_path / "run.jsonl"
    items = result_file(benchmark, run, seed=11, jsonl=True)
    expected = oracle_beat([i["output"] for i in items], [i["response"] for i in items])
    report = score(cli, benchmark, run)
    assert report["n_items"] == len(items) == {"gtzan": 290, "ballroom": 685}[benchmark.split("-")[1]]
    for key in ("f_measure", "cmlt", "amlt"):
        assert report["metrics"][key] == pytest.approx(100 * expected[key], abs=1e-9), key
    assert 20 < report["metrics"]["f_measure"] < 90
    unreadable = sum(1 for i in items if oracle_times(i["response"]) is None)
    assert report["diagnostics"]["unparsed_outputs"][0] == unreadable > 0  # "and so on", lists, "120 BPM"
    assert report["warnings"]["counts"]["unreadable_answer"] == unreadable
    assert report["warnings"]["counts"].get("empty_prediction", 0) == sum(1 for i in items if i["response"] == "")


@pytest.mark.slow
def test_cli_beat_released_outputs_as_answers_score_100(tmp_path: Path, cli) -> None:
    items = [{**r, "response": r["output"]} for r in released_records("cmi-ballroom-downbeat")]
    run = tmp_path / "gold.json"
    run.write_text(json.dumps(items))
    report = score(cli, "cmi-ballroom-downbeat", run)
    assert report["metrics"] == {"f_measure": 100.0, "cmlt": 100.0, "amlt": 100.0}


@pytest.mark.slow
def test_cli_guzheng_equals_the_publishers_rules(tmp_path: Path, cli) -> None:
    for seed, jsonl in ((5, False), (6, True)):
        run = tmp_path / f"run{seed}.{'jsonl' if jsonl else 'json'}"
        items = result_file("cmi-guzheng-tech", run, seed, jsonl=jsonl)
        expected = oracle_guzheng([i["output"] for i in items], [i["response"] for i in items])
        report = score(cli, "cmi-guzheng-tech", run)
        assert report["n_items"] == 94
        assert report["metrics"]["micro_f1"] == pytest.approx(expected["micro_f1"], abs=1e-9)
        assert report["metrics"]["macro_f1"] == pytest.approx(expected["macro_f1"], abs=1e-9)
        assert 0.1 < expected["macro_f1"] < expected["micro_f1"] < 0.9
        unreadable = sum(1 for i in items if technique_frames(i["response"]) is None)
        assert report["diagnostics"]["unparsed_outputs"][0] == unreadable > 0
        assert report["warnings"]["counts"]["unreadable_answer"] == unreadable


def test_validate_names_the_line_of_each_unreadable_answer(tmp_path: Path, cli) -> None:
    items = [{**r, "response": r["output"]} for r in released_records("cmi-guzheng-tech")]
    items[2]["response"] = "I could not detect any playing technique."
    items[5]["response"] = "[(0.5, 1.0, 'Harmonics')]"
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(i) + "\n" for i in items))
    result = cli.run("validate", "--benchmark", "cmi-guzheng-tech", "--references",
                     released_file("cmi-guzheng-tech"), "--references-format", "cmi-bench", "--predictions", run)
    assert result.returncode == 0, result.stdout + result.stderr  # warnings only
    output = result.stdout + result.stderr
    lines = [line for line in output.splitlines() if "predicting no technique" in line]
    assert [line.split(": ")[:3] for line in lines] == [["run.jsonl:3", "prediction", "warning"],
                                                        ["run.jsonl:6", "prediction", "warning"]], output


@pytest.mark.slow  # every item of the released files through METEOR and the publisher's calls: 10-30 s
@pytest.mark.parametrize("benchmark, items", [("cmi-sdd", 1106), ("cmi-musiccaps", 2813)])
def test_cli_captioning_equals_the_publishers_calls(benchmark: str, items: int, tmp_path: Path, cli) -> None:
    reason = wordnet_missing(wordnet_dir())
    if reason:
        pytest.skip(reason)
    run = tmp_path / "run.json"
    records = result_file(benchmark, run, seed=3)
    expected = oracle_captioning([r["output"] for r in records], [r["response"] for r in records],
                                 load_wordnet(wordnet_dir()).reader)
    report = score(cli, benchmark, run, "--no-bertscore")  # BERTScore: tests/scoring/metrics/test_bertscore*.py
    assert report["n_items"] == len(records) == items
    for key, value in expected.items():
        assert report["metrics"][key] == pytest.approx(value, abs=1e-9), key
    assert 0.1 < expected["meteor"] < 0.8


@pytest.mark.slow
def test_cli_captioning_bertscore_recall_on_a_slice(tmp_path: Path, cli) -> None:
    # a slice of the released file is a valid reference file; BERTScore recall is the recall
    # output of the shared bertscore family, in both the official and the batched profile
    lines = released_file("cmi-sdd").read_text(encoding="utf-8").splitlines()[:12]
    references = tmp_path / "sdd12.jsonl"
    references.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = tmp_path / "run.json"
    run.write_text(json.dumps([{**json.loads(line), "response": "A calm acoustic guitar piece."} for line in lines]))
    reports = [cli.score_json("--benchmark", "cmi-sdd", "--references", references, "--references-format",
                              "cmi-bench", "--predictions", run, "--predictions-format", "cmi-bench",
                              "--bootstrap", "0", "--profile", profile)
               for profile in ("cmi-evaluate", "bertscore-batched")]
    for report in reports:
        assert 0.2 < report["metrics"]["bertscore_recall"] < 1.0
        assert "recall" in report["signatures"]["bertscore_recall"]
    assert reports[0]["metrics"]["bleu"] == reports[1]["metrics"]["bleu"]


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", ["cmi-guzheng-tech", "cmi-gtzan-downbeat"])
def test_cli_on_the_inference_scripts_record_layout(benchmark: str, tmp_path: Path, cli) -> None:
    # what the publisher's inference scripts write and its evaluate.py reads: question, response,
    # correct_answer, audioid, in the released order
    items = result_file(benchmark, tmp_path / "released-layout.json", seed=9)
    records = [{"question": i["instruction"][:40], "response": i["response"], "correct_answer": i["output"],
                "audioid": "../testdata/" + i["audio_path"][0].removeprefix("data/")} for i in items]
    run = tmp_path / "model_results.json"
    run.write_text(json.dumps(records))
    report = score(cli, benchmark, run)
    references, responses = [r["correct_answer"] for r in records], [r["response"] for r in records]
    if benchmark == "cmi-guzheng-tech":
        expected = oracle_guzheng(references, responses)
    else:
        expected = {k: 100 * v for k, v in oracle_beat(references, responses).items()}
    assert report["metrics"] == pytest.approx(expected, abs=1e-9)
