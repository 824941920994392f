"""`python -m scoring submit/status/leaderboard/download` against a live site with a real worker."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.conf import settings

from leaderboard.models import ApiToken, Submission
from leaderboard.services.shared.blobs import blob_root
from scoring.site.client import problem_lines
from tests.helpers.datagen import dialbgm_predictions, dialbgm_references, write_jsonl
from tests.helpers.e2e import REPO
from tests.helpers.limits import FROZEN, at_unix, freeze, retry_words, window_end

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def scoring(*args: str, env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scoring", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture
def cli_env(alice: Any, live_server: Any, tmp_path: Path) -> dict[str, str]:
    """The token in the config file under XDG_CONFIG_HOME, the site from the environment: never an argument."""
    _, token = ApiToken.issue(alice)
    config = tmp_path / "xdg" / "music-scoring" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[sites."{live_server.url}"]\ntoken = "{token}"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("MUSIC_SCORING_")}
    return {**env, "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "MUSIC_SCORING_SITE": live_server.url}


def _token(env: dict[str, str]) -> str:
    config = tomllib.loads((Path(env["XDG_CONFIG_HOME"]) / "music-scoring" / "config.toml").read_text())
    return str(config["sites"][env["MUSIC_SCORING_SITE"]]["token"])


def test_submit_waits_for_the_worker_and_prints_the_score_report(make_split, start_worker, cli_env, tmp_path):
    refs = dialbgm_references(60, seed=4)
    make_split("dialbgm", "test", refs)
    ref_path = write_jsonl(refs, tmp_path / "refs.jsonl")
    runs = [write_jsonl(dialbgm_predictions(refs, seed=s, skill=0.6), tmp_path / f"run{s}.jsonl") for s in (1, 2)]
    start_worker()
    files = [a for run in runs for a in ("--predictions", str(run))]
    done = scoring("submit", "--benchmark", "dialbgm", "--split", "test", *files, "--model-name", "CLI model",
                   "--setting", "input=summary", "--organisation", "Lab", "--poll", "0.5", env=cli_env)
    assert done.returncode == 0, done.stderr
    site = json.loads(done.stdout)
    local = json.loads(scoring("score", "--benchmark", "dialbgm", "--references", str(ref_path), *files,
                               "--bootstrap", str(settings.LEADERBOARD["BOOTSTRAP_REPLICATES"]), env=cli_env).stdout)
    assert list(site)[:len(local)] == list(local)  # the same report keys, in the same order
    for key in ("benchmark", "profile", "n_items", "runs", "metrics", "std", "ci95", "signatures", "per_run",
                "n_scored", "bootstrap"):
        assert site[key] == local[key], key
    assert "scored" in done.stderr and "#" * 30 in done.stderr  # the progress bar reached the end
    uid = site["submission"]["id"]
    submission = Submission.objects.get(uid=uid)
    assert submission.model_name == "CLI model" and submission.settings == {"input": "summary"}

    status = scoring("status", uid, env=cli_env)
    assert status.returncode == 0 and json.loads(status.stdout)["metrics"] == local["metrics"]

    table = scoring("leaderboard", "dialbgm", "test", env=cli_env)
    assert table.returncode == 0, table.stderr
    first_row = table.stdout.splitlines()[2]
    assert first_row.startswith("1 ") and "CLI model (Lab)" in first_row
    assert f"{local['metrics']['hit_at_1']:.3f}" in first_row
    as_json = json.loads(scoring("leaderboard", "dialbgm", "test", "--json", "--entry", "latest", env=cli_env).stdout)
    assert as_json["rows"][0]["entry"]["id"] == uid and as_json["entry_policy"] == "latest"
    as_csv = list(csv.reader(io.StringIO(scoring("leaderboard", "dialbgm", "test", "--csv", env=cli_env).stdout)))
    assert as_csv[1][2] == "CLI model"

    out = tmp_path / "items.jsonl"
    assert scoring("download", uid, "--out", str(out), env=cli_env).returncode == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2 * len(refs) and {r["id"] for r in rows} == {r["id"] for r in refs}
    missing = scoring("download", "00000000-0000-0000-0000-000000000000", env=cli_env)
    assert missing.returncode == 1 and "error:" in missing.stderr


def test_dry_run_of_a_bad_file_prints_problems_and_stores_nothing(make_split, cli_env, tmp_path):
    refs = dialbgm_references(20, seed=4)
    make_split("dialbgm", "test", refs)
    good = dialbgm_predictions(refs, seed=1)
    bad = tmp_path / "bad.jsonl"
    lines = [json.dumps(r) for r in good[1:]]  # item 0 missing
    lines[3] = '{"id": "dlg-4", "scores": {"clip4-0": "high"}}'  # wrong type, and candidates missing
    lines.append('{"id": "not-an-item", "ranking": ["a", "b"]}')
    lines.append("not json")
    bad.write_text("\n".join(lines) + "\n")
    before = sorted(p.name for p in blob_root().rglob("*") if p.is_file())

    done = scoring("submit", "--benchmark", "dialbgm", "--split", "test", "--predictions", str(bad), "--dry-run",
                   env=cli_env)
    assert done.returncode == 1
    problems = done.stdout.splitlines()
    assert any(p.startswith("bad.jsonl:4: scores:") for p in problems), problems
    assert any(p.startswith("bad.jsonl:20: id:") and "not-an-item" in p for p in problems), problems
    assert any(p.startswith("bad.jsonl:21:") and "not valid JSON" in p for p in problems), problems
    assert any("dlg-0" in p and "no prediction" in p for p in problems), problems
    assert "nothing was sent" in done.stderr
    # the local check is the site's check: the site's dry run lists the same problems on the same lines
    with httpx.Client(base_url=cli_env["MUSIC_SCORING_SITE"]) as http:
        answer = http.post("/api/v1/benchmarks/dialbgm/test/validate",
                           headers={"Authorization": f"Token {_token(cli_env)}"},  # /validate needs a login
                           files=[("predictions", ("bad.jsonl", bad.read_bytes()))]).json()
    def where(lines: list[str]) -> list[list[str]]:  # FILE:LINE and field (messages name the item set)
        return [line.split(": ", 2)[:2] for line in lines if line.startswith("bad.jsonl")]

    assert where(problem_lines(answer["problems"])) == where(problems) and len(where(problems)) >= 4
    assert Submission.objects.count() == 0
    assert sorted(p.name for p in blob_root().rglob("*") if p.is_file()) == before

    fine = write_jsonl(good, tmp_path / "good.jsonl")
    ok = scoring("submit", "--benchmark", "dialbgm", "--split", "test", "--predictions", str(fine), "--dry-run",
                 env=cli_env)
    assert ok.returncode == 0 and "valid on" in ok.stderr and Submission.objects.count() == 0


def test_dry_run_prints_the_sites_warnings_and_token_errors_say_what_to_do(make_split, jamendo_refs, cli_env,
                                                                           tmp_path):
    make_split("jamendo-mt-qa", "full", jamendo_refs)
    records = [{"id": r["id"], "prediction": r["answer"]} for r in jamendo_refs]
    for record in records[:24]:
        record["prediction"] = ""
    run = write_jsonl(records, tmp_path / "empties.jsonl")
    args = ("submit", "--benchmark", "jamendo-mt-qa", "--split", "full", "--predictions", str(run), "--dry-run")
    done = scoring(*args, env=cli_env)
    assert done.returncode == 0, done.stderr
    assert "warning: 24 empty prediction(s), scored as the publisher scores them" in done.stderr
    assert "  empties.jsonl: lines 1, 2, 3 and 21 more: prediction: prediction is empty" in done.stderr  # one line
    assert f"valid on {cli_env['MUSIC_SCORING_SITE']}: 1 file(s), with 24 warning(s)" in done.stderr
    assert Submission.objects.count() == 0
    uploaded = scoring(*args[:-1], "--model-name", "Empties", "--no-wait", env=cli_env)  # the local check warns
    assert uploaded.returncode == 0, uploaded.stderr
    assert "warning: 24 empty prediction(s), scored as the publisher scores them" in uploaded.stderr
    assert "checked here: 1 file(s) valid, with 24 warning(s)" in uploaded.stderr
    assert Submission.objects.filter(model_name="Empties").count() == 1

    site = cli_env["MUSIC_SCORING_SITE"]
    no_token = {**cli_env, "XDG_CONFIG_HOME": str(tmp_path / "empty-config")}
    refused = scoring(*args, env=no_token)
    assert refused.returncode == 2 and "HTTP" not in refused.stderr and "401" not in refused.stderr
    assert f"this needs an API token: create one at {site}/accounts/tokens/, then set MUSIC_SCORING_TOKEN" \
           in refused.stderr
    wrong = scoring(*args, env={**no_token, "MUSIC_SCORING_TOKEN": "mlb_not-a-token"})
    assert wrong.returncode == 2 and "does not accept this API token" in wrong.stderr
    for command in ("submit", "status", "leaderboard", "download"):
        helped = scoring(command, "--help", env=cli_env)
        text = " ".join(helped.stdout.split())
        assert "MUSIC_SCORING_TOKEN" in text and "MUSIC_SCORING_SITE" in text, command


def test_submit_after_thirty_dry_runs_in_the_hour_uploads_and_the_dry_run_says_when_to_retry(
        make_split, cli_env, tmp_path, monkeypatch):
    freeze(monkeypatch)  # the live server runs in this process: its counters read this clock
    refs = dialbgm_references(20, seed=4)
    make_split("dialbgm", "test", refs)
    run = write_jsonl(dialbgm_predictions(refs, seed=1), tmp_path / "run.jsonl")
    assert settings.LIMITS["DRY_RUNS_PER_HOUR"] == 30  # the documented limit
    with httpx.Client(base_url=cli_env["MUSIC_SCORING_SITE"],
                      headers={"Authorization": f"Token {_token(cli_env)}"}) as http:
        for _ in range(30):
            answer = http.post("/api/v1/benchmarks/dialbgm/test/validate",
                               files=[("predictions", ("run.jsonl", run.read_bytes()))])
            assert answer.status_code == 200 and answer.json()["valid"]
    args = ("submit", "--benchmark", "dialbgm", "--split", "test", "--predictions", str(run))
    dry = scoring(*args, "--dry-run", env=cli_env)
    end = window_end(FROZEN, 3600)
    assert dry.returncode == 1 and Submission.objects.count() == 0
    assert (f"error: rate_limited: at most 30 dry runs per hour (clock hours, UTC); try again "
            f"{retry_words(end, at_unix(FROZEN))}") in dry.stderr, dry.stderr

    done = scoring(*args, "--model-name", "After thirty", "--no-wait", env=cli_env)
    assert done.returncode == 0, done.stderr
    assert "checked here: 1 file(s) valid" in done.stderr and "submitted: " in done.stderr
    created = Submission.objects.get(uid=json.loads(done.stdout)["id"])
    assert created.model_name == "After thirty" and created.status != "invalid"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(run.read_text().replace('"dlg-3"', '"not-an-item"', 1))
    stopped = scoring(*args[:-1], str(bad), "--model-name", "Bad", "--no-wait", env=cli_env)
    assert stopped.returncode == 1 and "nothing was sent" in stopped.stderr  # the local check still stops it
    assert Submission.objects.count() == 1


def _songformbench_split(make_split: Any, tmp_path: Path, ids: list[str]) -> None:
    """A split of a few songs of the released SongFormBench file, as the site's contract."""
    from scoring.publishers.importers import REFERENCE_IMPORTERS, convert_file
    from tests.helpers.shared import shared_file

    references = tmp_path / "references.jsonl"
    released = shared_file("data", "songformbench", "songformbench_segments.jsonl")
    assert not convert_file(REFERENCE_IMPORTERS["songformbench"], released, references)
    chosen = {r["id"]: r for r in map(json.loads, references.read_text(encoding="utf-8").splitlines())}
    make_split("songformbench", "test", [chosen[i] for i in ids])


