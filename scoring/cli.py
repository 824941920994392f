"""``python -m scoring``: the site's scorer on your own machine, same numbers, same signatures."""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scoring.api import ScoringOptions, build_scorer, score_runs
from scoring.judge.cli import add_judge_commands
from scoring.metrics.base import UNPARSED
from scoring.publishers.importers import (
    FOLDER_WARNINGS,
    PREDICTION_FOLDERS,
    PREDICTION_IMPORTERS,
    REFERENCE_IMPORTERS,
    convert_file,
)
from scoring.reading.problems import InvalidInput, ProblemLog, copy_problems, warning_summary
from scoring.reading.validation import (
    is_publisher_file,
    load_predictions,
    load_references,
    read_predictions,
    read_references,
)
from scoring.site.inputs import inputs_lines
from scoring.site.site_cli import add_site_commands
from scoring.site.tables import FORMATS, chosen_format, compare_table, score_table
from scoring.specs import BENCHMARKS, get_benchmark


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except KeyError as exc:  # unknown benchmark, profile or format: the message lists valid names
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    except OSError as exc:  # a user's missing or unreadable path is not a bug: no traceback
        print(f"error: {exc.filename}: {exc.strerror or exc}" if exc.filename else f"error: {exc}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m scoring", description=__doc__)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    listing = commands.add_parser("benchmarks", help="list the benchmarks and their metrics")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=_benchmarks)

    validate = commands.add_parser("validate", help="check files; exit 1 with FILE:LINE: message per problem")
    _file_args(validate, several=True)
    validate.set_defaults(handler=_validate)

    score = commands.add_parser("score", help="score one or more runs; print a report (a table or JSON)")
    _file_args(score, several=True)
    _scoring_args(score)
    score.add_argument("--per-item", type=Path, help="write per-item scores (.jsonl or .csv)")
    score.set_defaults(handler=_score)

    compare = commands.add_parser("compare", help="paired bootstrap test between two prediction files")
    _file_args(compare, several=False)
    compare.add_argument("--against", type=Path, required=True, help="the second prediction file (B)")
    _scoring_args(compare)
    compare.set_defaults(handler=_compare)

    inputs = commands.add_parser("inputs", help="print a split's public inputs.jsonl, as the site serves it")
    inputs.add_argument("--benchmark", required=True, help="a name from `python -m scoring benchmarks`")
    inputs.add_argument("--references", type=Path, required=True)
    inputs.add_argument("--references-format", choices=sorted(REFERENCE_IMPORTERS),
                        help="read the publisher's own reference file")
    inputs.set_defaults(handler=_inputs)

    convert = commands.add_parser("convert", help="convert a publisher's file to the JSONL contract")
    convert.add_argument("--format", required=True,
                         choices=sorted(set(REFERENCE_IMPORTERS) | set(PREDICTION_IMPORTERS)))
    convert.add_argument("--input", type=Path, required=True)
    convert.add_argument("--references-out", type=Path)
    convert.add_argument("--predictions-out", type=Path)
    convert.set_defaults(handler=_convert)

    consensus = commands.add_parser("consensus", help="DialBGM maintainers: Kendall's W and Borda consensus")
    consensus.add_argument("--annotations", type=Path, required=True,
                           help='JSONL: {"id", "candidates", "ranks": [[rank per candidate] per annotator], ...}')
    consensus.add_argument("--out", type=Path, required=True, help="references JSONL with gold_ranking and W")
    consensus.add_argument("--min-w", type=float, default=0.25)
    consensus.add_argument("--drop-bottom", type=float, default=0.10)
    consensus.set_defaults(handler=_consensus)
    add_judge_commands(commands)
    add_site_commands(commands)
    return parser


def _file_args(parser: argparse.ArgumentParser, *, several: bool) -> None:
    parser.add_argument("--benchmark", required=True, help="a name from `python -m scoring benchmarks`")
    parser.add_argument("--references", type=Path, required=True)
    parser.add_argument("--predictions", type=Path, required=True, action="append" if several else "store",
                        help="repeat for several runs" if several else None)
    parser.add_argument("--references-format", choices=sorted(REFERENCE_IMPORTERS),
                        help="read the publisher's own reference file")
    parser.add_argument("--predictions-format", choices=sorted(PREDICTION_IMPORTERS),
                        help="read the publisher's own prediction file")
    parser.add_argument("--missing-as-empty", action="store_true",
                        help="score items without a prediction as empty predictions (said in the report)")


def _scoring_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", help="a profile of the benchmark (default: the official one)")
    parser.add_argument("--no-bertscore", action="store_true", help="skip BERTScore columns")
    parser.add_argument("--bertscore-model", help="local model directory (default: all-MiniLM-L6-v2 from its wheel)")
    parser.add_argument("--bertscore-layer", type=int, help="layer to use (required with --bertscore-model)")
    parser.add_argument("--bertscore-model-name", help="name for signatures (default: the directory name)")
    parser.add_argument("--bertscore-store", help="SQLite file keeping reference embeddings between runs "
                        "(default: none; SCORING_BERTSCORE_STORE)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap replicates")
    parser.add_argument("--progress", action="store_true", help="report progress on stderr")
    parser.add_argument("--judges", help="judge settings TOML (see scoring/judge/config.py); default: no judging")
    parser.add_argument("--judge-cache", help="SQLite reply cache (default ~/.cache/music-scoring/)")
    parser.add_argument("--format", choices=FORMATS, help="table (aligned text) or json; default: table on a "
                        "terminal, json when the output is piped or redirected")


