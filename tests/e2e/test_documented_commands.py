"""Every command README.md and docs/*.md show, run as written on a fresh copy of the repository from a newcomer's
shell (none of the suite's variables: no DEBUG, no SECRET_KEY, no DATABASE_URL): exit status 0, no traceback.

``COMMANDS`` holds each documented command (as ``documented_commands`` reads it) and how it is run here: ``Run`` in
a group of commands that share state, in order, or ``NotRun`` with the reason and a shorter liveness check.
``tests/scoring/test_documented_commands_registry.py`` fails when a page shows a command this table lacks. The
copy's ``.venv`` is a link to the suite's environment (installing one takes minutes), so ``./scripts/setup`` there
finds it installed, as it does on a newcomer's second run.

Placeholders replaced before a command runs (``Run.placeholders``; nothing else of a command is changed):

| placeholder | becomes |
|---|---|
| ``refs.jsonl``, ``run1.jsonl``, ``run2.jsonl`` (Jamendo-MT-QA) | 30 generated pairs and two noisy runs |
| ``refs.jsonl``, ``a.jsonl``, ``b.jsonl`` (DialBGM) | 40 generated dialogues and two runs |
| ``MMAR-meta.jsonl``, ``results.jsonl`` | ../shared/data/mmar's file; it + ``answer_prediction`` (choice, text, null) |
| ``RUL-MuchoMusic.json``, ``EvalMusicQA.json``, ``mmau-test-mini.json`` | the files under ../shared/data |
| ``run.json`` (MMAU) | model outputs written for mmau-test-mini's items, messy ones included |
| ``items.csv``, ``items.jsonl``, the ``refs.jsonl`` ``convert`` writes | files in the test's folder |
| ``questions.jsonl`` (``--format jamendo``) | the generated Jamendo-MT-QA pairs |
| ``http://127.0.0.1:8000``, ``0.0.0.0:9000`` | the site ``run-site`` started on a free port |
| ``mlb_...``, ``$TOKEN`` | a token ``manage.py issue_token`` made |
| ``ID`` | the submission ``submit`` created |
| ``KEY`` (``--sort``) | ``yes_no_accuracy`` |
| ``python -m`` (a span of docs/scoring.md, run as it is meant) | ``.venv/bin/python -m`` |

Optional parts (``[--seed 0]``) are kept, without their brackets, with the first of their alternatives
(``[--format table|json]``: ``--format table``), except the ones a placeholder removes (``[--dry-run]``, so
that ``status`` and ``download`` have a submission; ``[--hidden-labels]``, so that ``download`` may show items).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.helpers.datagen import (
    dialbgm_predictions,
    dialbgm_references,
    jamendo_predictions,
    jamendo_references,
    write_jsonl,
)
from tests.helpers.e2e import REPO, SUITE_VARIABLES, free_port, fresh_copy, site_up, wait_for
from tests.helpers.mcq_data import mmau_prediction_file
from tests.helpers.shared import SHARED_DIR

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
NOISE_LINES = 30  # more lines than this on stderr from a command that worked is noise a newcomer must read past


@dataclass(frozen=True)
class Run:
    """Run as written, ``step`` in ``group``'s order, after replacing each placeholder (text -> ``{value}``)."""

    group: str
    step: int
    placeholders: Mapping[str, str] = field(default_factory=dict)
    needs_shared: bool = False


@dataclass(frozen=True)
class NotRun:
    """Not run here, for ``reason``; ``check`` (run in the fresh copy) shows the program at least starts."""

    reason: str
    check: str = ""


RUNS = {"run1.jsonl": "{run1}", "run2.jsonl": "{run2}"}
JAMENDO = {"refs.jsonl": "{jamendo_refs}", **RUNS}
SITE = {"http://127.0.0.1:8000": "{base}"}
MENTION = "names a subcommand in prose (no inputs given)"
SERVER = "a long-running server or worker"
PRODUCTION = "a production host's settings (db, redis, leaderboard.example.org are placeholders of the page)"
HEAVY = "a benchmark: minutes of CPU, a GPU or a long-running site"
SUITE = "runs the test suite, of which this test is a part"
SCORE_HELP = ".venv/bin/python -m scoring score --help"

