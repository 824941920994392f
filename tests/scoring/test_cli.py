"""``python -m scoring`` as a user runs it: a subprocess with this interpreter."""

from __future__ import annotations

import csv
import json
import random

import pytest
from nltk.tokenize import wordpunct_tokenize

from scoring.metrics.meteor import wordnet_dir, wordnet_missing

REPORT_KEYS = {"benchmark", "n_items", "runs", "metrics", "std", "ci95", "signatures"}
METRIC_KEYS = {
    "dialbgm": ["hit_at_1", "mrr", "ndcg_at_4", "kendall_tau_b"],
    "jamendo-mt-qa": ["yes_no_accuracy", "short_answer_accuracy", "bleu", "rouge1", "rouge2", "rougeL", "bertscore_f1"],
    "musicqa": ["bleu", "bleu1", "bleu4", "meteor", "rougeL_recall", "bertscore_recall"],
    "music4way": ["bleu1", "bleu", "rougeL_precision", "rougeL_recall", "rougeL_f1",
                  "bertscore_precision", "bertscore_recall", "bertscore_f1"],
}
METEOR = [] if wordnet_missing(wordnet_dir()) else ["meteor"]  # without WordNet the column is not computed
MUSICQA_TEXT = ["bleu", "bleu1", "bleu4", *METEOR, "rougeL_recall"]
MUSIC4WAY = ["musiccaps", "music4way-musiccaps", "music4way-mi2t", "music4way-mv2t", "music4way-any2t"]


@pytest.fixture(scope="module")
def files(tmp_path_factory, synth, jsonl):
    """Reference and prediction files of each benchmark kind, written once for the module."""
    root = tmp_path_factory.mktemp("cli")
    paths = {}
    refs, preds = synth.dialbgm(40, seed=1)
    _, preds2 = synth.dialbgm(40, seed=2)
    paths["dialbgm"] = (jsonl.write(root / "d_refs.jsonl", refs), jsonl.write(root / "d_p1.jsonl", preds),
                        jsonl.write(root / "d_p2.jsonl", preds2))
    refs, preds = synth.jamendo(30, seed=1)
    _, preds2 = synth.jamendo(30, seed=2)
    paths["jamendo-mt-qa"] = (jsonl.write(root / "j_refs.jsonl", refs), jsonl.write(root / "j_p1.jsonl", preds),
                              jsonl.write(root / "j_p2.jsonl", preds2))
    refs, preds = synth.generation(50, seed=1)
    _, preds2 = synth.generation(50, seed=2)
    paths["generation"] = (jsonl.write(root / "g_refs.jsonl", refs), jsonl.write(root / "g_p1.jsonl", preds),
                           jsonl.write(root / "g_p2.jsonl", preds2))
    paths["root"] = root
    return paths


def test_benchmarks_lists_every_benchmark_with_its_metrics(cli) -> None:
    result = cli.run("benchmarks")
    assert result.returncode == 0, result.stderr
    names = [line.split()[0] for line in result.stdout.splitlines()]
    assert {"dialbgm", "jamendo-mt-qa", "musicqa", *MUSIC4WAY} <= set(names)
    rows = {row["name"]: row for row in json.loads(cli.run("benchmarks", "--json").stdout)}
    assert rows["dialbgm"]["metrics"] == METRIC_KEYS["dialbgm"]
    assert rows["dialbgm"]["profiles"] == ["official", "linear-gain"]
    # the publisher's columns first; LLM-judge columns (computed only with a judge) may follow
    jamendo = rows["jamendo-mt-qa"]["metrics"]
    assert jamendo[:7] == METRIC_KEYS["jamendo-mt-qa"]
    assert all(key.startswith(("judge_", "error_")) for key in jamendo[7:])
    assert rows["musicqa"]["metrics"] == METRIC_KEYS["musicqa"]
    for name in MUSIC4WAY:
        assert rows[name]["metrics"] == METRIC_KEYS["music4way"]


def test_validate_valid_files_exit_zero(cli, files) -> None:
    refs, p1, p2 = files["dialbgm"]
    result = cli.run("validate", "--benchmark", "dialbgm", "--references", refs, "--predictions", p1,
                     "--predictions", p2)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""
    assert "valid: 40 items, 2 prediction file(s)" in result.stderr


