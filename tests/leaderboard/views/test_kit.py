"""Starter kits (inputs, a sample prediction file that validates, the submit command) and the benchmark
pages' cite-and-trace section, as an anonymous visitor, on every split of every benchmark."""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from leaderboard.models import Split
from leaderboard.services.pipeline.submissions import submission_dry_run
from leaderboard.services.references.benchmarks import benchmark_create_from_spec, split_import_references
from leaderboard.services.shared.blobs import blob_path
from scoring import BENCHMARKS
from scoring.site.kit import sample_lines, sample_note
from tests.helpers.datagen import dialbgm_references, jamendo_references, write_jsonl
from tests.helpers.kit_sample import seeded
from tests.helpers.mcq_data import muchomusic_items, write_json
from tests.helpers.shared import SHARED_DIR, shared_file

pytestmark = pytest.mark.django_db


def _generation_references(n: int) -> list[dict[str, Any]]:
    """Ids and questions as real files have them: spaces, '::', non-ASCII, quotes."""
    return [{"id": f"clip {i}.wav::Qu'est-ce «{i}»?", "question": f"Describe part {i} — \"slowly\"?",
             "audio": f"clip {i}.wav", "answer": f"A calm piece {i}."} for i in range(15)]


GENERATED: dict[str, Callable[[Path], tuple[Path, str | None]]] = {
    "ranking": lambda tmp: (write_jsonl(dialbgm_references(24, seed=5), tmp / "ranking.jsonl"), None),
    "comparative_qa": lambda tmp: (write_jsonl(jamendo_references(12, seed=5), tmp / "jamendo.jsonl"), None),
    "generation": lambda tmp: (write_jsonl(_generation_references(15), tmp / "generation.jsonl"), None),
    "multiple_choice": lambda tmp: (write_json(muchomusic_items(30, seed=2), tmp / "muchomusic.json"), "muchomusic"),
}


def _open_every_split(tmp_path: Path) -> list[Split]:
    """The released files from ../shared/data, mmau-test-mini's gold (items renamed) as the hidden test split, generated
    references for every other split; returns every split of every registered benchmark."""
    data = SHARED_DIR / "data"
    if not data.is_dir():
        pytest.skip(f"{data} is absent (set SHARED_DIR to the folder holding data/)")
    call_command("import_references", "--from", str(data), stdout=io.StringIO(), stderr=io.StringIO())
    renamed = _mmau_with_other_answers(shared_file("data", "mmau", "mmau-test-mini.json"), tmp_path / "mmau-test.json",
                                       id_prefix="test-", move=False)
    call_command("import_references", "mmau", "test", str(renamed), "--format", "mmau", stdout=io.StringIO())
    for spec in BENCHMARKS.values():
        benchmark = benchmark_create_from_spec(name=spec.name)
        for split in benchmark.splits.filter(references_sha256=""):
            path, source_format = GENERATED[spec.task_type](tmp_path)
            split_import_references(split=split, path=path, source_format=source_format)
    splits = list(Split.objects.select_related("benchmark").order_by("benchmark__name", "name"))
    assert len(splits) == sum(len(spec.splits) for spec in BENCHMARKS.values())
    return splits


def _body(response: Any) -> bytes:
    return b"".join(response.streaming_content)


@pytest.mark.slow
def test_sample_file_validates_on_every_open_split_of_every_benchmark(client: Client, tmp_path: Path) -> None:
    for split in _open_every_split(tmp_path):
        name, where = split.benchmark.name, f"/b/{split.benchmark.name}/{split.name}"
        sample = client.get(f"{where}/sample-predictions.jsonl")
        assert sample.status_code == 200, split
        assert sample["Content-Disposition"] == f'attachment; filename="{name}-{split.name}-sample-predictions.jsonl"'
        body = _body(sample)
        inputs = [json.loads(line) for line in _body(client.get(f"{where}/inputs.jsonl")).decode().splitlines()]
        lines = [json.loads(line) for line in body.decode().splitlines()]
        assert [line["id"] for line in lines] == [item["id"] for item in inputs] and len(lines) == split.n_items
        log = submission_dry_run(split=split, files=[SimpleUploadedFile("sample.jsonl", body)])
        assert log.total == 0 and log.warning_total == 0, (str(split), [str(p) for p in log.problems[:3]],
                                                          [str(w) for w in log.warnings[:3]])

        page = client.get(f"{where}/kit/")
        assert page.status_code == 200
        html = page.content.decode()
        assert f"python -m scoring submit --site http://testserver --benchmark {name} --split {split.name}" in html
        assert f'href="{where}/inputs.jsonl"' in html and f'href="{where}/sample-predictions.jsonl"' in html
        note = sample_note(split.spec.task_type).replace("'", "&#x27;").replace('"', "&quot;")
        assert f'<span id="sample-note">{note}</span>' in html and "scores at chance, never like a result" in html
        assert json.dumps(lines[0], ensure_ascii=False).replace('"', "&quot;").replace("'", "&#x27;")[:60] in html


