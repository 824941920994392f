"""``manage.py import_references --from DIR`` on the publishers' released files (../shared/data) and broken copies."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from leaderboard.models import ReferenceItem, Split
from scoring import BENCHMARKS
from tests.helpers.shared import SHARED_DIR, shared_file

pytestmark = pytest.mark.django_db


def _run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_references", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def _line(report: str, name: str) -> str:
    found = [line for line in report.splitlines() if line.startswith(name + " ") or line.startswith(name + ":")]
    assert len(found) == 1, (name, report)
    return found[0]


def _released_ids() -> dict[str, list[str]]:
    """Item ids read straight from the released files, by the publishers' own keys."""
    mmar = [json.loads(line)["id"] for line in shared_file("data", "mmar", "MMAR-meta.jsonl").read_text().splitlines()
            if line.strip()]
    mmau = [item["id"] for item in json.loads(shared_file("data", "mmau", "mmau-test-mini.json").read_text())]
    rul = list(json.loads(shared_file("data", "rul-muchomusic", "RUL-MuchoMusic.json").read_text()))
    with open(shared_file("data", "musiccaps", "musiccaps-public.csv"), newline="") as handle:
        caps = [row["ytid"] for row in csv.DictReader(handle) if row["is_audioset_eval"] == "True"]
    musicqa = json.loads(shared_file("data", "musicqa", "EvalMusicQA.json").read_text())
    return {"mmar/test": mmar, "mmau/test-mini": mmau, "rul-muchomusic/test": rul, "musiccaps/test": caps,
            "musicqa/test": [f"{row['audio_name']}::{row['conversation'][0]['value']}" for row in musicqa]}


@pytest.mark.slow
def test_shared_data_folder_opens_each_released_split_once_and_says_what_it_left() -> None:
    data = SHARED_DIR / "data"
    if not data.is_dir():
        pytest.skip(f"{data} is absent (set SHARED_DIR to the folder holding data/)")
    expected = _released_ids()
    out, err = _run("--from", str(data))
    assert err == ""
    assert _line(out, "mmar/MMAR-meta.jsonl") == (
        "mmar/MMAR-meta.jsonl -> mmar/test: imported (1,000 items, 4 warning(s))")
    empty = [line for line in out.splitlines() if line.startswith("    MMAR-meta.jsonl:")]
    assert empty == ["    MMAR-meta.jsonl: lines 396, 596, 615 and 1 more: options: warning: e.g. line 396: "
                     "option 5 of 5 is empty; kept, as the publisher's matcher reads it"]  # four alike, one entry
    assert _line(out, "mmau/mmau-test-mini.json") == (
        "mmau/mmau-test-mini.json -> mmau/test-mini: imported (1,000 items)")
    assert _line(out, "rul-muchomusic/RUL-MuchoMusic.json") == (
        "rul-muchomusic/RUL-MuchoMusic.json -> rul-muchomusic/test: imported (1,187 items)")
    assert _line(out, "musiccaps/musiccaps-public.csv") == (
        "musiccaps/musiccaps-public.csv -> musiccaps/test: imported (2,858 items)")
    assert _line(out, "musicqa/EvalMusicQA.json").startswith("musicqa/EvalMusicQA.json -> musicqa/test: imported (")
    cmi = _line(out, "cmi-bench/CMI_GTZAN_test.jsonl")
    if "cmi-gtzan" in BENCHMARKS:  # the CMI-Bench task files open their benchmarks once those are registered
        assert cmi.startswith("cmi-bench/CMI_GTZAN_test.jsonl -> cmi-gtzan/test: imported (290 items")
    else:
        assert cmi == "cmi-bench/CMI_GTZAN_test.jsonl: not recognised (not a released file this site knows)"
    assert _line(out, "mmau/README.txt") == "mmau/README.txt: not recognised (not a released file this site knows)"
    assert _line(out, "jamendo-mt-qa/examples_from_project_page.json") == (
        "jamendo-mt-qa/examples_from_project_page.json: not recognised (Jamendo-MT-QA records over 3 track pairs, "
        "not a released split's 12,173 (full) or 2,010 (subset-2010); import it into a split by name: "
        "import_references jamendo-mt-qa SPLIT PATH --format jamendo)")
    for target, ids in expected.items():
        benchmark, name = target.split("/")
        split = Split.objects.get(benchmark__name=benchmark, name=name)
        stored = list(split.items.order_by("index").values_list("item_id", flat=True))
        assert len(set(ids)) == len(ids) or target == "musicqa/test"
        if target == "musicqa/test":  # repeated (audio, question) pairs get ::2, ::3 suffixes, in file order
            assert [s.split("::")[0] + "::" + s.split("::")[1] for s in stored] == ids
        else:
            assert stored == ids, target
        assert split.n_items == len(ids) and len(split.references_sha256) == 64
    assert not Split.objects.filter(benchmark__name="jamendo-mt-qa").exclude(references_sha256="").exists()
    assert Split.objects.get(benchmark__name="mmau", name="test").references_sha256 == ""

    before = {(s.pk, s.references_sha256, s.cache_token) for s in Split.objects.all()}
    items_before = ReferenceItem.objects.order_by("pk").values_list("pk", flat=True).last()
    again, err = _run("--from", str(data))
    assert err == ""
    assert _line(again, "mmar/MMAR-meta.jsonl") == "mmar/MMAR-meta.jsonl -> mmar/test: already current (1,000 items)"
    assert "imported" not in again
    assert {(s.pk, s.references_sha256, s.cache_token) for s in Split.objects.all()} == before
    assert ReferenceItem.objects.order_by("pk").values_list("pk", flat=True).last() == items_before