class _Inputs:
    """Files as given, converted from a publisher's format into temporary JSONL when asked.

    A folder given as ``--predictions`` is read by a format that reads folders: ``--predictions-format``, else the
    benchmark's publisher format (SongFormer's folder of MSA TXT files for SongFormBench)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="scoring-")
        self.log = ProblemLog()  # the importers' problems, on the publisher's own files
        self.references = self._convert(args.references, args.references_format, REFERENCE_IMPORTERS)
        runs = args.predictions if isinstance(args.predictions, list) else [args.predictions]
        spec = get_benchmark(args.benchmark)
        formats = [self._format(spec, path, args.predictions_format) for path in runs]
        self.publisher = [fmt is not None for fmt in formats]  # read as a publisher's file: unknown ids ignored
        self.folders = [path.is_dir() and fmt in PREDICTION_FOLDERS for path, fmt in zip(runs, formats)]
        self.predictions = [path if fmt is None or (not folder and self._read_as_uploaded(spec, path, fmt))
                            else self._convert(path, fmt, PREDICTION_IMPORTERS)
                            for path, fmt, folder in zip(runs, formats, self.folders)]

    @staticmethod
    def _format(spec: Any, path: Path, fmt: str | None) -> str | None:
        """The format ``path`` is read in: a folder, where no format reads it, stays an error ("Is a directory")."""
        if path.is_dir() and fmt is None and spec.publisher_format in PREDICTION_FOLDERS:
            return str(spec.publisher_format)
        return fmt

    @staticmethod
    def _read_as_uploaded(spec: Any, path: Path, fmt: str | None) -> bool:
        """A file in the benchmark's own publisher format is read as the site reads it on upload: one verdict."""
        return fmt is not None and fmt == spec.publisher_format and is_publisher_file(spec, path)

    def _convert(self, path: Path, fmt: str | None, importers: dict[str, Any]) -> Path:
        if fmt is None:
            return path
        out = Path(self._tmp.name) / f"{len(list(Path(self._tmp.name).iterdir()))}-{path.stem}.jsonl"
        copy_problems(convert_file(importers[fmt], path, out), self.log)
        return out

    def name(self, converted: Path, original: Path) -> str:
        return original.name if converted == original else f"{original.name} (converted)"

    def once_per_file(self, log: ProblemLog, run: int, original: Path) -> None:
        """A folder's empty and repaired answers were warned on under their files' names as it was read: not
        again on the converted file's lines."""
        if self.folders[run]:
            log.explained(self.name(self.predictions[run], original), FOLDER_WARNINGS)


def _benchmarks(args: argparse.Namespace) -> int:
    rows = []
    for spec in BENCHMARKS.values():
        profile = spec.profile()
        rows.append({
            "name": spec.name, "title": spec.title, "task_type": spec.task_type,
            "official_profile": profile.name, "profiles": [p.name for p in spec.profiles],
            "metrics": list(profile.keys), "splits": [s.name for s in spec.splits],
        })
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        print(f"{row['name']:22} {row['task_type']:15} [{row['official_profile']}] {', '.join(row['metrics'])}")
    return 0


def _validate(args: argparse.Namespace) -> int:
    spec = get_benchmark(args.benchmark)
    inputs = _Inputs(args)
    log = inputs.log
    if log:
        return _print_log(log)
    references = read_references(spec, inputs.references, log, name=inputs.name(inputs.references, args.references))
    if not log:
        for run, (converted, original) in enumerate(zip(inputs.predictions, args.predictions)):
            read_predictions(spec, references, converted, log, name=inputs.name(converted, original),
                             missing_as_empty=args.missing_as_empty, publisher_file=inputs.publisher[run])
            inputs.once_per_file(log, run, original)
    if _print_log(log):
        return 1
    print(f"valid: {len(references)} items, {len(args.predictions)} prediction file(s)", file=sys.stderr)
    return 0


def _print_log(log: ProblemLog) -> int:
    """Print every error, then every warning; 1 when there are errors (warnings alone are valid)."""
    for problem in [*log.problems, *log.warnings]:
        print(problem)
    if len(log.warnings) >= (log.keep or len(log.warnings) + 1):  # the log listed as many as it keeps
        print(f"... and more warnings, not listed ({log.warning_total} in all)")
    if log.warning_counts:
        print(f"{log.warning_total} warning(s): {'; '.join(warning_summary(log.warning_counts))}", file=sys.stderr)
    if log:
        counts = ", ".join(f"{kind}: {n}" for kind, n in log.counts.most_common())
        print(f"{log.total} problem(s) ({counts})", file=sys.stderr)
        return 1
    return 0


