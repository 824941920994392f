"""scoring.site.client and the site commands without a site: configuration, local checks, output shapes."""

from __future__ import annotations

import io
import json
import socket
from pathlib import Path

import pytest

from scoring import get_benchmark
from scoring.cli import main
from scoring.engine import ScoreReport
from scoring.site.client import (
    CLI_REPORT_KEYS,
    REPORT_KEYS,
    ClientError,
    SiteClient,
    config_path,
    precheck_predictions,
    report_from_submission,
    resolve_site,
    resolve_token,
)
from scoring.site.site_cli import ProgressBar, board_table


def _config(home: Path, text: str) -> dict[str, str]:
    path = home / "xdg" / "music-scoring" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return {"XDG_CONFIG_HOME": str(home / "xdg"), "HOME": str(home)}


def test_config_file_honours_xdg_config_home_and_home(tmp_path):
    assert config_path({"XDG_CONFIG_HOME": "/x"}) == Path("/x/music-scoring/config.toml")
    assert config_path({"HOME": "/home/u"}) == Path("/home/u/.config/music-scoring/config.toml")


def test_token_precedence_environment_then_site_table_then_top_level(tmp_path):
    env = _config(tmp_path, 'site = "http://a.test/"\ntoken = "top"\n[sites."http://b.test"]\ntoken = "per-site"\n')
    assert resolve_site(None, env) == "http://a.test"
    assert resolve_site("http://c.test", {**env, "MUSIC_SCORING_SITE": "http://d.test"}) == "http://c.test"
    assert resolve_site(None, {**env, "MUSIC_SCORING_SITE": "http://d.test"}) == "http://d.test"
    assert resolve_token("http://a.test", env) == "top"
    assert resolve_token("http://b.test/", env) == "per-site"
    assert resolve_token("http://b.test", {**env, "MUSIC_SCORING_TOKEN": " from-env "}) == "from-env"
    assert resolve_token("http://b.test", {"HOME": str(tmp_path / "nobody")}) is None


def test_a_broken_config_file_or_no_site_is_a_clear_error(tmp_path):
    env = _config(tmp_path, "token = \n")
    with pytest.raises(ClientError, match=r"config\.toml: not valid TOML"):
        resolve_token("http://a.test", env)
    with pytest.raises(ClientError, match="give --site URL"):
        resolve_site(None, {"HOME": str(tmp_path / "nobody")})


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_precheck_without_inputs_checks_shape_fields_and_duplicate_ids(tmp_path):
    spec = get_benchmark("jamendo-mt-qa")
    run = _write(tmp_path / "run.jsonl", ['{"id": "a", "prediction": "yes"}', '{"id": "a", "prediction": "no"}',
                                         '{"id": "b", "prediction": 3}', "[1]", '{"prediction": "x"}'])
    log = precheck_predictions(spec, [run], None)
    assert [str(p) for p in log.problems] == [
        'run.jsonl:2: id: id "a" already on line 1',
        "run.jsonl:3: prediction: prediction must be a string, got number",
        "run.jsonl:4: each line must be a JSON object, got array",
        'run.jsonl:5: id: required field "id" is missing',
    ]
    assert not precheck_predictions(spec, [_write(tmp_path / "ok.jsonl", ['{"id": "a", "prediction": "y"}'])], None)


def test_precheck_with_public_inputs_is_the_sites_check(tmp_path):
    spec = get_benchmark("dialbgm")
    inputs = "".join(json.dumps({"id": f"d{i}", "candidates": ["x", "y", "z"]}) + "\n" for i in range(3))
    run = _write(tmp_path / "run.jsonl", ['{"id": "d0", "ranking": ["x", "y", "z"]}',
                                         '{"id": "d1", "ranking": ["x", "q", "z"]}', '{"id": "zz", "scores": {}}'])
    messages = [str(p) for p in precheck_predictions(spec, [run], inputs, split="test").problems]
    assert any(m.startswith("run.jsonl:2: ranking:") for m in messages), messages
    assert any(m.startswith("run.jsonl:3: id:") and "not an item of test (inputs.jsonl)" in m for m in messages)
    assert any(m.startswith("run.jsonl:0: id: 1 of 3 items have no prediction") and '"d2"' in m for m in messages)