COMMANDS: dict[str, Run | NotRun] = {
    # --- the scoring CLI on files (group "cli")
    ".venv/bin/python -m scoring benchmarks": Run("cli", 1),
    ".venv/bin/python -m scoring validate --benchmark jamendo-mt-qa --references refs.jsonl --predictions run1.jsonl":
        Run("cli", 2, {"refs.jsonl": "{jamendo_refs}", "run1.jsonl": "{run1}"}),
    ".venv/bin/python -m scoring score --benchmark jamendo-mt-qa --references refs.jsonl --predictions run1.jsonl "
    "--predictions run2.jsonl --per-item items.csv [--no-bertscore] [--seed 0]":
        Run("cli", 3, {**JAMENDO, "items.csv": "{tmp}/items.csv"}),
    ".venv/bin/python -m scoring score --benchmark mmar --references MMAR-meta.jsonl --references-format mmar "
    "--predictions results.jsonl --predictions-format mmar":
        Run("cli", 4, {"MMAR-meta.jsonl": "{shared}/mmar/MMAR-meta.jsonl", "results.jsonl": "{mmar_results}"},
            needs_shared=True),
    ".venv/bin/python -m scoring inputs --benchmark rul-muchomusic --references RUL-MuchoMusic.json "
    "--references-format rul-muchomusic":
        Run("cli", 5, {"RUL-MuchoMusic.json": "{shared}/rul-muchomusic/RUL-MuchoMusic.json"}, needs_shared=True),
    ".venv/bin/python -m scoring compare --benchmark dialbgm --references refs.jsonl --predictions a.jsonl "
    "--against b.jsonl":
        Run("cli", 6, {"refs.jsonl": "{dialbgm_refs}", "a.jsonl": "{dialbgm_a}", "b.jsonl": "{dialbgm_b}"}),
    ".venv/bin/python -m scoring convert --format musicqa --input EvalMusicQA.json --references-out refs.jsonl":
        Run("cli", 7, {"EvalMusicQA.json": "{shared}/musicqa/EvalMusicQA.json", "refs.jsonl": "{tmp}/musicqa.jsonl"},
            needs_shared=True),
    "python -m scoring score --benchmark mmau --references mmau-test-mini.json --references-format mmau "
    "--predictions run.json --predictions-format mmau":
        Run("cli", 8, {"python -m": ".venv/bin/python -m", "mmau-test-mini.json": "{shared}/mmau/mmau-test-mini.json",
                       "run.json": "{mmau_run}"}, needs_shared=True),
    # --- the embedded site, a submission through the CLI and curl, publishers' files imported (group "site")
    "./scripts/setup && .venv/bin/python manage.py migrate && .venv/bin/python manage.py collectstatic --noinput":
        Run("site", 1),
    ".venv/bin/python manage.py create_benchmark --all && .venv/bin/python manage.py load_baselines": Run("site", 2),
    "ADDR=0.0.0.0:9000 ./scripts/run-site": Run("site", 3, {"0.0.0.0:9000": "{addr}"}),
    ".venv/bin/python manage.py import_references jamendo-mt-qa full questions.jsonl --format jamendo "
    "[--hidden-labels]": Run("site", 4, {"questions.jsonl": "{jamendo_refs}", "[--hidden-labels]": ""}),
    "export MUSIC_SCORING_SITE=http://127.0.0.1:8000 MUSIC_SCORING_TOKEN=mlb_...":
        Run("site", 5, {**SITE, "mlb_...": "{token}"}),
    ".venv/bin/python -m scoring submit --benchmark jamendo-mt-qa --split full --predictions run1.jsonl "
    "--predictions run2.jsonl --model-name MyModel --setting type=Multi [--dry-run]":
        Run("site", 6, {**RUNS, "[--dry-run]": ""}),
    ".venv/bin/python -m scoring status ID [--format table|json]": Run("site", 7, {" ID": " {submission}"}),
    ".venv/bin/python -m scoring leaderboard jamendo-mt-qa full [--format table|json|csv] [--sort KEY] "
    "[--setting type=Multi]": Run("site", 8, {"KEY": "yes_no_accuracy"}),
    ".venv/bin/python -m scoring download ID [--format csv] [--out items.jsonl]":
        Run("site", 9, {" ID": " {submission}", "items.jsonl": "{tmp}/items.jsonl"}),
    'curl -H "Authorization: Token $TOKEN" -F model_name=MyModel -F type=Multi -F predictions=@run1.jsonl '
    "-F predictions=@run2.jsonl http://127.0.0.1:8000/api/v1/benchmarks/jamendo-mt-qa/full/submissions":
        Run("site", 10, {**RUNS, **SITE, "$TOKEN": "{token}"}),
    ".venv/bin/python manage.py import_references --from ../shared/data/cmi-bench": Run("site", 11, needs_shared=True),
    ".venv/bin/python manage.py import_references --from ../shared/data/cmi-bench-tags":
        Run("site", 12, needs_shared=True),
    ".venv/bin/python manage.py import_released_outputs --from ../shared/data/cmi-bench-results":
        Run("site", 13, needs_shared=True),
    # --- not run here
    "./scripts/run-site": NotRun("binds 127.0.0.1:8000, which another process may hold; run here as "
                                 "`ADDR=... ./scripts/run-site`"),
    "scripts/run-site": NotRun("the same script as `ADDR=0.0.0.0:9000 ./scripts/run-site`, named in prose"),
    "./scripts/run-tests": NotRun(SUITE, "bash -n scripts/run-tests"),
    "./scripts/run-tests --fast": NotRun(SUITE, "bash -n scripts/run-tests"),
    '.venv/bin/pytest -m "not browser"': NotRun(SUITE, ".venv/bin/pytest --version"),
    "scripts/setup": NotRun("run by `./scripts/setup && ...` in the site group"),
    "scripts/released-items DIR": NotRun("rewrites scoring/publishers/released_items/ (test_released_items checks "
                                         "its output against ../shared)", "bash -n scripts/released-items"),
    ".venv/bin/python manage.py import_references --from DIR": NotRun("DIR is any folder; run with "
                                                                      "../shared/data/cmi-bench in the site group"),
    "manage.py import_references --from DIR": NotRun("the same command, named in prose"),
    "manage.py import_references cmi-gtzan test CMI_GTZAN_test.jsonl --format cmi-bench":
        NotRun("imported by `import_references --from ../shared/data/cmi-bench` in the site group",
               ".venv/bin/python manage.py import_references --help"),
    ".venv/bin/python manage.py import_references --from /data/releases": NotRun(PRODUCTION),
    ".venv/bin/python manage.py import_released_outputs --from /data/outputs": NotRun(PRODUCTION),
    "manage.py runsite": NotRun(SERVER + "; started by run-site in the site group"),
    "manage.py audit_hidden_splits": NotRun(MENTION, ".venv/bin/python manage.py audit_hidden_splits --help"),
    "manage.py createsuperuser": NotRun("asks for a password", ".venv/bin/python manage.py createsuperuser --help"),
    "manage.py load_baselines": NotRun("run by `... && .venv/bin/python manage.py load_baselines` in the site group"),
    "manage.py bertscore_check --model /models/roberta-large --layer 17 --name roberta-large --device cuda":
        NotRun("needs a GPU and a model folder", ".venv/bin/python manage.py bertscore_check --help"),
    "export SECRET_KEY=... ALLOWED_HOSTS=leaderboard.example.org CSRF_TRUSTED_ORIGINS=https://leaderboard.example.org":
        NotRun(PRODUCTION),
    "export SITE_URL=https://leaderboard.example.org": NotRun(PRODUCTION),
    "export DATABASE_URL=postgresql://user:pass@db:5432/leaderboard REDIS_URL=redis://redis:6379/0":
        NotRun(PRODUCTION),
    "export SCORING_HEAVY_QUEUE=leaderboard-heavy": NotRun(PRODUCTION),
    ".venv/bin/gunicorn leaderboard.config.wsgi -w 2 -k gthread --threads 16 -b 0.0.0.0:8000":
        NotRun(SERVER, ".venv/bin/gunicorn leaderboard.config.wsgi -w 2 -k gthread --threads 16 --check-config"),
    ".venv/bin/gunicorn leaderboard.config.wsgi -w 4 -b 0.0.0.0:8000":
        NotRun(SERVER, ".venv/bin/gunicorn leaderboard.config.wsgi -w 4 --check-config"),
    ".venv/bin/celery -A leaderboard.config worker -Q leaderboard -c 2 --loglevel INFO":
        NotRun(SERVER, ".venv/bin/celery -A leaderboard.config worker --help"),
    ".venv/bin/celery -A leaderboard.config worker -Q leaderboard-sweep -P solo -n sweeper@%h":
        NotRun(SERVER, ".venv/bin/celery -A leaderboard.config worker --help"),
    ".venv/bin/celery -A leaderboard.config beat": NotRun(SERVER, ".venv/bin/celery -A leaderboard.config beat --help"),
    ".venv/bin/celery -A leaderboard.config worker -Q leaderboard -c 2 -n cpu@%h --loglevel INFO":
        NotRun(SERVER, ".venv/bin/celery -A leaderboard.config worker --help"),
    "SCORING_BERTSCORE_DEVICE=cuda .venv/bin/celery -A leaderboard.config worker -Q leaderboard-heavy -P solo "
    "-n gpu@%h --loglevel INFO": NotRun(SERVER + " on a GPU", ".venv/bin/celery -A leaderboard.config worker --help"),
    "python -m nltk.downloader -d DIR punkt_tab": NotRun("needs the network"),
    "python -m scoring": NotRun(MENTION, ".venv/bin/python -m scoring --help"),
    "python -m scoring inputs": NotRun(MENTION, ".venv/bin/python -m scoring inputs --help"),
    "python -m scoring submit": NotRun(MENTION, ".venv/bin/python -m scoring submit --help"),
    "python -m scoring score": NotRun(MENTION, SCORE_HELP),
    "python -m scoring compare": NotRun(MENTION, ".venv/bin/python -m scoring compare --help"),
    "python -m scoring leaderboard": NotRun(MENTION, ".venv/bin/python -m scoring leaderboard --help"),
    "python -m scoring leaderboard <b> <split>": NotRun(MENTION, ".venv/bin/python -m scoring leaderboard --help"),
    "python -m scoring judge-rank": NotRun(MENTION, ".venv/bin/python -m scoring judge-rank --help"),
    "python -m scoring score --no-bertscore": NotRun(MENTION, SCORE_HELP),
    "python -m scoring score --benchmark jamendo-mt-qa --no-bertscore": NotRun(MENTION, SCORE_HELP),
    "python -m scoring score --predictions-format <format> --missing-as-empty": NotRun(MENTION, SCORE_HELP),
    "python -m scoring score --judges judges.toml": NotRun("needs an LLM API and its key", SCORE_HELP),
    "bench/bertscore_speed.py --real --repeats 3": NotRun(HEAVY, ".venv/bin/python bench/bertscore_speed.py --help"),
    "bench/bertscore_speed.py --real --store --sizes \"\"": NotRun(HEAVY),
    "bench/bertscore_speed.py --real --real-size 400 --shape roberta-large --repeats 2 --sizes \"\"": NotRun(HEAVY),
    "bench/bertscore_speed.py --device cuda --real --repeats 2": NotRun(HEAVY),
    "bench/bertscore_speed.py --device cuda --sizes 20000": NotRun(HEAVY),
    "bench/bertscore_phases.py --device cuda --shape roberta-large":
        NotRun(HEAVY, ".venv/bin/python bench/bertscore_phases.py --help"),
    "bench/bertscore_cold.py": NotRun(HEAVY, ".venv/bin/python bench/bertscore_cold.py --help"),
    "bench/bertscore_chunks.py --repeats 2": NotRun(HEAVY, ".venv/bin/python bench/bertscore_chunks.py --help"),
    "bench/bertscore_site.py": NotRun(HEAVY, ".venv/bin/python bench/bertscore_site.py --help"),
    "bench/bertscore_invariance.py --device cuda --pairs 20000 --alone 300":
        NotRun(HEAVY, ".venv/bin/python bench/bertscore_invariance.py --help"),
    "bench/bertscore_concurrency.py": NotRun(HEAVY, ".venv/bin/python bench/bertscore_concurrency.py --help"),
    "bench/bertscore_batching.py": NotRun(HEAVY, ".venv/bin/python bench/bertscore_batching.py --help"),
    "bench/lane_latency.py": NotRun(HEAVY + " (it has no --help: any argument starts the whole benchmark)"),
    "bench/leaderboard_speed.py": NotRun(HEAVY, ".venv/bin/python bench/leaderboard_speed.py --help"),
    "bench/board_ties_speed.py --requests 15": NotRun(HEAVY, ".venv/bin/python bench/board_ties_speed.py --help"),
    "bench/compare_speed.py": NotRun(HEAVY, ".venv/bin/python bench/compare_speed.py --help"),
    "bench/leaderboard_load.py": NotRun(HEAVY, ".venv/bin/python bench/leaderboard_load.py --help"),
    "bench/page_weight.py --repeats 3": NotRun(HEAVY, ".venv/bin/python bench/page_weight.py --help"),
}