def _options(args: argparse.Namespace) -> ScoringOptions:
    return ScoringOptions(
        profile=args.profile,
        bertscore=not args.no_bertscore,
        bertscore_model=args.bertscore_model,
        bertscore_layer=args.bertscore_layer,
        bertscore_model_name=args.bertscore_model_name,
        bertscore_store=args.bertscore_store,
        seed=args.seed,
        n_bootstrap=args.bootstrap,
        judges_file=args.judges,
        judge_cache=args.judge_cache,
    )


def _load(args: argparse.Namespace) -> tuple[Any, Any, list[Any], ProblemLog]:
    """Spec, references, runs and the warnings; raises :class:`InvalidInput` on any error."""
    spec = get_benchmark(args.benchmark)
    inputs = _Inputs(args)
    log = inputs.log
    log.keep = WARNINGS_KEPT
    if log:
        raise InvalidInput(log)
    references = load_references(spec, inputs.references, name=inputs.name(inputs.references, args.references),
                                 log=log)
    originals = args.predictions if isinstance(args.predictions, list) else [args.predictions]
    runs = []
    for run, (converted, original) in enumerate(zip(inputs.predictions, originals)):
        runs.append(load_predictions(spec, references, converted, name=inputs.name(converted, original), log=log,
                                     missing_as_empty=args.missing_as_empty, publisher_file=inputs.publisher[run]))
        inputs.once_per_file(log, run, original)
    return spec, references, runs, log


def _progress(args: argparse.Namespace) -> Any:
    if not args.progress:
        return None
    return lambda done, total: print(f"scored {done}/{total}", file=sys.stderr)


def _score(args: argparse.Namespace) -> int:
    try:
        spec, references, runs, log = _load(args)
    except InvalidInput as exc:
        return _report_invalid(exc)
    scorer = build_scorer(spec, references.references, _options(args))
    report, run_scores = score_runs(scorer, runs, _options(args), progress=_progress(args))
    if args.per_item:
        names = scorer.item_columns()
        keys = [names.get(k, k) for k in scorer.metric_keys] + ([UNPARSED] if scorer.parses_answers() else [])
        _write_items(scorer.item_rows(run_scores), args.per_item, keys)
    data = {**report.as_json(), "warnings": log.warnings_json(),
            "missing_as_empty": log.warning_counts.get("missing_as_empty", 0)}
    print(score_table(data) if chosen_format(args.format) == "table" else json.dumps(data, indent=2))
    return 0


def _compare(args: argparse.Namespace) -> int:
    args.predictions = [args.predictions, args.against]
    try:
        spec, references, (run_a, run_b), log = _load(args)
    except InvalidInput as exc:
        return _report_invalid(exc)
    options = _options(args)
    scorer = build_scorer(spec, references.references, options)
    a, b = scorer.score_run(run_a), scorer.score_run(run_b)
    result = scorer.compare([a], [b], seed=options.seed, n_bootstrap=options.n_bootstrap)
    data = {"benchmark": spec.name, "profile": scorer.profile.name, "a": str(args.predictions[0]),
            "b": str(args.against), "test": "paired bootstrap, items resampled", "metrics": result,
            "warnings": log.warnings_json()}
    print(compare_table(data) if chosen_format(args.format) == "table" else json.dumps(data, indent=2))
    return 0


def _inputs(args: argparse.Namespace) -> int:
    spec = get_benchmark(args.benchmark)
    args.predictions = []
    args.predictions_format = None
    files = _Inputs(args)
    if files.log:
        return _print_log(files.log)
    log = ProblemLog(keep=WARNINGS_KEPT)
    references = read_references(spec, files.references, log, name=files.name(files.references, args.references))
    if log:
        return _print_log(log)
    sys.stdout.writelines(inputs_lines((ref.id, ref.public) for ref in references.references))
    return 0


def _convert(args: argparse.Namespace) -> int:
    if not args.references_out and not args.predictions_out:
        print("error: give --references-out and/or --predictions-out", file=sys.stderr)
        return 2
    log = ProblemLog()
    for out, importers in ((args.references_out, REFERENCE_IMPORTERS), (args.predictions_out, PREDICTION_IMPORTERS)):
        if out and not log:
            copy_problems(convert_file(importers[args.format], args.input, out), log)
    return _print_log(log)


def _consensus(args: argparse.Namespace) -> int:
    from scoring.publishers.consensus_files import build_consensus_references

    kept, dropped = build_consensus_references(args.annotations, args.out, min_w=args.min_w,
                                               drop_bottom=args.drop_bottom)
    print(json.dumps({"kept": kept, "dropped": dropped}))
    return 0


WARNINGS_KEPT = 200  # like the site: every warning counted by kind, the first ones listed


def _report_invalid(exc: InvalidInput) -> int:
    for problem in exc.log.problems:
        print(problem, file=sys.stderr)
    if len(exc.log.problems) >= (exc.log.keep or len(exc.log.problems) + 1):
        print(f"... and more: {exc.log.total} problem(s) in all", file=sys.stderr)
    return 1


def _write_items(rows: Any, path: Path, keys: list[str]) -> None:
    if path.suffix == ".csv":
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=["id", "run", "qa_type", *keys], extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
    else:
        with open(path, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")