@pytest.mark.slow
def test_sample_lines_for_each_task_type(client: Client, tmp_path: Path) -> None:
    """The placeholders' shapes, exactly: the candidates shuffled, a random option, a random letter per prompt, yes
    or no at random, each drawn as the kit documents (seeded by the item id)."""
    _open_every_split(tmp_path)

    def first(benchmark: str, split: str) -> dict[str, Any]:
        return json.loads(_body(client.get(f"/b/{benchmark}/{split}/sample-predictions.jsonl")).decode().split("\n")[0])

    def first_input(benchmark: str, split: str) -> dict[str, Any]:
        return json.loads(_body(client.get(f"/b/{benchmark}/{split}/inputs.jsonl")).decode().split("\n")[0])

    dial = first_input("dialbgm", "test")
    shuffled = list(dial["candidates"])
    seeded(dial["id"]).shuffle(shuffled)
    assert first("dialbgm", "test") == {"id": dial["id"], "ranking": shuffled}
    mmau = first_input("mmau", "test-mini")
    assert first("mmau", "test-mini") == {"id": mmau["id"], "prediction": seeded(mmau["id"]).choice(
        [o for o in mmau["options"] if o.strip()])}
    rul = first_input("rul-muchomusic", "test")
    letters = seeded(rul["id"])
    assert first("rul-muchomusic", "test") == {
        "id": rul["id"], "responses": [f"[[{letters.choice('ABCD'[:len(p['options'])])}]]" for p in rul["prompts"]]}
    jam = first_input("jamendo-mt-qa", "full")
    assert jam["qa_type"] == "yes_no" and first("jamendo-mt-qa", "full") == {
        "id": jam["id"], "prediction": seeded(jam["id"]).choice(("yes", "no"))}
    caps = first_input("musiccaps", "test")
    assert first("musiccaps", "test") == {"id": caps["id"], "prediction": "placeholder answer"}


def _mmau_with_other_answers(source: Path, target: Path, id_prefix: str = "", move: bool = True) -> Path:
    """The file with every answer moved to the next option (unless ``move`` is off), ``id_prefix`` before every
    id, and audio of its own (a hidden split needs items of its own: test-mini's release shows their answers)."""
    items = json.loads(source.read_text())
    for item in items:
        item["id"] = id_prefix + item["id"]
        item["audio_id"] = item["audio_id"].replace("test-mini-audios/", "test-audios/hidden-")
        if move:
                item["answer"] = item["choices"][(item["choices"].index(item["answer"]) + 1) % len(item["choices"])]
    return write_json(items, target)


def test_hidden_label_kit_is_built_from_public_inputs_only(client: Client, tmp_path: Path) -> None:
    released = shared_file("data", "mmau", "mmau-test-mini.json")
    gold = _mmau_with_other_answers(released, tmp_path / "mmau-test-gold.json", move=False)
    call_command("import_references", "mmau", "test", str(gold), "--format", "mmau", stdout=io.StringIO())
    split = Split.objects.get(benchmark__name="mmau", name="test")
    assert split.hidden_labels
    sample = _body(client.get("/b/mmau/test/sample-predictions.jsonl"))
    page = client.get("/b/mmau/test/kit/").content
    inputs = [json.loads(line) for line in _body(client.get("/b/mmau/test/inputs.jsonl")).decode().splitlines()]
    public = [(item.pop("id"), item) for item in inputs]
    assert sample.decode() == "".join(sample_lines("multiple_choice", public))
    assert b"Hidden labels." in page and b"answer_index" not in page and b"&quot;answer&quot;" not in page

    # every gold answer moved to another option: the kit and its sample file do not change by one byte
    changed = _mmau_with_other_answers(gold, tmp_path / "mmau-test.json")
    call_command("import_references", "mmau", "test", str(changed), "--format", "mmau", "--force",
                 stdout=io.StringIO())
    assert Split.objects.get(pk=split.pk).references_sha256 != split.references_sha256
    assert _body(client.get("/b/mmau/test/sample-predictions.jsonl")) == sample
    assert client.get("/b/mmau/test/kit/").content == page


