"""SongFormBench through ``python -m scoring``: the released file read as references, warnings on messy answers
naming file, line and field, every song required, public inputs without the labels, per-subset columns."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from scoring.publishers.importers import REFERENCE_IMPORTERS, convert_file
from tests.helpers.shared import shared_file

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def references(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("songform") / "references.jsonl"
    released = shared_file("data", "songformbench", "songformbench_segments.jsonl")
    assert not convert_file(REFERENCE_IMPORTERS["songformbench"], released, target)
    return target


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_references_as_their_own_answers_score_one_in_both_subsets(cli, references: Path, tmp_path: Path) -> None:
    run = _write(tmp_path / "self.jsonl", [{"id": r["id"], "prediction": r["answer"]} for r in _records(references)])
    released = shared_file("data", "songformbench", "songformbench_segments.jsonl")
    report = cli.score_json("--benchmark", "songformbench", "--references", released, "--references-format",
                            "songformbench", "--predictions", run, "--no-bertscore")
    assert report["n_items"] == 300 and report["warnings"]["total"] == 0
    assert set(report["metrics"]) >= {"hx_acc", "hx_hr05_f", "hx_hr3_f", "cn_acc", "cn_hr05_f", "cn_hr3_f"}
    assert all(value == 1.0 for value in report["metrics"].values()), report["metrics"]
    assert "subset:CN" in report["signatures"]["cn_acc"] and "subset:HarmonixSet" in report["signatures"]["hx_acc"]


def test_messy_answers_are_warned_on_their_line_and_missing_songs_are_errors(cli, references: Path,
                                                                              tmp_path: Path) -> None:
    rows = [{"id": r["id"], "prediction": r["answer"]} for r in _records(references)]
    rows[4]["prediction"] = "1:05 Chorus\n0:00 intro\n3:30 end"
    rows[7]["prediction"] = "no sections here"
    run = _write(tmp_path / "messy.jsonl", rows)
    result = cli.run("validate", "--benchmark", "songformbench", "--references", references, "--predictions", run)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("messy.jsonl:5: prediction: warning: ") and "'Chorus' read as 'chorus'" in line
               and "times not in order" in line for line in lines), lines
    assert any(line.startswith("messy.jsonl:8: prediction: warning: ") and "no section could be read" in line
               for line in lines), lines
    short = _write(tmp_path / "short.jsonl", rows[:-1])
    missing = cli.run("validate", "--benchmark", "songformbench", "--references", references, "--predictions", short)
    assert missing.returncode == 1 and rows[-1]["id"] in missing.stdout + missing.stderr


def test_public_inputs_hold_the_subset_and_duration_but_no_labels(cli, references: Path) -> None:
    result = cli.run("inputs", "--benchmark", "songformbench", "--references", references)
    assert result.returncode == 0, result.stderr
    inputs = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(inputs) == 300 and {item["context"] for item in inputs} == {"HarmonixSet", "CN"}
    assert all("answer" not in item and "The audio lasts" in item["question"] for item in inputs)
    assert not any("chorus\n" in json.dumps(item) for item in inputs)


def test_segment_lists_as_json_values_are_read_and_other_values_refused(cli, references: Path, tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [{"id": r["id"], "prediction": r["answer"]} for r in _records(references)]
    first = [line.split() for line in rows[0]["prediction"].splitlines()]
    rows[0]["prediction"] = [[float(a[0]), float(b[0]), a[1]] for a, b in itertools.pairwise(first)]
    run = _write(tmp_path / "lists.jsonl", rows)
    report = cli.score_json("--benchmark", "songformbench", "--references", references, "--predictions", run)
    assert all(value == 1.0 for value in report["metrics"].values()) and report["warnings"]["total"] == 0
    rows[1]["prediction"] = {"start": 0}
    bad = _write(tmp_path / "bad.jsonl", rows)
    result = cli.run("validate", "--benchmark", "songformbench", "--references", references, "--predictions", bad)
    assert result.returncode == 1
    assert "bad.jsonl:2: prediction: prediction must be a string or a list of segments, got object" in result.stdout


def _msa_folder() -> Path:
    """The released references as SongFormer's own MSA TXT folder (one subfolder per subset)."""
    return shared_file("data", "songformbench", "msa_txt", "CN", "BC_01bc5b.txt").parents[1]


EVERY_COLUMN = ("acc", "hr05_f", "hr3_f", "hr1_f", "pwf", "sf", "iou", "hr05_p", "hr05_r", "hr1_p", "hr1_r", "hr3_p",
                "hr3_r", "pwp", "pwr", "so", "su")  # the CARD's ranked columns and breakdowns, iou_<class> aside