def as_run(command: str, plan: Run, values: Mapping[str, str]) -> str:
    """The command with its placeholders replaced and its optional parts kept (first alternative)."""
    for text, value in plan.placeholders.items():
        command = command.replace(text, value.format(**values))
    return re.sub(r"\[([^\]]*)\]", lambda m: m.group(1).split("|")[0], command)


def group(name: str) -> list[tuple[str, Run]]:
    steps = [(text, plan) for text, plan in COMMANDS.items() if isinstance(plan, Run) and plan.group == name]
    return sorted(steps, key=lambda step: step[1].step)


@dataclass
class Clone:
    root: Path
    files: Path
    env: dict[str, str]
    values: dict[str, str]

    def run(self, command: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
        """``command`` through bash in the clone; exit status 0, no traceback, little noise on stderr."""
        done = subprocess.run(["bash", "-c", command], cwd=self.root, env=self.env, capture_output=True, text=True,
                              timeout=timeout)
        output = f"$ {command}\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
        assert done.returncode == 0, output
        assert "Traceback" not in done.stderr, output
        assert len(done.stderr.splitlines()) <= NOISE_LINES, output
        return done

    def step(self, command: str, plan: Run) -> subprocess.CompletedProcess[str]:
        if plan.needs_shared and not (SHARED_DIR / "data").is_dir():
            pytest.skip(f"{command!r} needs ../shared/data ({SHARED_DIR} is absent)")
        written = as_run(command, plan, self.values)
        if written.startswith("export "):  # a later command of the group sees what it exports
            done = self.run(f"{written}\nenv -0")
            self.env = dict(line.split("=", 1) for line in done.stdout.split("\0") if "=" in line)
            return done
        return self.run(written)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Clone:
    """A fresh copy beside a ``shared`` link (the README's ``../shared/data``), its ``.venv`` the suite's."""
    tmp = tmp_path_factory.mktemp("documented")
    venv = Path(sys.executable).parents[1]
    # installed from this checkout first: the copy's setup then finds it done and never points the shared
    # environment's editable install at the copy (deleted after the test)
    subprocess.run([str(REPO / "scripts" / "setup")], cwd=REPO, env={**os.environ, "VENV": str(venv)}, check=True,
                   capture_output=True)
    root = fresh_copy(tmp / "main")
    (root / ".venv").symlink_to(venv)
    if SHARED_DIR.is_dir():
        (tmp / "shared").symlink_to(SHARED_DIR.resolve())
    files = tmp / "files"
    files.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in SUITE_VARIABLES}
    return Clone(root, files, env, {"tmp": str(files), "shared": str(tmp / "shared" / "data"),
                                    **_input_files(files)})