@pytest.mark.slow
def test_a_changed_release_is_imported_again_and_a_broken_one_names_file_and_line(tmp_path: Path) -> None:
    source = shared_file("data", "mmar", "MMAR-meta.jsonl")
    folder = tmp_path / "files"
    (folder / "mmar").mkdir(parents=True)
    lines = source.read_text().splitlines()
    (folder / "mmar" / "MMAR-meta.jsonl").write_text("\n".join(lines[:-1]) + "\n")
    out, _ = _run("--from", str(folder))
    assert _line(out, "mmar/MMAR-meta.jsonl") == (
        "mmar/MMAR-meta.jsonl -> mmar/test: imported (999 items, 4 warning(s))")

    shutil.copy(source, folder / "mmar" / "MMAR-meta.jsonl")
    out, _ = _run("--from", str(folder))
    assert _line(out, "mmar/MMAR-meta.jsonl") == (
        "mmar/MMAR-meta.jsonl -> mmar/test: imported (1,000 items, 4 warning(s))")

    broken = lines[:]
    broken[1] = broken[1][:40]  # a truncated second line
    (folder / "mmar" / "MMAR-meta.jsonl").write_text("\n".join(broken) + "\n")
    (folder / "mmau-test-mini.json").write_text('{"not": "a list"}')
    err = io.StringIO()
    with pytest.raises(CommandError, match="2 file"):
        call_command("import_references", "--from", str(folder), stdout=io.StringIO(), stderr=err)
    report = err.getvalue()
    assert report.startswith("mmar/MMAR-meta.jsonl -> mmar/test: error (1 problem(s), nothing imported: "
                             "MMAR-meta.jsonl:2: not valid JSON"), report
    assert _line(report, "mmau-test-mini.json") == (
        "mmau-test-mini.json: error (named as released but not shaped so: mmau-test-mini.json: expected a JSON array)")
    assert Split.objects.get(benchmark__name="mmar", name="test").n_items == 1000  # the stored set is kept


def test_misnamed_shapes_duplicates_and_splits_in_use_are_reported_not_imported(
        tmp_path: Path, make_user: Any) -> None:
    source = shared_file("data", "mmau", "mmau-test-mini.json")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(source, tmp_path / "a" / "mmau-test-mini.json")
    shutil.copy(source, tmp_path / "b" / "mmau-test-mini.json")
    (tmp_path / "EvalMusicQA.json").write_text('[{"question": "q"}]')
    err = io.StringIO()
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_references", "--from", str(tmp_path), stdout=out, stderr=err)
    assert _line(err.getvalue(), "a/mmau-test-mini.json") == (
        "a/mmau-test-mini.json -> mmau/test-mini: error (b/mmau-test-mini.json would open the same split; keep one)")
    assert _line(err.getvalue(), "EvalMusicQA.json") == (
        "EvalMusicQA.json: error (named as released but not shaped so: EvalMusicQA.json: the first record "
        "should have audio_name, conversation)")
    assert not Split.objects.exclude(references_sha256="").exists()

    shutil.rmtree(tmp_path / "b")
    _run("--from", str(tmp_path / "a"))
    split = Split.objects.get(benchmark__name="mmau", name="test-mini")
    split.submissions.create(user=make_user("owner"), model_name="m")
    lines = json.loads(source.read_text())
    (tmp_path / "a" / "mmau-test-mini.json").write_text(json.dumps(lines[:-1]))
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_references", "--from", str(tmp_path / "a"), stdout=io.StringIO(), stderr=err)
    assert "has submissions; use force and re-score them; nothing imported" in err.getvalue()
    out, _ = _run("--from", str(tmp_path / "a"), "--force")
    assert _line(out, "mmau-test-mini.json") == "mmau-test-mini.json -> mmau/test-mini: imported (999 items)"


def test_from_takes_no_benchmark_split_or_format(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="--from DIR takes no benchmark"):
        _run("mmar", "--from", str(tmp_path))
    with pytest.raises(CommandError, match="is not a folder"):
        _run("--from", str(tmp_path / "missing"))
    with pytest.raises(CommandError, match="give BENCHMARK SPLIT PATH, or --from DIR"):
        _run()
