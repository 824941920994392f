"""``--format table|json`` of ``score``, ``compare``, ``status`` and ``leaderboard``: a table on a terminal, JSON when
piped; the table's values are the JSON report's, each with its column's decimals, and MMAR's Total is evaluation.py's
(counted here by the released string_match on the released items)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from scoring import get_benchmark
from scoring.cli import main
from tests.helpers.publisher_files import released_mmau_accuracy
from tests.helpers.shared import shared_file

MESSY = ["The answer is {c}.", "({c})", "{c}\n\nI am fairly sure.", "  {C}  ", "Réponse: {c} — peut-être", "none",
         "", "{c} or maybe {d}"]


def _runs(tmp_path: Path) -> tuple[Path, list[dict[str, Any]], Path, Path]:
    refs = shared_file("data", "mmar", "MMAR-meta.jsonl")
    items = [json.loads(line) for line in refs.read_text(encoding="utf-8").splitlines() if line.strip()]
    paths = []
    for seed in (11, 12):
        rng = random.Random(seed)
        lines = []
        for item in items:
            c, d = rng.choice(item["choices"]), rng.choice(item["choices"])
            lines.append(json.dumps({"id": item["id"], "prediction": rng.choice(MESSY).format(c=c, C=c.upper(), d=d)},
                                    ensure_ascii=False) + "\n")
        path = tmp_path / f"run{seed}.jsonl"
        path.write_text("".join(lines), encoding="utf-8")
        paths.append(path)
    return refs, items, paths[0], paths[1]


def _score(capsys: Any, *args: Any) -> tuple[int, str]:
    code = main([str(a) for a in args])
    return code, capsys.readouterr().out


def _number(value: float | None, decimals: int) -> str:
    return "-" if value is None else f"{value:.{decimals}f}"


def test_score_table_holds_the_json_reports_values_with_each_columns_decimals(tmp_path: Path, capsys: Any) -> None:
    refs, items, run_a, run_b = _runs(tmp_path)
    common = ["score", "--benchmark", "mmar", "--references", refs, "--references-format", "mmar",
              "--predictions", run_a, "--predictions", run_b, "--bootstrap", "30"]
    code, piped = _score(capsys, *common)  # not a terminal: JSON, as scripts read it
    assert code == 0
    report = json.loads(piped)
    code, table = _score(capsys, *common, "--format", "table")
    assert code == 0
    lines = table.splitlines()
    assert lines[0] == ("mmar (mmar-string-match): 1,000 items, 2 run(s); 95% interval: percentile, items resampled, "
                        "30 replicates, seed 0")
    assert lines[1].split() == ["metric", "value", "std", "95%", "interval", "items", "run", "1", "run", "2"]
    profile = get_benchmark("mmar").profile()
    rows = lines[2:2 + len(report["metrics"])]
    assert len({len(line) for line in lines[1:2 + len(rows)]}) == 1  # aligned: every row as wide as the header
    for row, (key, value) in zip(rows, report["metrics"].items(), strict=True):
        metric = profile.metric(key)
        d = metric.decimals
        low, high = report["ci95"][key]
        cells = [_number(value, d), _number(report["std"][key], d), f"[{_number(low, d)},", f"{_number(high, d)}]",
                 f"{report['n_scored'][key]:,}", *(_number(v, d) for v in report["per_run"][key])]
        assert row.startswith(metric.label + " ") and row[len(metric.label):].split() == cells
    for n, run in enumerate((run_a, run_b)):
        said = {json.loads(line)["id"]: json.loads(line)["prediction"] for line in run.read_text().splitlines()}
        total = released_mmau_accuracy([{**item, "model_output": said[item["id"]]} for item in items])
        assert report["per_run"]["accuracy"][n] == pytest.approx(total, abs=1e-9)
    unparsed = ", ".join(str(n) for n in report["diagnostics"]["unparsed"])
    assert f"unparsed (per run): {unparsed}" in lines
    assert [line for line in lines if line.startswith("warning: ")] == [
        f"warning: {line}" for line in report["warnings"]["summary"]] and report["warnings"]["summary"]


def test_a_terminal_gets_the_table_by_default(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    refs, _, run_a, _ = _runs(tmp_path)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out = _score(capsys, "score", "--benchmark", "mmar", "--references", refs, "--references-format", "mmar",
                       "--predictions", run_a, "--bootstrap", "0")
    assert code == 0 and out.startswith("mmar (mmar-string-match): 1,000 items, 1 run(s)")
    code, out = _score(capsys, "score", "--benchmark", "mmar", "--references", refs, "--references-format", "mmar",
                       "--predictions", run_a, "--bootstrap", "0", "--format", "json")
    assert code == 0 and json.loads(out)["benchmark"] == "mmar"


def test_compare_table_holds_a_b_and_the_paired_interval(tmp_path: Path, capsys: Any) -> None:
    refs, _, run_a, run_b = _runs(tmp_path)
    common = ["compare", "--benchmark", "mmar", "--references", refs, "--references-format", "mmar",
              "--predictions", run_a, "--against", run_b, "--bootstrap", "40"]
    result = json.loads(_score(capsys, *common)[1])
    lines = _score(capsys, *common, "--format", "table")[1].splitlines()
    assert lines[0] == f"mmar: A = {run_a}, B = {run_b} (paired bootstrap, items resampled)"
    assert lines[1].split() == ["metric", "A", "B", "A", "-", "B", "95%", "interval", "p", "better"]
    accuracy = result["metrics"]["accuracy"]
    low, high = accuracy["ci95"]
    assert lines[2].split() == ["Total", "acc.", _number(accuracy["a"], 2), _number(accuracy["b"], 2),
                                _number(accuracy["difference"], 2), f"[{_number(low, 2)},", f"{_number(high, 2)}]",
                                _number(accuracy["p_value"], 3), accuracy["better"] or "-"]


class _Site:
    def __init__(self, submission: dict[str, Any], board: dict[str, Any] | None = None) -> None:
        self.sent, self.board = submission, board

    def submission(self, uid: str) -> dict[str, Any]:
        return self.sent

    def leaderboard(self, benchmark: str, split: str, params: dict[str, str]) -> dict[str, Any]:
        assert self.board is not None
        return self.board


def test_status_table_of_a_running_and_of_a_scored_submission(capsys: Any, monkeypatch: Any) -> None:
    import scoring.site.site_cli as site_cli

    running = {"id": "4b1c", "url": "/s/4b1c/", "status": "scoring", "status_detail": "BERTScore chunk 3 of 12",
               "progress": {"done": 1200, "total": 4000}}
    monkeypatch.setattr(site_cli, "_client", lambda args: _Site(running))
    code, out = _score(capsys, "status", "4b1c", "--format", "table")
    assert code == 0 and out.splitlines() == ["id        4b1c", "status    scoring",
                                              "detail    BERTScore chunk 3 of 12", "url       /s/4b1c/",
                                              "progress  1,200 of 4,000 items (30%)"]
    assert json.loads(_score(capsys, "status", "4b1c")[1])["status"] == "scoring"  # piped: JSON
    metric = {"value": 61.23456, "std": 1.5, "ci95": [58.1, 64.25], "per_run": [60.0, 62.46912], "n_scored": 1000}
    scored = {"id": "4b1c", "url": "/s/4b1c/", "benchmark": "mmar", "split": "test", "profile": "mmar-string-match",
              "status": "scored", "n_items": 1000, "runs": [{"number": 1}, {"number": 2}],
              "metrics": {"accuracy": metric}, "bootstrap": {"replicates": 1000, "seed": 0,
                                                            "method": "percentile, items resampled"}}
    monkeypatch.setattr(site_cli, "_client", lambda args: _Site(scored))
    code, out = _score(capsys, "status", "4b1c", "--format", "table")
    assert code == 0 and out.splitlines()[2].split() == ["Total", "acc.", "61.23", "1.50", "[58.10,", "64.25]",
                                                         "1,000", "60.00", "62.47"]


def test_leaderboard_format_json_is_the_json_flag(capsys: Any, monkeypatch: Any) -> None:
    import scoring.site.site_cli as site_cli

    board = {"benchmark": "mmar", "split": "test", "columns": [], "rows": []}
    monkeypatch.setattr(site_cli, "_client", lambda args: _Site({}, board))
    assert json.loads(_score(capsys, "leaderboard", "mmar", "test", "--format", "json")[1]) == board
    assert _score(capsys, "leaderboard", "mmar", "test", "--json")[1] == _score(
        capsys, "leaderboard", "mmar", "test", "--format", "json")[1]
    assert _score(capsys, "leaderboard", "mmar", "test")[1] == "mmar/test: 0 row(s); no scored entries yet\n"