def _input_files(files: Path) -> dict[str, str]:
    jamendo = jamendo_references(30, seed=4)
    dialbgm = dialbgm_references(40, seed=5)
    paths = {"jamendo_refs": write_jsonl(jamendo, files / "jamendo-refs.jsonl"),
             "run1": write_jsonl(jamendo_predictions(jamendo, seed=1), files / "run1.jsonl"),
             "run2": write_jsonl(jamendo_predictions(jamendo, seed=2, noise=0.6), files / "run2.jsonl"),
             "dialbgm_refs": write_jsonl(dialbgm, files / "dialbgm-refs.jsonl"),
             "dialbgm_a": write_jsonl(dialbgm_predictions(dialbgm, seed=1), files / "a.jsonl"),
             "dialbgm_b": write_jsonl(dialbgm_predictions(dialbgm, seed=2, skill=0.2), files / "b.jsonl"),
             "mmar_results": files / "mmar-results.jsonl", "mmau_run": files / "mmau-run.json"}
    mmar = SHARED_DIR / "data" / "mmar" / "MMAR-meta.jsonl"
    if mmar.is_file():
        items = [json.loads(line) for line in mmar.read_text(encoding="utf-8").splitlines() if line.strip()]
        # MMAR's released results: the items plus the model's answer; some choices, some free text, one null
        answers = [item["choices"][i % len(item["choices"])] if i % 7 else f"I think ({i % 4}) fits best."
                   for i, item in enumerate(items)]
        answers[3] = None
        write_jsonl(({**item, "answer_prediction": a} for item, a in zip(items, answers, strict=True)),
                    paths["mmar_results"])
    mmau = SHARED_DIR / "data" / "mmau" / "mmau-test-mini.json"
    if mmau.is_file():
        mmau_prediction_file(mmau, paths["mmau_run"], seed=6)
    return {name: str(path) for name, path in paths.items()}


