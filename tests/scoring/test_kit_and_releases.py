"""Sample prediction files from public inputs (``scoring.site.kit``), the released-file table
(``scoring.publishers.released``) and the BibTeX entries (``scoring.specs.citations``)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from scoring import BENCHMARKS, ProblemLog, ScoringOptions, get_benchmark, read_predictions, read_references
from scoring.api import score_files
from scoring.publishers.importers import REFERENCE_IMPORTERS, convert_file
from scoring.publishers.released import Recognised, Unrecognised, known_files, recognise, release_of, released_files
from scoring.site.kit import FORMATS, SAMPLES, sample_lines, submit_command
from scoring.specs.citations import BIBTEX, bibtex
from scoring.task_types import TASK_TYPES
from tests.helpers.kit_sample import seeded as _seeded
from tests.helpers.publisher_files import released_mmau_accuracy
from tests.helpers.shared import shared_file

MESSY: dict[str, list[dict[str, Any]]] = {
    "ranking": [{"id": "d 1::«x»", "candidates": ["clip é", "c2", "c3", "c4"],
                 "gold_ranking": ["c3", "clip é", "c4", "c2"], "dialogue": "A: hi\nB: «ok»"}],
    "generation": [{"id": "a.wav::What's \"this\"?", "question": "What's \"this\"?", "answer": ["x", "y"]},
                   {"id": "b\u2028c", "answer": "z"}],
    "comparative_qa": [{"id": "p::yes_no", "pair_id": "p", "audio1": "a", "audio2": "b", "qa_type": "yes_no",
                        "question": "Faster?", "answer": "No"},
                       {"id": "p::sentence", "pair_id": "p", "audio1": "a", "audio2": "b", "qa_type": "sentence",
                        "question": "How?", "answer": "Slower."}],
    "multiple_choice": [{"id": "m1", "question": "Which?", "options": ["", "  ", "Piano", "Guitar"], "answer": "Piano"},
                        {"id": "m2", "question": "Which?", "options": ["Drums", "Bass"], "answer": "Bass"}],
    "leave_one_out": [{"id": "r1", "question": "Q?", "answer": "Yes",
                       "prompts": [{"options": ["Yes", "No", "Maybe"], "prompt": "p1"},
                                   {"options": ["No", "Yes", "Never"]}]}],
}
BENCHMARK_OF = {"ranking": "dialbgm", "generation": "musicqa", "comparative_qa": "jamendo-mt-qa",
                "multiple_choice": "mmau", "leave_one_out": "rul-muchomusic"}


def test_every_task_type_and_registered_benchmark_has_a_sample_and_a_format() -> None:
    assert set(SAMPLES) == set(TASK_TYPES) == set(FORMATS) == set(MESSY)
    assert {spec.task_type for spec in BENCHMARKS.values()} <= set(SAMPLES)


@pytest.mark.parametrize("task_type", sorted(MESSY))
def test_sample_of_messy_public_inputs_validates_without_a_warning(task_type: str, tmp_path: Path) -> None:
    spec = get_benchmark(BENCHMARK_OF[task_type])
    refs = tmp_path / "refs.jsonl"
    refs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in MESSY[task_type]), encoding="utf-8")
    log = ProblemLog()
    references = read_references(spec, refs, log)
    assert not log.problems
    sample = tmp_path / "sample.jsonl"
    sample.write_text("".join(sample_lines(task_type, ((r.id, r.public) for r in references.references))),
                      encoding="utf-8")
    log = ProblemLog()
    predictions = read_predictions(spec, references, sample, log)
    assert log.total == 0 and log.warning_total == 0, [str(p) for p in (*log.problems, *log.warnings)]
    assert all(p is not None for p in predictions)
    first = json.loads(sample.read_text(encoding="utf-8").splitlines()[0])
    shuffled = ["clip é", "c2", "c3", "c4"]
    _seeded("d 1::«x»").shuffle(shuffled)
    letters = _seeded("r1")
    expected = {"ranking": {"id": "d 1::«x»", "ranking": shuffled},
                "generation": {"id": "a.wav::What's \"this\"?", "prediction": "placeholder answer"},
                "comparative_qa": {"id": "p::yes_no", "prediction": _seeded("p::yes_no").choice(["yes", "no"])},
                "multiple_choice": {"id": "m1", "prediction": _seeded("m1").choice(["Piano", "Guitar"])},
                "leave_one_out": {"id": "r1", "responses": [f"[[{letters.choice('ABC')}]]",
                                                            f"[[{letters.choice('ABC')}]]"]}}
    assert first == expected[task_type]


def test_mmau_sample_scores_near_chance_not_like_option_one(tmp_path: Path) -> None:
    """The placeholder draws an option per item: its accuracy is evaluation.py's Total over the released items with
    the drawn options as model output, near 1 / options, far below option 1's 39.8%."""
    released = shared_file("data", "mmau", "mmau-test-mini.json")
    refs = tmp_path / "refs.jsonl"
    assert not convert_file(REFERENCE_IMPORTERS["mmau"], released, refs)
    references = read_references(get_benchmark("mmau"), refs, ProblemLog())
    sample = tmp_path / "sample.jsonl"
    sample.write_text("".join(sample_lines("multiple_choice", ((r.id, r.public) for r in references.references))))
    answers = {json.loads(line)["id"]: json.loads(line)["prediction"] for line in sample.read_text().splitlines()}
    gold = {item["id"]: item for item in json.loads(released.read_text(encoding="utf-8"))}
    assert all(answers[i] in gold[i]["choices"] for i in gold)
    expected = released_mmau_accuracy([{**gold[i], "model_output": answers[i]} for i in gold])
    report = score_files("mmau", refs, [sample], ScoringOptions(n_bootstrap=0))
    assert report.metrics["accuracy"] == pytest.approx(expected, abs=1e-9)
    accuracy = report.metrics["accuracy"]
    assert accuracy is not None and 25.0 <= accuracy <= 26.0  # 1,000 items, 4 options on most
    first = sum(answers[i] == gold[i]["choices"][0] for i in gold)
    assert 200 < first < 300  # option 1 drawn about a quarter of the time, not always


