"""``manage.py import_released_outputs --from DIR`` on the CMI-Bench authors' released result files (../shared/data):
references first, one line per file, entries of the system account with provenance and source, incomplete runs
scored as empty answers with a warning and counted, refusals with their reason, nothing new on a second run."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from leaderboard.models import Provenance, Status, Submission
from scoring.cli import main
from tests.helpers.released_outputs import (
    every_nth_removed,
    release_copy,
    release_records,
    release_write,
    shared_release,
)
from tests.helpers.shared import shared_file

pytestmark = pytest.mark.django_db
TASK_FILES = ("CMI_GTZAN_test.jsonl", "CMI_VocalSet_tech_test.jsonl")
COMMIT = "4c15f410bf0c7ff59d654b2a96f3295f3dec5aa5"


def _run(folder: Path) -> tuple[str, str, bool]:
    """The command's standard output and error, and whether it ended in an error (a refused file)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_released_outputs", "--from", str(folder), stdout=out, stderr=err)
    except CommandError as exc:
        err.write(f"CommandError: {exc}\n")
        return out.getvalue(), err.getvalue(), True
    return out.getvalue(), err.getvalue(), False


def _line(report: str, path: str) -> str:
    found = [line for line in report.splitlines() if line.startswith(path + " ") or line.startswith(path + ":")]
    assert len(found) == 1, (path, report)
    return found[0]


@pytest.fixture
def references_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "cmi-bench"
    folder.mkdir()
    for name in TASK_FILES:
        shutil.copy(shared_file("data", "cmi-bench", name), folder / name)
    return folder


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """Two whole GTZAN runs, qwen2's VocalSet run without 40 of its 1,140 records, a task not hosted here, the
    release's README, and a run with a record whose response is gone."""
    folder = tmp_path / "cmi-bench-results"
    release_copy(folder, "qwen2", "GTZAN")
    release_copy(folder, "mullama", "GTZAN")
    release_write(folder, "qwen2", "MedleyDB", release_records(shared_release("qwen2", "GTZAN"))[:3])
    kept, _ = every_nth_removed(release_records(shared_release("qwen2", "VocalSet_tech")), 40)
    release_write(folder, "qwen2", "VocalSet_tech", kept)
    broken = release_records(shared_release("salmonn", "GTZAN"))
    del broken[6]["response"]
    release_write(folder, "salmonn", "GTZAN", broken)
    (folder / "README.md").write_text("CMI-Bench: the publisher's released model outputs")
    return folder


def test_without_the_references_each_hosted_file_is_refused_saying_to_import_them_first(release: Path) -> None:
    out, err, failed = _run(release)
    assert failed and Submission.objects.count() == 0
    assert _line(err, "qwen2/qwen2_GTZAN.jsonl.gz") == (
        "qwen2/qwen2_GTZAN.jsonl.gz -> cmi-gtzan/test: refused: cmi-gtzan/test has no references yet: import them "
        "first with manage.py import_references --from DIR (the folder holding CMI_GTZAN_test.jsonl)")
    assert "manage.py import_references --from DIR" in err.splitlines()[-2] and "../shared/data/cmi-bench" in err
    assert _line(out, "qwen2/qwen2_MedleyDB.jsonl.gz") == (
        "qwen2/qwen2_MedleyDB.jsonl.gz: not hosted here: task MedleyDB of cmi-bench")
    assert _line(out, "README.md").startswith("README.md: not recognised")
    assert out.splitlines()[-1] == "1 not hosted here, 4 refused, 1 not recognised"