def test_scoring_cli_commands_run_as_written(clone: Clone) -> None:
    for command, plan in group("cli"):
        clone.step(command, plan)
    assert len((clone.files / "items.csv").read_text().splitlines()) == 1 + 90 * 2


def test_liveness_checks_of_the_commands_not_run(clone: Clone) -> None:
    checks = sorted({plan.check for plan in COMMANDS.values() if isinstance(plan, NotRun) and plan.check})
    for check in checks:
        done = clone.run(check, timeout=60)
        assert "--help" not in check or "usage" in done.stdout.lower(), (check, done.stdout[:2000])


@pytest.fixture(scope="module")
def site(clone: Clone) -> Iterator[subprocess.Popen[bytes]]:
    """Steps 1-2 of the site group, then ``run-site`` (step 3) in the background until the module ends."""
    (setup, setup_plan), (tables, tables_plan), (start, start_plan), *_ = group("site")
    clone.step(setup, setup_plan)
    clone.step(tables, tables_plan)
    port = free_port()
    clone.values.update(addr=f"127.0.0.1:{port}", base=f"http://127.0.0.1:{port}")
    log = clone.files / "run-site.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(["bash", "-c", as_run(start, start_plan, clone.values)], cwd=clone.root,
                                   env=clone.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for(lambda: site_up(clone.values["base"]) or process.poll() is not None, 300, "run-site to answer")
        started = log.read_text(errors="replace")
        assert process.poll() is None, started[-4000:]
        first_run = started.split("site on http", 1)[0]  # what it prints before the site answers
        assert "Traceback" not in first_run and len(first_run.splitlines()) <= NOISE_LINES, first_run
        clone.values["token"] = clone.run(".venv/bin/python manage.py issue_token newcomer --create").stdout.strip()
        yield process
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)  # the workers' warm shutdown would wait for the queued released outputs
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def test_site_commands_run_as_written(clone: Clone, site: subprocess.Popen[bytes]) -> None:
    """Import, submit (waits until scored), status, board, download, curl; then the publishers' files."""
    for command, plan in group("site")[3:-1]:
        if command.startswith(".venv/bin/python -m scoring submit"):
            done = clone.step(command, plan)
            url = re.search(r"submitted: (\S+)", done.stderr)
            assert url, done.stderr
            clone.values["submission"] = url.group(1).rstrip("/").rsplit("/", 1)[-1]
        elif command.startswith("curl"):
            done = clone.step(command, plan)
            assert json.loads(done.stdout)["status"], done.stdout
        else:
            clone.step(command, plan)
        assert site.poll() is None, f"run-site stopped after {command!r}"
    rows = (clone.files / "items.jsonl").read_text().splitlines()  # --format csv: a header, each run's 90 items
    assert rows[0].startswith("run,index,id,") and len(rows) == 1 + 2 * 90, rows[:2]


def test_released_outputs_import_runs_as_written(clone: Clone, site: subprocess.Popen[bytes]) -> None:
    command, plan = group("site")[-1]
    assert "import_released_outputs" in command
    done = clone.step(command, plan)  # LTU-AS's MTG-genre answers hold a NUL: removed with a warning, scored
    assert "ltu_as/ltu_as_MTG_genre.jsonl.gz -> cmi-mtg-genre/test: " in done.stdout + done.stderr