def test_report_from_a_submission_has_the_keys_score_prints():
    metric = {"value": 0.5, "std": 0.1, "ci95": [0.4, 0.6], "per_run": [0.4, 0.6], "n_scored": 10, "signature": "s"}
    submission = {"id": "u", "url": "/s/u/", "benchmark": "dialbgm", "split": "test", "profile": "official",
                  "status": "scored", "n_items": 10, "runs": [{"number": 1}, {"number": 2}],
                  "metrics": {"mrr": metric}, "not_computed": {}, "diagnostics": {}, "bootstrap": {"seed": 0}}
    report = report_from_submission(submission)
    assert tuple(ScoreReport.__dataclass_fields__) == REPORT_KEYS  # the engine's report, field for field
    assert list(report)[:-1] == [*REPORT_KEYS, *CLI_REPORT_KEYS]
    assert report["warnings"] == {"total": 0, "counts": {}, "summary": [], "first": []}
    assert report["metrics"] == {"mrr": 0.5} and report["ci95"] == {"mrr": [0.4, 0.6]} and report["runs"] == 2
    assert report["submission"]["id"] == "u"


def test_progress_bar_writes_a_line_per_status_or_tenth_when_not_a_terminal():
    out = io.StringIO()
    bar = ProgressBar(out)
    for status, done in [("queued", 0), ("scoring", 10), ("scoring", 12), ("scoring", 55), ("scored", 100)]:
        bar.show({"status": status, "progress": {"done": done, "total": 100}})
    lines = out.getvalue().splitlines()
    assert len(lines) == 4 and lines[-1].startswith("scored") and "[" + "#" * 30 + "] 100%" in lines[-1]
    assert "55/100 items" in lines[2]


def test_board_table_marks_ties_and_missing_values():
    board = {"benchmark": "dialbgm", "split": "test",
             "columns": [{"id": "mrr@1", "label": "MRR", "higher_is_better": True, "decimals": 3}],
             "rows": [{"rank": 1, "statistically_tied": False,
                       "entry": {"id": "a", "model_name": "A", "organisation": "Lab",
                                 "metrics": {"mrr@1": {"value": 0.71234}}}},
                      {"rank": 1, "statistically_tied": True, "entry": {"id": "b", "model_name": "B", "metrics": {}}}]}
    lines = board_table(board).splitlines()
    assert lines[0] == "dialbgm/test: 2 row(s)"
    assert lines[2].split() == ["1", "A", "(Lab)", "submitted", "0.712"]
    assert lines[3].split() == ["=1", "B", "submitted", "-"]


def test_an_unreachable_site_is_exit_2_with_a_message(tmp_path, capsys, monkeypatch):
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("MUSIC_SCORING_TOKEN", "t")
    code = main(["status", "00000000-0000-0000-0000-000000000000", "--site", f"http://127.0.0.1:{port}"])
    assert code == 2 and "cannot reach http://127.0.0.1" in capsys.readouterr().err
    with pytest.raises(ClientError, match="needs an API token"):
        SiteClient(f"http://127.0.0.1:{port}").submit("dialbgm", "test", [], {})


def test_submit_without_a_model_name_stops_before_any_request(tmp_path, capsys):
    """--site points at a closed port: the usage error comes first, with no connection attempted."""
    run = _write(tmp_path / "run.jsonl", ['{"id": "a", "prediction": "x"}'])
    code = main(["submit", "--site", "http://127.0.0.1:9", "--benchmark", "musicqa", "--split", "test",
                 "--predictions", str(run)])
    assert code == 2 and "--model-name is required" in capsys.readouterr().err


def test_a_folder_with_a_file_not_utf8_is_refused_before_any_request(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """--site points at a closed port: the folder's problem, naming its file and line, comes first."""
    folder = tmp_path / "est_txt"
    (folder / "CN").mkdir(parents=True)
    (folder / "CN" / "BC_01bc5b.txt").write_text("0.0 intro\n5.0 end\n", encoding="utf-8")
    (folder / "CN" / "BC_032f29.txt").write_bytes(b"0.0 intro\n4.0 verse\n9.0 end\xe9\n")
    code = main(["submit", "--site", "http://127.0.0.1:9", "--benchmark", "songformbench", "--split", "test",
                 "--predictions", str(folder), "--dry-run"])
    out, err = capsys.readouterr()
    assert code == 1
    assert out.startswith("est_txt/CN/BC_032f29.txt:3: the file is not UTF-8") and out.count("\n") == 1
    assert err == "1 problem(s); nothing was sent\n"


def test_a_folder_for_a_benchmark_that_reads_no_folders_is_a_clear_error(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "answers"
    folder.mkdir()
    (folder / "run.jsonl").write_text('{"id": "a", "prediction": "x"}\n', encoding="utf-8")
    code = main(["submit", "--site", "http://127.0.0.1:9", "--benchmark", "mmau", "--split", "test",
                 "--predictions", str(folder), "--model-name", "M"])
    assert code == 2
    assert capsys.readouterr().err == (f"error: --predictions {folder} is a folder: mmau takes prediction files "
                                       "(JSON Lines), not folders\n")