def test_the_reference_folder_as_predictions_scores_one_on_every_column(cli: Any) -> None:
    folder = _msa_folder()
    released = shared_file("data", "songformbench", "songformbench_segments.jsonl")
    classes: dict[str, set[str]] = {}  # the evaluation classes each subset's files hold (pre-chorus counted as verse)
    for subset, prefix in (("HarmonixSet", "hx"), ("CN", "cn")):
        labels = {line.split()[1] for file in (folder / subset).glob("*.txt")
                  for line in file.read_text(encoding="utf-8").splitlines() if line.strip()}
        classes[prefix] = {"verse" if label == "pre-chorus" else label for label in labels} - {"end"}
    expected = {f"{prefix}_{column}": 1.0 for prefix, held in classes.items()
                for column in (*EVERY_COLUMN, *(f"iou_{label}" for label in held))}
    report = cli.score_json("--benchmark", "songformbench", "--references", released, "--references-format",
                            "songformbench", "--predictions", folder, "--no-bertscore")
    assert report["n_items"] == 300 and report["warnings"]["total"] == 0
    assert report["metrics"] == expected


def _acc_all_silence(text: str) -> float:
    """cal_acc of an answer with the reference's times, every section 'silence': times to the millisecond."""
    msa = [(int(round(float(t), 3) * 1000), label) for t, label in (line.split() for line in text.splitlines())]
    agree = sum(end - start for (start, label), (end, _) in itertools.pairwise(msa) if label == "silence")
    return agree / (msa[-1][0] - msa[0][0])


def test_a_hand_edited_folder_scores_as_the_same_texts_in_jsonl(cli: Any, references: Path,
                                                                tmp_path: Path) -> None:
    source = _msa_folder()
    folder = tmp_path / "est_txt"
    texts: dict[str, str] = {}
    for file in sorted(source.glob("*/*.txt")):
        (folder / file.parent.name).mkdir(parents=True, exist_ok=True)
        texts[f"{file.parent.name}/{file.name}"] = file.read_text(encoding="utf-8")
    silenced = "HarmonixSet/BHX_0022_betteroffalone.txt"
    acc = _acc_all_silence(texts[silenced])
    texts[silenced] = "".join(f"{line.split()[0]} {'end' if line.endswith(' end') else 'silence'}\n"
                              for line in texts[silenced].splitlines())
    texts["HarmonixSet/BHX_0028_blackmagic.txt"] = ""
    messy = "CN/BC_01bc5b.txt"  # the same song, lines reversed and labels capitalised: repaired to itself
    texts[messy] = "\n".join(line.title() for line in reversed(texts[messy].splitlines()))
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "README.md").write_text("SongFormer's predictions\n", encoding="utf-8")
    (folder / "HarmonixSet" / "BHX_9999_notasong.txt").write_text("0.0 intro\n10.0 end\n", encoding="utf-8")
    run = _write(tmp_path / "same.jsonl", [{"id": Path(name).stem, "prediction": text} for name, text in texts.items()])

    released = shared_file("data", "songformbench", "songformbench_segments.jsonl")
    as_folder = cli.score_json("--benchmark", "songformbench", "--references", released, "--references-format",
                               "songformbench", "--predictions", folder, "--predictions-format", "songformbench",
                               "--no-bertscore")
    as_jsonl = cli.score_json("--benchmark", "songformbench", "--references", references, "--predictions", run,
                              "--no-bertscore")
    assert as_folder["metrics"] == as_jsonl["metrics"]
    metrics = as_folder["metrics"]
    for window in ("hr05", "hr1", "hr3"):  # the empty answer scores 0, the relabelled one keeps every boundary
        assert metrics[f"hx_{window}_f"] == pytest.approx(199 / 200, abs=1e-12)
    assert metrics["hx_acc"] == pytest.approx((198 + acc) / 200, abs=1e-12)
    assert all(value == 1.0 for key, value in metrics.items() if key.startswith("cn_")), metrics

    counts = as_folder["warnings"]["counts"]
    assert counts == {**as_jsonl["warnings"]["counts"], "not_msa_txt": 1, "unknown_id_ignored": 1}
    assert counts["unreadable_answer"] == 2 and counts["empty_prediction"] == 1
    named = {(w["file"], w["kind"]) for w in as_folder["warnings"]["first"]}
    assert {("est_txt/CN/BC_01bc5b.txt", "unreadable_answer"), ("est_txt/HarmonixSet/BHX_0028_blackmagic.txt",
            "empty_prediction"), ("est_txt", "not_msa_txt")} <= named
    ignored = next(w for w in as_folder["warnings"]["first"] if w["kind"] == "unknown_id_ignored")
    assert '"BHX_9999_notasong"' in ignored["message"]

    converted = tmp_path / "converted.jsonl"
    result = cli.run("convert", "--format", "songformbench", "--input", folder, "--predictions-out", converted)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'est_txt:0: warning: 1 file(s) not named <id>.txt left out, as eval_infer_results.py leaves them out: ' \
           '"README.md"' in result.stdout
    records = sorted(_records(converted), key=lambda r: r["id"])
    assert records == sorted([*_records(run), {"id": "BHX_9999_notasong", "prediction": "0.0 intro\n10.0 end\n"}],
                             key=lambda r: r["id"])


def test_an_empty_folder_is_an_error_naming_it(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "est").mkdir()
    result = cli.run("validate", "--benchmark", "songformbench", "--references", tmp_path / "refs.jsonl",
                     "--predictions", tmp_path / "est")
    assert result.returncode == 1
    assert result.stdout == "est:0: the folder holds no <id>.txt file (SongFormer's MSA TXT, one per song)\n"
