"""Site commands for ``python -m scoring``: ``submit``, ``status``, ``leaderboard``, ``download``.

:func:`add_site_commands` adds them to the main parser's subparsers. Exit status: 0 done (scored),
1 invalid, failed or refused by the site, 2 usage, connection or timeout. The token is never an
argument: ``MUSIC_SCORING_TOKEN`` or the config file (see :mod:`scoring.site.client`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from scoring.publishers.importers import FOLDER_WARNINGS, PREDICTION_FOLDERS, PREDICTION_IMPORTERS, write_rows
from scoring.reading.problems import ProblemLog, copy_problems
from scoring.site.client import (
    FINAL_STATUSES,
    SITE_ENV,
    TOKEN_ENV,
    ClientError,
    SiteClient,
    config_path,
    precheck_predictions,
    problem_lines,
    report_from_submission,
    resolve_site,
    resolve_token,
)
from scoring.site.tables import FORMATS, aligned, chosen_format, score_table, status_table
from scoring.specs import BenchmarkSpec, get_benchmark

METADATA = (("organisation", "organisation or lab"), ("paper_url", "the paper's URL"),
            ("code_url", "the code's URL"), ("parameters", 'model size, e.g. "7B"'),
            ("description", "free text shown on the entry's page"))


SITE_HELP = (f"The site: --site URL, else {SITE_ENV}, else site = \"URL\" in the config file. The API token (never "
             f"an argument): {TOKEN_ENV}, else token = \"...\" in the config file ([sites.\"URL\"] per site); "
             "create one on the site's API tokens page. Config file: $XDG_CONFIG_HOME/music-scoring/config.toml "
             "(default ~/.config/music-scoring/config.toml).")


def add_site_commands(subparsers: Any) -> None:
    """Register the site subcommands on an ``argparse`` subparsers object."""
    submit = subparsers.add_parser("submit", epilog=SITE_HELP,
                                   help=f"check, upload and wait for the site's score (JSON like `score`; "
                                        f"token: {TOKEN_ENV})")
    _site_args(submit)
    submit.add_argument("--benchmark", required=True)
    submit.add_argument("--split", required=True)
    submit.add_argument("--predictions", type=Path, action="append", required=True,
                        help="repeat for several runs; a folder where the benchmark reads one (SongFormer's MSA TXT "
                             "files for songformbench) is uploaded as one JSON Lines file")
    submit.add_argument("--model-name", help="how the model appears on the leaderboard (required unless --dry-run)")
    for name, text in METADATA:
        submit.add_argument(f"--{name.replace('_', '-')}", dest=name, help=text)
    submit.add_argument("--open-weights", action=argparse.BooleanOptionalAction, default=None)
    submit.add_argument("--private", action="store_true", help="visible to you and maintainers only")
    submit.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE",
                        help="a benchmark setting (e.g. type=Multi; see GET /api/v1/benchmarks/B)")
    submit.add_argument("--dry-run", action="store_true",
                        help="validate here and with the site's dry run (limited per hour); store nothing")
    submit.add_argument("--no-wait", action="store_true", help="print the submission and return once uploaded")
    submit.add_argument("--poll", type=float, default=2.0, help="seconds between status checks")
    submit.add_argument("--wait-timeout", type=float, default=6 * 3600.0, help="give up waiting after this long")
    submit.set_defaults(handler=_submit)

    status = subparsers.add_parser("status", epilog=SITE_HELP, help="a submission's status (the report once scored)")
    _site_args(status)
    status.add_argument("id")
    status.add_argument("--format", choices=FORMATS, help="table (aligned text) or json; default: table on a "
                        "terminal, json when the output is piped or redirected")
    status.set_defaults(handler=_status)

    board = subparsers.add_parser("leaderboard", epilog=SITE_HELP,
                                  help="a split's leaderboard as a table, --json or --csv")
    _site_args(board)
    board.add_argument("benchmark")
    board.add_argument("split")
    board.add_argument("--sort", help="a column id or metric key")
    board.add_argument("--entry", choices=("best", "latest"))
    board.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE", help="filter rows")
    board.add_argument("--provenance", choices=("submitted", "released"),
                       help="only entries their owners uploaded, or only released outputs re-scored by the site")
    shape = board.add_mutually_exclusive_group()
    shape.add_argument("--format", choices=(*FORMATS, "csv"), default="table",
                       help="table (aligned text, the default), json or csv")
    shape.add_argument("--json", dest="format", action="store_const", const="json", help="as --format json")
    shape.add_argument("--csv", dest="format", action="store_const", const="csv", help="as --format csv")
    board.set_defaults(handler=_leaderboard)

    download = subparsers.add_parser("download", epilog=SITE_HELP, help="a scored submission's per-item rows")
    _site_args(download)
    download.add_argument("id")
    download.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    download.add_argument("--out", type=Path, help="write here (default: standard output)")
    download.set_defaults(handler=_download)


def _site_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--site", help=f"the site's URL (default: {SITE_ENV} or the config file)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per HTTP request")


def _client(args: argparse.Namespace) -> SiteClient:
    site = resolve_site(args.site)
    return SiteClient(site, resolve_token(site), timeout=args.timeout)


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except ClientError as exc:
            if exc.status == 401:
                print(f"error: {_token_advice(args, exc)}", file=sys.stderr)
                return 2
            print(f"error: {exc}" + (f" (field: {exc.field})" if exc.field else ""), file=sys.stderr)
            return 1 if exc.status is not None and 400 <= exc.status < 500 else 2

    return run


def _token_advice(args: argparse.Namespace, exc: ClientError) -> str:
    """What to do when the site asks for a token (401): which variable or file, and where to get one."""
    try:
        site = resolve_site(args.site)
    except ClientError:
        site = args.site or "the site"
    where = f"{site}/accounts/tokens/"
    if exc.code == "invalid_token":
        return (f"the site does not accept this API token (revoked, or for another site): create a new one at "
                f"{where} and set {TOKEN_ENV} (or token = \"...\" in {config_path()})")
    return (f"this needs an API token: create one at {where}, then set {TOKEN_ENV} (or token = \"...\" in "
            f"{config_path()})")


def _settings(pairs: Sequence[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ClientError(f"--setting {pair!r}: write KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


@_guarded
def _submit(args: argparse.Namespace) -> int:
    """Check the files here, then upload them (the upload is validated on the site and an invalid one uses no
    quota); ``--dry-run`` asks the site's dry run instead and stores nothing. Submitting spends no dry run."""
    spec = get_benchmark(args.benchmark)
    if not args.dry_run and not args.model_name:
        print("error: --model-name is required (unless --dry-run)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="scoring-submit-") as tmp:
        files, folders = folders_as_jsonl(spec, args.predictions, Path(tmp))
        if folders:
            return _print_problems([p.as_dict() for p in folders.problems], folders.total, "nothing was sent")
        return _submit_files(args, spec, files)


def folders_as_jsonl(spec: BenchmarkSpec, paths: Sequence[Path], tmp: Path) -> tuple[list[Path], ProblemLog]:
    """The files to upload: each folder (where the benchmark's format reads one: SongFormer's MSA TXT files for
    SongFormBench) becomes one JSON Lines file in ``tmp`` named after it, holding the rows ``python -m scoring
    convert`` writes; said on stderr with the folder's warnings. The log holds the folders' problems (nothing
    written then), each named by its file."""
    log = ProblemLog(keep=200)
    files = []
    for run, path in enumerate(paths):
        if not path.is_dir():
            files.append(path)
            continue
        if spec.publisher_format not in PREDICTION_FOLDERS:
            raise ClientError(f"--predictions {path} is a folder: {spec.name} takes prediction files (JSON Lines), "
                              "not folders")
        target = tmp / str(run) / f"{path.resolve().name or 'predictions'}.jsonl"
        target.parent.mkdir()
        read = ProblemLog(keep=200)
        rows = PREDICTION_IMPORTERS[spec.publisher_format](path, read)
        if not read:
            write_rows(rows, target)
            left = sum(1 for p in path.rglob("*") if p.is_file()) - len(rows)
            print(f"converted {path}: {len(rows)} file(s) into {target.name}, uploaded in its place"
                  + (f"; {left} file(s) left out (named below)" if left else ""), file=sys.stderr)
            _print_warnings(read.warnings_json_fields())
        copy_problems(read, log)
        files.append(target)
    return files, log


def _submit_files(args: argparse.Namespace, spec: BenchmarkSpec, files: list[Path]) -> int:
    client = _client(args)
    inputs = client.inputs(spec.name, args.split)
    local = precheck_predictions(spec, files, inputs, split=args.split)
    for converted, given in zip(files, args.predictions):
        if given.is_dir():  # its files' empty and repaired answers were warned on under their own names
            local.explained(converted.name, FOLDER_WARNINGS)
    if local:
        return _print_problems([p.as_dict() for p in local.problems], local.total, "nothing was sent")
    if args.dry_run:
        return _site_dry_run(client, spec.name, args.split, files)
    warned = _print_warnings(local.warnings_json_fields())
    scope = "" if inputs else " (JSON, fields and duplicate ids: the site has no public inputs for this split)"
    print(f"checked here: {len(files)} file(s) valid{scope}{warned}", file=sys.stderr)
    fields = {"model_name": args.model_name, **{n: getattr(args, n) for n, _ in METADATA if getattr(args, n)},
              **_settings(args.setting)}
    if args.open_weights is not None:
        fields["open_weights"] = "true" if args.open_weights else "false"
    if args.private:
        fields["private"] = "true"
    created = client.submit(spec.name, args.split, files, fields)
    print(f"submitted: {client.site}{created['url']}", file=sys.stderr)
    if args.no_wait:
        print(json.dumps({"id": created["id"], "url": created["url"], "status": created["status"]}, indent=2))
        return 0
    final = wait_for_submission(client, created["id"], poll=args.poll, timeout=args.wait_timeout)
    return _print_outcome(final)


def _site_dry_run(client: SiteClient, benchmark: str, split: str, files: list[Path]) -> int:
    print(f"checked here: {len(files)} file(s) valid", file=sys.stderr)
    checked = client.validate(benchmark, split, files)
    if not checked["valid"]:
        return _print_problems(checked["problems"], checked["problem_count"], "nothing was stored")
    warned = _print_warnings(checked)
    print(f"valid on {client.site}: {len(files)} file(s){warned}; nothing was stored", file=sys.stderr)
    return 0


def wait_for_submission(client: SiteClient, uid: str, *, poll: float = 2.0, timeout: float = 6 * 3600.0,
                        out: TextIO | None = None) -> dict[str, Any]:
    """Poll until the submission is scored, invalid or failed, drawing progress on ``out`` (stderr)."""
    bar = ProgressBar(out or sys.stderr)
    deadline = time.monotonic() + timeout
    while True:
        current = client.submission(uid)
        bar.show(current)
        if current["status"] in FINAL_STATUSES:
            bar.close()
            return current
        if time.monotonic() > deadline:
            bar.close()
            raise ClientError(f"still {current['status']} after {timeout:.0f} s; "
                              f"check later: python -m scoring status {uid}")
        time.sleep(poll)


class ProgressBar:
    """One redrawn line on a terminal; a line per change of status or tenth otherwise (logs, CI)."""

    WIDTH = 30

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.tty = out.isatty()
        self.last: tuple[str, int, str] | None = None

    def show(self, submission: dict[str, Any]) -> None:
        progress = submission.get("progress") or {}
        done, total = int(progress.get("done") or 0), int(progress.get("total") or 0)
        fraction = done / total if total else (1.0 if submission["status"] == "scored" else 0.0)
        filled = round(fraction * self.WIDTH)
        line = (f"{submission['status']:<12} [{'#' * filled}{'.' * (self.WIDTH - filled)}] {fraction:4.0%}"
                + (f"  {done:,}/{total:,} items" if total else ""))
        where = (submission.get("queue") or {}).get("text") or submission.get("stage_detail") or ""
        eta = submission.get("eta_seconds")
        line += (f"  {where}" if where else "") + (f" ({_left(int(eta))})" if eta is not None else "")
        key = (str(submission["status"]), int(fraction * 10), str(where))
        if self.tty:
            self.out.write("\r" + line.ljust(110)[:160])
        elif key != self.last:
            self.out.write(line + "\n")
        self.out.flush()
        self.last = key

    def close(self) -> None:
        if self.tty:
            self.out.write("\n")
            self.out.flush()


def _left(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"about {minutes} min {rest} s left" if minutes else f"about {rest} s left"


def _print_problems(problems: Sequence[dict[str, Any]], total: int, note: str) -> int:
    for line in problem_lines(problems):
        print(line)
    listed = sum(int(p.get("count") or 1) for p in problems)  # an entry can stand for several alike problems
    more = f" ({listed} listed)" if total > listed else ""
    print(f"{total} problem(s){more}; {note}", file=sys.stderr)
    return 1


def _print_warnings(checked: dict[str, Any]) -> str:
    """Print warnings in the site's JSON shape (what is scored anyway, e.g. empty predictions: the site's dry
    run's or the local check's) on stderr, as the web dry run shows them; returns the count for the verdict
    line ("" when none)."""
    counts = checked.get("warning_counts") or {}
    total = sum(counts.values())
    if not total:
        return ""
    for line in checked.get("warning_summary") or []:
        print(f"warning: {line}", file=sys.stderr)
    first = checked.get("warnings") or []
    for line in problem_lines(first):
        print(f"  {line}", file=sys.stderr)
    listed = sum(int(w.get("count") or 1) for w in first)  # an entry can stand for several alike warnings
    if total > listed:
        print(f"  ({listed} of {total} listed)", file=sys.stderr)
    return f", with {total} warning(s) (scored as the publishers score them)"


def _print_outcome(submission: dict[str, Any], fmt: str = "json") -> int:
    if submission["status"] == "scored":
        report = report_from_submission(submission)
        print(score_table(report) if fmt == "table" else json.dumps(report, indent=2))
        return 0
    if submission["status"] == "invalid":
        return _print_problems(submission.get("problems") or [], sum((submission.get("problem_counts") or {})
                                                                       .values()), "the submission is invalid")
    print(f"{submission['status']}: {submission.get('status_detail', '')}", file=sys.stderr)
    return 1


@_guarded
def _status(args: argparse.Namespace) -> int:
    submission = _client(args).submission(args.id)
    fmt = chosen_format(args.format)
    if submission["status"] in FINAL_STATUSES:
        return _print_outcome(submission, fmt)
    ProgressBar(sys.stderr).show(submission)
    sys.stderr.write("\n")
    shown = {k: submission.get(k) for k in ("id", "url", "status", "status_detail", "progress")}
    print(status_table(shown) if fmt == "table" else json.dumps(shown, indent=2))
    return 0


@_guarded
def _leaderboard(args: argparse.Namespace) -> int:
    client = _client(args)
    params = {**_settings(args.setting), **{k: v for k in ("sort", "entry", "provenance") if (v := getattr(args, k))}}
    if args.format == "csv":
        sys.stdout.write(client.leaderboard_csv(args.benchmark, args.split, params))
        return 0
    board = client.leaderboard(args.benchmark, args.split, params)
    if args.format == "json":
        print(json.dumps(board, indent=2))
        return 0
    print(board_table(board))
    return 0


def board_table(board: dict[str, Any]) -> str:
    """The leaderboard as aligned text, in the board's order: rank (= for a statistical tie; - for none), model,
    provenance (submitted; released: a release's outputs re-scored by the site, with the items it answers when not
    all; paper: reported in a paper, not re-scored here, with why it holds no rank), one column per metric."""
    columns = board["columns"]
    header = ["rank", "model", "provenance",
              *[c["label"] + ("" if c["higher_is_better"] else " (lower)") for c in columns]]
    rows = [header]
    for row in _in_order(board):
        rank = "-" if row["rank"] is None else f"{'=' if row['statistically_tied'] else ''}{row['rank']}"
        if row["source"] == "paper":
            printed = {**row.get("other_protocol", {}), **row["metrics"]}
            cells = [_cell(printed.get(c["id"]), c.get("decimals", 3)) for c in columns]
            rows.append([rank, row["model_name"], _paper_provenance(row, board), *cells])
            continue
        entry = row["entry"]
        cells = [_cell(entry["metrics"].get(c["id"]), c.get("decimals", 3)) for c in columns]
        rows.append([rank, entry["model_name"] + (f" ({entry['organisation']})" if entry.get("organisation") else ""),
                     _provenance(entry), *cells])
    lines = aligned(rows, left=3)
    papers = len(board.get("published_rows") or [])
    title = f"{board['benchmark']}/{board['split']}: {len(board['rows'])} row(s)" + (
        f" and {papers} paper row(s)" if papers else "")
    return "\n".join([title, *lines]) if len(rows) > 1 else f"{title}; no scored entries yet"


def _in_order(board: dict[str, Any]) -> list[dict[str, Any]]:
    """Entries and papers' rows in the order the board shows them (its ``order``)."""
    entries = {row["entry"]["id"]: row for row in board["rows"]}
    papers = {(row["paper"], row["table"], row.get("order")): row for row in board.get("published_rows") or []}
    out = []
    for key in board.get("order") or [["site", uid] for uid in entries]:
        found = entries.get(key[1]) if key[0] == "site" else papers.get(tuple(key[1:]))
        if found is not None:
            out.append({"source": "site", **found} if key[0] == "site" else found)
    return out


def _paper_provenance(row: dict[str, Any], board: dict[str, Any]) -> str:
    sort = (board.get("sort") or {}).get("column")
    differs = (row.get("other_protocol") or {}).get(sort, {}).get("differs", "")
    lane = {"same_model": "model ranked above", "no_value": "no value"}.get(row.get("lane", ""), "")
    why = "" if row["rank"] is not None else differs or lane
    return "paper" + (f" (not ranked: {why})" if why else "")


def _provenance(entry: dict[str, Any]) -> str:
    source = entry.get("source") or {}
    partial = source.get("items_answered") != source.get("items_total")
    return str(entry.get("provenance", "submitted")) + (f" ({source.get('answered')})" if partial else "")


def _cell(value: dict[str, Any] | None, decimals: int) -> str:
    if not value or value.get("value") is None:
        return "-"
    return f"{value['value']:.{decimals}f}"


@_guarded
def _download(args: argparse.Namespace) -> int:
    client = _client(args)
    target = open(args.out, "wb") if args.out else sys.stdout.buffer  # noqa: SIM115 (closed below)
    try:
        for chunk in client.items(args.id, args.format):
            target.write(chunk)
    except ClientError:
        if args.out:
            target.close()
            args.out.unlink(missing_ok=True)  # no partial file that looks like a download
        raise
    if args.out:
        target.close()
        print(f"wrote {args.out}", file=sys.stderr)
    return 0