def test_validate_prints_one_file_line_per_problem_and_exits_one(cli, files) -> None:
    refs, p1, _ = files["generation"]
    bad = files["root"] / "bad.jsonl"
    lines = p1.read_text().splitlines()
    lines[3] = '{"id": "g3", "prediction": 7}'
    lines[5] = "nonsense"
    lines[9] = lines[8]  # duplicate of g8, so g9 is missing
    bad.write_text("\n".join(lines) + "\n")
    result = cli.run("validate", "--benchmark", "musicqa", "--references", refs, "--predictions", bad)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "bad.jsonl:4: prediction: prediction must be a string, got number",
        "bad.jsonl:6: not valid JSON: Expecting value (column 1)",
        'bad.jsonl:10: id: id "g8" already on line 9',
        'bad.jsonl:0: id: 2 of 50 items have no prediction in bad.jsonl: "g5", "g9"; every item needs a prediction',
    ]
    assert "5 problem(s)" in result.stderr and "missing_item: 2" in result.stderr


def test_score_invalid_input_exits_one_and_unknown_benchmark_two(cli, files) -> None:
    refs, _, _ = files["generation"]
    bad = files["root"] / "empty.jsonl"
    bad.write_text("")
    result = cli.run("score", "--benchmark", "musicqa", "--references", refs, "--predictions", bad, "--no-bertscore")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.splitlines()[0] == "empty.jsonl:0: the file is empty"
    result = cli.run("score", "--benchmark", "nope", "--references", refs, "--predictions", bad)
    assert result.returncode == 2 and "unknown benchmark 'nope'" in result.stderr and "dialbgm" in result.stderr


@pytest.mark.parametrize("command", ["validate", "score"])
def test_a_missing_or_folder_path_is_an_error_naming_it_without_a_traceback(cli, files, command) -> None:
    refs, p1, _ = files["generation"]
    missing, folder = files["root"] / "no-such-run.jsonl", files["root"]
    extra = ["--no-bertscore"] if command == "score" else []
    for predictions, reason in ((missing, "No such file or directory"), (folder, "Is a directory")):
        result = cli.run(command, "--benchmark", "musicqa", "--references", refs, "--predictions", predictions, *extra)
        assert result.returncode == 2
        assert result.stderr == f"error: {predictions}: {reason}\n"
    result = cli.run(command, "--benchmark", "musicqa", "--references", missing, "--predictions", p1, *extra)
    assert (result.returncode, result.stderr) == (2, f"error: {missing}: No such file or directory\n")


def test_an_error_writing_the_per_item_file_is_one_line_with_the_reason(cli, files) -> None:
    refs, p1, _ = files["dialbgm"]
    result = cli.run("score", "--benchmark", "dialbgm", "--references", refs, "--predictions", p1,
                     "--bootstrap", "10", "--per-item", "/dev/full")  # every write fails: no space left
    assert (result.returncode, result.stderr) == (2, "error: [Errno 28] No space left on device\n")