def test_a_songformer_folder_is_uploaded_as_the_jsonl_convert_writes(make_split: Any, cli_env: dict[str, str],
                                                                     tmp_path: Path) -> None:
    texts = {"CN/BC_4cdf7e.txt": "0.0 intro\n20.5 verse\n61.0 chorus\n205.3892 silence\n207.0652 end\n",
             "CN/BC_82987a.txt": "0:00 Intro\n0:31.5 verse\n1:40 chorus\n4:33.5 end\n",  # repaired: a warning
             "HarmonixSet/BHX_0798_lovelikethis.txt": "",  # an empty answer: a warning
             "HarmonixSet/BHX_0189_neversaynever.txt": "0.000000 intro\n12.000000 verse\n149.668700 end\n"}
    _songformbench_split(make_split, tmp_path, [Path(name).stem for name in texts])
    folder = tmp_path / "est_txt"
    for name, text in texts.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "notes.md").write_text("SongFormer, checkpoint 3\n", encoding="utf-8")
    converted = tmp_path / "converted.jsonl"
    assert scoring("convert", "--format", "songformbench", "--input", str(folder), "--predictions-out",
                   str(converted), env=cli_env).returncode == 0
    rows = [json.loads(line) for line in converted.read_text(encoding="utf-8").splitlines()]
    assert sorted(rows, key=lambda r: r["id"]) == sorted(
        ({"id": Path(name).stem, "prediction": text} for name, text in texts.items()), key=lambda r: r["id"])
    args = ("submit", "--benchmark", "songformbench", "--split", "test", "--predictions", str(folder))

    dry = scoring(*args, "--dry-run", env=cli_env)
    assert dry.returncode == 0, dry.stdout + dry.stderr
    said = (f"converted {folder}: 4 file(s) into est_txt.jsonl, uploaded in its place; 1 file(s) left out "
            "(named below)\n")
    assert dry.stderr.startswith(said)
    assert ('  est_txt:0: 1 file(s) not named <id>.txt left out, as eval_infer_results.py leaves them out: '
            '"notes.md"\n') in dry.stderr
    assert "  est_txt/HarmonixSet/BHX_0798_lovelikethis.txt:0: the file is empty" in dry.stderr
    assert "  est_txt/CN/BC_82987a.txt:0: " in dry.stderr
    assert f"valid on {cli_env['MUSIC_SCORING_SITE']}: 1 file(s)" in dry.stderr and Submission.objects.count() == 0

    done = scoring(*args, "--model-name", "SongFormer folder", "--no-wait", env=cli_env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.startswith(said)
    assert "est_txt.jsonl:" not in done.stderr  # the empty and repaired answers are warned on once, by file
    assert "checked here: 1 file(s) valid" in done.stderr
    run = Submission.objects.get(uid=json.loads(done.stdout)["id"]).runs.get()
    assert run.original_name == "est_txt.jsonl"
    assert (blob_root() / run.sha256[:2] / run.sha256).read_bytes() == converted.read_bytes()

    (folder / "HarmonixSet" / "BHX_9999_notasong.txt").write_text("0.0 intro\n10.0 end\n", encoding="utf-8")
    stopped = scoring(*args, "--dry-run", env=cli_env)  # an upload names only the split's songs
    assert stopped.returncode == 1 and "nothing was sent" in stopped.stderr
    assert 'BHX_9999_notasong' in stopped.stdout and stopped.stdout.startswith("est_txt.jsonl:"), stopped.stdout
    assert Submission.objects.count() == 1