def test_closed_splits_say_why_and_how_a_maintainer_opens_them(client: Client, tmp_path: Path) -> None:
    benchmark_create_from_spec(name="mmau")
    benchmark_create_from_spec(name="dialbgm")
    page = client.get("/b/mmau/test/kit/").content.decode()
    assert "Not open for submissions" in page and "Answers withheld by the authors" in page
    assert "manage.py import_references --from DIR   (DIR holding mmau-test.json)" in page
    assert "mmau-test-mini.json" not in page
    assert "manage.py import_references mmau test FILE [--format FORMAT]" in page
    assert "sample-predictions.jsonl" not in page and "python -m scoring submit" not in page
    dial = client.get("/b/dialbgm/test/kit/").content.decode()
    assert "manage.py import_references dialbgm test FILE [--format FORMAT]" in dial and "--from DIR" not in dial

    refused = client.get("/b/mmau/test/sample-predictions.jsonl")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "not_open"
    board = client.get("/b/mmau/test/").content.decode()
    assert 'Not open for submissions: <a href="/b/mmau/test/kit/">why, and how a maintainer opens it</a>' in board
    assert "Submit to this leaderboard" not in board

    closed = client.get("/b/mmau/test-mini/")
    assert "Submit to this leaderboard" not in closed.content.decode()
    assert client.get("/b/mmau/test-mini/")["X-Page-Cache"] == "hit"  # the anonymous page is cached whole
    call_command("import_references", "--from", str(shared_file("data", "mmau", "mmau-test-mini.json").parent),
                 stdout=io.StringIO())
    open_board = client.get("/b/mmau/test-mini/").content.decode()
    assert '<a href="/b/mmau/test-mini/kit/"><strong>Submit to this leaderboard</strong></a>' in open_board
    Split.objects.filter(benchmark__name="mmau", name="test-mini").update(accepting_submissions=False)
    assert "closed this split to new submissions" in client.get("/b/mmau/test-mini/kit/").content.decode()


def test_benchmark_page_cites_the_paper_and_traces_the_stored_references(
        client: Client, make_user: Callable[..., Any], tmp_path: Path) -> None:
    gold = shared_file("data", "mmau", "mmau-test-mini.json")
    call_command("import_references", "--from", str(gold.parent), stdout=io.StringIO())
    other = _mmau_with_other_answers(gold, tmp_path / "mmau-test-answers.json", id_prefix="test-")  # its own items
    call_command("import_references", "mmau", "test", str(other), "--format", "mmau", stdout=io.StringIO())
    mini = Split.objects.get(benchmark__name="mmau", name="test-mini")
    hidden = Split.objects.get(benchmark__name="mmau", name="test")
    stored = hashlib.sha256(blob_path(mini.references_sha256).read_bytes()).hexdigest()

    html = client.get("/b/mmau/").content.decode()
    assert "@misc{sakshi2024mmaumassivemultitaskaudio," in html and "eprint = {2410.19168}" in html
    row = html[html.index("<td>test-mini (1,000 items)</td>"):]
    row = row[:row.index("</tr>")]
    assert f"<code class=\"signature\">{stored}</code>" in row and "<code>mmau-test-mini.json</code>" in row
    assert "github.com/Sakshi113/MMAU mmau-test-mini.json @ f0a4a97d" in row and "Apache-2.0" in row
    assert '<td class="num">1000</td>' in row
    assert hidden.references_sha256 not in html and "withheld: the split's labels are hidden" in html
    hidden_row = html[html.index("<td>test (9,000 items)</td>"):]
    assert "<code>mmau-test-answers.json</code>" in hidden_row[:hidden_row.index("</tr>")]
    assert "Sakshi113" not in hidden_row[:hidden_row.index("</tr>")]  # imported by name: no release claimed

    client.force_login(make_user("keeper", staff=True))
    assert hidden.references_sha256 in client.get("/b/mmau/").content.decode()