def test_score_dialbgm_two_runs_std_and_per_item_csv(cli, files) -> None:
    refs, p1, p2 = files["dialbgm"]
    per_item = files["root"] / "dialbgm_items.csv"
    report = cli.score_json("--benchmark", "dialbgm", "--references", refs, "--predictions", p1,
                            "--predictions", p2, "--per-item", per_item, "--bootstrap", "200")
    assert report.keys() >= REPORT_KEYS
    assert (report["benchmark"], report["n_items"], report["runs"]) == ("dialbgm", 40, 2)
    assert list(report["metrics"]) == METRIC_KEYS["dialbgm"]
    for key in METRIC_KEYS["dialbgm"]:
        low, high = report["ci95"][key]
        assert low <= report["metrics"][key] <= high
        a, b = report["per_run"][key]
        assert report["std"][key] == pytest.approx(abs(a - b) / 2**0.5, abs=1e-12)  # sample std (ddof=1)
        assert len(report["per_run"][key]) == 2
        assert report["metrics"][key] == pytest.approx(sum(report["per_run"][key]) / 2, abs=1e-12)
        assert report["signatures"][key].startswith(f"metric:{key}|profile:dialbgm/official|")
    assert sum(1 for v in report["std"].values() if v > 0) >= 3  # the two runs differ
    assert "gain:exp2" in report["signatures"]["ndcg_at_4"]
    assert report["diagnostics"] == {"all_tied": [0, 0]}
    with open(per_item, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 80
    assert rows[0].keys() == {"id", "run", "qa_type", *METRIC_KEYS["dialbgm"]}
    assert {(r["id"], r["run"]) for r in rows} == {(f"d{i}", run) for i in range(40) for run in ("1", "2")}
    for key in METRIC_KEYS["dialbgm"]:
        run1 = [float(r[key]) for r in rows if r["run"] == "1"]
        assert sum(run1) / 40 == pytest.approx(report["per_run"][key][0], abs=1e-12)


def test_score_single_run_has_no_std(cli, files) -> None:
    refs, p1, _ = files["dialbgm"]
    report = cli.score_json("--benchmark", "dialbgm", "--references", refs, "--predictions", p1,
                            "--profile", "linear-gain", "--bootstrap", "50")
    assert report["runs"] == 1 and report["profile"] == "linear-gain"
    assert set(report["std"].values()) == {None}
    assert "gain:linear" in report["signatures"]["ndcg_at_4"]


@pytest.mark.slow
def test_score_jamendo_keys_seeds_and_per_item_jsonl(cli, files) -> None:
    refs, p1, _ = files["jamendo-mt-qa"]
    root = files["root"]
    args = ["--benchmark", "jamendo-mt-qa", "--references", refs, "--predictions", p1, "--no-bertscore",
            "--bootstrap", "200"]
    first = cli.score_json(*args, "--seed", "3", "--per-item", root / "j_items.jsonl")
    again = cli.score_json(*args, "--seed", "3")
    other = cli.score_json(*args, "--seed", "4")
    expected = [k for k in METRIC_KEYS["jamendo-mt-qa"] if k != "bertscore_f1"]
    assert list(first["metrics"]) == expected
    assert first["not_computed"]["bertscore_f1"] == "BERTScore disabled"
    # anything else not computed is an LLM-judge column (no judge configured here)
    assert all(key.startswith(("judge_", "error_")) for key in first["not_computed"] if key != "bertscore_f1")
    assert first["n_scored"] == {k: 30 for k in expected}
    assert first["ci95"] == again["ci95"]
    assert first["bootstrap"]["seed"] == 3 and first["bootstrap"]["replicates"] == 200
    assert first["metrics"] == other["metrics"]
    for key in expected:
        assert first["ci95"][key] != other["ci95"][key], key
    assert "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0" in first["signatures"]["bleu"]
    rows = [json.loads(line) for line in (root / "j_items.jsonl").read_text().splitlines()]
    assert len(rows) == 90
    assert {r["qa_type"] for r in rows} == {"yes_no", "short_answer", "sentence"}
    yes_no = [r["yes_no_accuracy"] for r in rows if r["qa_type"] == "yes_no"]
    assert sum(yes_no) / 30 == pytest.approx(first["metrics"]["yes_no_accuracy"], abs=1e-12)
    assert all(r["yes_no_accuracy"] is None for r in rows if r["qa_type"] != "yes_no")
    rouge = [r["rouge1"] for r in rows if r["qa_type"] == "sentence"]
    assert sum(rouge) / 30 == pytest.approx(first["metrics"]["rouge1"], abs=1e-9)


@pytest.mark.slow
def test_music4way_values_are_100_times_the_musicqa_profile_values(cli, files) -> None:
    refs, p1, p2 = files["generation"]
    common = ["--references", refs, "--predictions", p1, "--predictions", p2, "--no-bertscore", "--bootstrap", "100"]
    musicqa = cli.score_json("--benchmark", "musicqa", *common)
    music4way = cli.score_json("--benchmark", "music4way-mi2t", *common)
    assert list(musicqa["metrics"]) == MUSICQA_TEXT
    assert set(musicqa["not_computed"]) == {"bertscore_recall"} | ({"meteor"} - set(METEOR))
    assert list(music4way["metrics"]) == ["bleu1", "bleu", "rougeL_precision", "rougeL_recall", "rougeL_f1"]
    assert set(music4way["not_computed"]) == {"bertscore_precision", "bertscore_recall", "bertscore_f1"}
    for key in ("bleu", "bleu1", "rougeL_recall"):
        assert 0 < musicqa["metrics"][key] < 1
        assert music4way["metrics"][key] == pytest.approx(100 * musicqa["metrics"][key], rel=1e-12)
        assert music4way["std"][key] == pytest.approx(100 * musicqa["std"][key], rel=1e-9)
        for a, b in zip(music4way["ci95"][key], musicqa["ci95"][key]):
            assert a == pytest.approx(100 * b, rel=1e-9)
        assert "scale:100" in music4way["signatures"][key] and "scale:1|" in musicqa["signatures"][key]


@pytest.mark.slow
def test_compare_two_runs(cli, files) -> None:
    refs, p1, _ = files["jamendo-mt-qa"]
    root = files["root"]
    # B: the references themselves, clearly better than A
    perfect = root / "j_perfect.jsonl"
    perfect.write_text("".join(json.dumps({"id": r["id"], "prediction": r["answer"]}) + "\n"
                               for r in map(json.loads, refs.read_text().splitlines())))
    result = cli.run("compare", "--benchmark", "jamendo-mt-qa", "--references", refs, "--predictions", p1,
                     "--against", perfect, "--no-bertscore", "--bootstrap", "300")
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout)
    assert output["benchmark"] == "jamendo-mt-qa" and output["test"] == "paired bootstrap, items resampled"
    assert output["a"] == str(p1) and output["b"] == str(perfect)
    metrics = output["metrics"]
    assert set(metrics) == {"yes_no_accuracy", "short_answer_accuracy", "bleu", "rouge1", "rouge2", "rougeL"}
    for key, row in metrics.items():
        assert set(row) == {"a", "b", "difference", "ci95", "p_value", "better", "signature"}
        assert row["difference"] == pytest.approx(row["a"] - row["b"], abs=1e-12)
        assert row["better"] == "b", key
        assert row["p_value"] < 0.05, key
        assert row["ci95"][1] < 0
    assert metrics["yes_no_accuracy"]["b"] == 1.0 and metrics["rouge1"]["b"] == 100.0