def test_rul_sample_scores_as_the_majority_of_its_drawn_letters(tmp_path: Path) -> None:
    """Each placeholder answers one letter per prompt; the item's answer is the most common of the options those
    letters name (ties to the first, Counter.most_common(1)): the accuracy, counted from the file and the release."""
    released = shared_file("data", "rul-muchomusic", "RUL-MuchoMusic.json")
    refs = tmp_path / "refs.jsonl"
    assert not convert_file(REFERENCE_IMPORTERS["rul-muchomusic"], released, refs)
    spec = get_benchmark("rul-muchomusic")
    references = read_references(spec, refs, ProblemLog())
    sample = tmp_path / "sample.jsonl"
    sample.write_text("".join(sample_lines("leave_one_out", ((r.id, r.public) for r in references.references))))
    drawn = {json.loads(line)["id"]: json.loads(line)["responses"] for line in sample.read_text().splitlines()}
    expected = 0
    for ref in references.references:
        named = [prompt["options"]["ABCDEFGHIJ".index(letter[2])]
                 for prompt, letter in zip(ref.public["prompts"], drawn[ref.id], strict=True)]
        expected += Counter(named).most_common(1)[0][0] == ref.answers[0]
    report = score_files("rul-muchomusic", refs, [sample], ScoringOptions(n_bootstrap=0))
    assert report.metrics["accuracy"] == pytest.approx(100 * expected / len(references.references), abs=1e-9)
    assert report.metrics["answered_rate"] == 100.0


def test_submit_command_names_the_split_and_each_setting() -> None:
    assert submit_command("dialbgm", "test", "https://x.org", ["input", "modality"]) == (
        "python -m scoring submit --site https://x.org --benchmark dialbgm --split test \\\n"
        "    --predictions predictions.jsonl --model-name MyModel \\\n"
        "    --setting input=VALUE \\\n    --setting modality=VALUE")


def _records(path: Path, pairs: int) -> Path:
    rows = [{"pair_id": f"a{p}__b{p}", "audio1": f"a{p}", "audio2": f"b{p}", "qa_type": t, "question": "?",
             "gold_answer": "yes"} for p in range(pairs) for t in ("yes_no", "short_answer", "sentence")]
    path.write_text(json.dumps(rows))
    return path


def test_jamendo_records_open_the_split_their_pair_count_names_under_any_name(tmp_path: Path) -> None:
    full = recognise(_records(tmp_path / "my_model_multi.json", 12_173))
    assert isinstance(full, Recognised) and (full.benchmark, full.split) == ("jamendo-mt-qa", "full")
    subset = recognise(_records(tmp_path / "multi_qa.json", 2_010))
    assert isinstance(subset, Recognised) and subset.split == "subset-2010" and subset.row.name == "multi_qa.json"
    other = recognise(_records(tmp_path / "run.json", 2_011))
    assert isinstance(other, Unrecognised) and not other.named and "2,011 track pairs" in other.reason
    named = recognise(_records(tmp_path / "multi_qa.json", 5))
    assert isinstance(named, Unrecognised) and named.named


def test_release_names_are_unique_and_every_row_opens_a_declared_split() -> None:
    names = [row.name for row in known_files()]
    assert len(names) == len(set(names))
    assert {r.benchmark for r in known_files()} - {r.benchmark for r in released_files()} <= {
        f"cmi-{n}" for n in ("gtzan", "vocalset-tech", "nsynth-instrument", "emo-arousal", "emo-valence", "dsing",
                             "gtzan-beat", "ballroom-beat", "gtzan-downbeat", "ballroom-downbeat", "guzheng-tech",
                             "sdd", "musiccaps")}
    for row in released_files():
        declared = {s.name for s in get_benchmark(row.benchmark).splits}
        assert set(row.splits) <= declared and row.source_format in REFERENCE_IMPORTERS, row.name
    assert release_of("mmau", "test-mini", "mmau-test-mini.json").startswith("github.com/Sakshi113/MMAU")
    assert release_of("mmau", "test", "mmau-test-mini.json") == ""


def test_bibtex_entries_are_well_formed_and_agree_with_each_specs_arxiv_id() -> None:
    assert set(BIBTEX) <= set(BENCHMARKS)
    assert bibtex("cmi-anything").startswith("@misc{ma2025cmibench") and bibtex("unknown") == ""
    for name in [n for n in BENCHMARKS if bibtex(n)] + ["cmi-gtzan"]:
        text = bibtex(name)
        for entry in text.split("\n\n"):
            assert re.fullmatch(r"@(misc|article|inproceedings)\{[a-z0-9]+,\n(  \w+ = \{.*\},\n)*  \w+ = \{.*\}\n\}",
                                entry), entry
            assert entry.count("{") == entry.count("}")
            assert all(f"  {field} = {{" in entry for field in ("title", "author", "year"))
        said = get_benchmark(name).source + get_benchmark(name).citation if name in BENCHMARKS else "arXiv 2506.12285"
        for arxiv in re.findall(r"arXiv[: ]?(\d{4}\.\d{5})", said):
            assert arxiv in text, (name, arxiv)
    assert "doi" not in "".join(bibtex(n) for n in BIBTEX).lower()