@pytest.mark.slow
def test_released_files_become_entries_of_the_system_account_scored_like_the_cli_once(
        release: Path, references_folder: Path, tmp_path: Path, capsys, settings,
        django_capture_on_commit_callbacks) -> None:
    call_command("import_references", "--from", str(references_folder), stdout=io.StringIO())
    with django_capture_on_commit_callbacks(execute=True):  # tasks run eagerly here; a worker runs them on a site
        out, err, failed = _run(release)
    assert failed  # the broken file
    assert _line(out, "qwen2/qwen2_GTZAN.jsonl.gz") == (
        "qwen2/qwen2_GTZAN.jsonl.gz -> cmi-gtzan/test: imported: Qwen2-Audio-Instruct, 290 of 290 items answered")
    assert _line(out, "qwen2/qwen2_VocalSet_tech.jsonl.gz") == (
        "qwen2/qwen2_VocalSet_tech.jsonl.gz -> cmi-vocalset-tech/test: imported: Qwen2-Audio-Instruct, 1,100 of "
        "1,140 items answered, 40 missing scored as empty answers")
    assert _line(err, "salmonn/salmonn_GTZAN.jsonl.gz") == (
        "salmonn/salmonn_GTZAN.jsonl.gz -> cmi-gtzan/test: refused: 1 problem(s): salmonn_GTZAN.jsonl:7: response: "
        "required field \"response\" (the model's answer) is missing")
    assert out.splitlines()[-1] == "3 imported, 1 not hosted here, 1 refused, 1 not recognised"

    entries = {(s.split.benchmark.name, s.model_name): s for s in Submission.objects.select_related("split__benchmark")}
    assert set(entries) == {("cmi-gtzan", "Qwen2-Audio-Instruct"), ("cmi-gtzan", "MU-LLaMA"),
                            ("cmi-vocalset-tech", "Qwen2-Audio-Instruct")}
    account = get_user_model().objects.get(username="released-outputs")
    assert not account.has_usable_password() and not account.is_staff
    for entry in entries.values():
        assert (entry.user, entry.provenance, entry.status) == (account, Provenance.RELEASED, Status.SCORED)
        assert entry.source["commit"] == COMMIT and entry.source["licence"] == "CC BY 4.0"
        assert entry.source["publisher"] == "the CMI-Bench authors"
        assert entry.parameters == {"MU-LLaMA": "7B", "Qwen2-Audio-Instruct": "8.4B"}[entry.model_name]
    qwen2 = entries[("cmi-gtzan", "Qwen2-Audio-Instruct")]
    as_released = hashlib.sha256(_gunzip(release / "qwen2" / "qwen2_GTZAN.jsonl.gz")).hexdigest()
    assert qwen2.source["path"] == "model/results/qwen2/qwen2_GTZAN.jsonl"
    assert qwen2.source["url"] == f"https://github.com/nicolaus625/CMI-bench/blob/{COMMIT}/model/results/qwen2/" \
                                  "qwen2_GTZAN.jsonl"
    run = qwen2.runs.get()
    assert (run.original_name, run.sha256) == ("qwen2_GTZAN.jsonl", as_released)  # the bytes as released, scored

    partial = entries[("cmi-vocalset-tech", "Qwen2-Audio-Instruct")]
    assert (partial.source["items_answered"], partial.source["items_total"]) == (1100, 1140)
    assert partial.source["warning_counts"] == {"missing_as_empty": 40}
    assert partial.runs.get().original_name == "qwen2_VocalSet_tech.missing-as-empty.jsonl"
    incomplete = tmp_path / "qwen2_VocalSet_tech.jsonl"
    incomplete.write_bytes(_gunzip(release / "qwen2" / "qwen2_VocalSet_tech.jsonl.gz"))
    assert main(["score", "--benchmark", "cmi-vocalset-tech", "--references",
                 str(references_folder / "CMI_VocalSet_tech_test.jsonl"), "--references-format", "cmi-bench",
                 "--predictions", str(incomplete), "--predictions-format", "cmi-bench", "--missing-as-empty",
                 "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"])]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["missing_as_empty"] == 40
    assert partial.report["metrics"] == cli["metrics"] and partial.report["ci95"] == cli["ci95"]
    assert partial.report["signatures"] == cli["signatures"]

    page = Client().get(f"/s/{partial.uid}/").content.decode()
    assert "1,100 of 1,140 items answered" in page and "scored as empty answers" in page
    assert "CC BY 4.0" in page and "re-scored from released outputs" in page
    assert f'href="https://github.com/nicolaus625/CMI-bench/blob/{COMMIT}/model/results/qwen2/' in page
    assert "40 missing item(s) scored as empty predictions" in page
    api = Client().get(f"/api/v1/submissions/{partial.uid}").json()
    assert api["provenance"] == "released" and api["source"]["answered"] == "1,100 of 1,140 items answered"
    board = Client().get("/b/cmi-vocalset-tech/test/").content.decode()
    assert "1,100 of 1,140 items answered" in board
    items = Client().get(f"/s/{partial.uid}/items.jsonl")
    assert items.status_code == 200 and len(b"".join(items.streaming_content).splitlines()) == 1140

    again, _, failed_again = _run(release)
    assert failed_again and Submission.objects.count() == 3  # nothing new; the broken file is refused again
    assert _line(again, "qwen2/qwen2_GTZAN.jsonl.gz") == (
        "qwen2/qwen2_GTZAN.jsonl.gz -> cmi-gtzan/test: already imported: Qwen2-Audio-Instruct (scored)")
    assert again.splitlines()[-1] == "3 already imported, 1 not hosted here, 1 refused, 1 not recognised"


def test_a_persons_account_is_never_taken_for_the_system_account(release: Path, references_folder: Path) -> None:
    call_command("import_references", "--from", str(references_folder), stdout=io.StringIO())
    get_user_model().objects.create_user(username="released-outputs", password="pw-someone")
    _, err, failed = _run(release)
    assert failed and Submission.objects.count() == 0
    assert _line(err, "mullama/mullama_GTZAN.jsonl.gz").endswith(
        "refused: the account 'released-outputs' belongs to a person; the system account needs its own name")


def _gunzip(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes())