@pytest.mark.slow
def test_convert_jamendo_examples(cli, tmp_path, jamendo_examples_json) -> None:
    out = tmp_path / "refs.jsonl"
    result = cli.run("convert", "--format", "jamendo", "--input", jamendo_examples_json, "--references-out", out)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["qa_type"] for r in rows] == ["yes_no", "short_answer", "sentence"]
    assert rows[0]["id"] == "rnb_10Days__electronic_CrawlBack::yes_no" and rows[0]["answer"] == "No"
    assert "reasoning" not in rows[0]
    result = cli.run("validate", "--benchmark", "jamendo-mt-qa", "--references", out, "--predictions", out)
    assert result.returncode == 1  # references are not predictions: each line lacks "prediction"
    assert len(result.stdout.splitlines()) == 3


@pytest.mark.slow
def test_convert_musicqa_and_m2ugen_predictions_then_score(cli, tmp_path, musicqa_json) -> None:
    refs = tmp_path / "refs.jsonl"
    result = cli.run("convert", "--format", "musicqa", "--input", musicqa_json, "--references-out", refs)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in refs.read_text().splitlines()]
    assert len(rows) == 5040
    # an evaluator results file {audio_name: {question: prediction}} for every item: the answer itself
    results: dict[str, dict[str, str]] = {}
    for row in rows:
        results.setdefault(row["audio"], {})[row["question"]] = row["answer"]
    m2ugen = tmp_path / "results.json"
    m2ugen.write_text(json.dumps(results))
    # the evaluator's dict keeps one answer per (audio, question); the file repeats no pair
    assert sum(len(v) for v in results.values()) == 5040
    report = cli.score_json("--benchmark", "musicqa", "--references", refs, "--predictions", m2ugen,
                            "--predictions-format", "m2ugen-predictions", "--no-bertscore", "--bootstrap", "20")
    assert report["n_items"] == 5040
    meteor = report["metrics"].pop("meteor", None)
    assert report["metrics"] == {"bleu": 1.0, "bleu1": 1.0, "bleu4": 1.0, "rougeL_recall": 1.0}
    if METEOR:  # each answer matched whole, one chunk of its m wordpunct tokens: 1 - 0.5 / m^3 (fragmentation)
        counts = [len(wordpunct_tokenize(row["answer"])) for row in rows]
        assert meteor == pytest.approx(sum(1 - 0.5 / m**3 for m in counts) / len(counts), abs=1e-12)


@pytest.mark.slow
def test_per_item_rows_for_text_benchmark_cover_every_item(cli, files) -> None:
    refs, p1, p2 = files["generation"]
    out = files["root"] / "g_items.csv"
    report = cli.score_json("--benchmark", "musicqa", "--references", refs, "--predictions", p1,
                            "--predictions", p2, "--no-bertscore", "--bootstrap", "20", "--per-item", out)
    with open(out, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 100
    assert list(rows[0]) == ["id", "run", "qa_type", *MUSICQA_TEXT]
    rng_check = random.Random(0).sample(range(100), 5)
    for i in rng_check:
        assert 0.0 <= float(rows[i]["bleu1"]) <= 1.0
    for run in (1, 2):
        values = [float(r["bleu"]) for r in rows if r["run"] == str(run)]
        assert sum(values) / 50 == pytest.approx(report["per_run"]["bleu"][run - 1], abs=1e-12)
