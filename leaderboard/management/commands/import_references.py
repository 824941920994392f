from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from leaderboard.models import Split
from leaderboard.services.policy.refusals import Refused
from leaderboard.services.references.benchmarks import benchmark_create_from_spec, split_import_references
from leaderboard.services.references.reference_files import ERROR, references_import_folder
from scoring import InvalidInput, ProblemLog
from scoring.publishers.importers import REFERENCE_IMPORTERS
from scoring.publishers.released import released_files


class Command(BaseCommand):
    help = ("Validate and store a split's reference file (JSONL, or a publisher's own format); or, with "
            "--from DIR, every publisher's released file found under DIR, each into its split ("
            + ", ".join(sorted({row.name for row in released_files()})) + ").")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("benchmark", nargs="?")
        parser.add_argument("split", nargs="?")
        parser.add_argument("path", type=Path, nargs="?")
        parser.add_argument("--from", dest="folder", type=Path, metavar="DIR",
                            help="import every released file recognised under DIR (idempotent)")
        parser.add_argument("--format", choices=sorted(REFERENCE_IMPORTERS), help="publisher's file format")
        parser.add_argument("--hidden-labels", action="store_true", help="never show gold labels publicly")
        parser.add_argument("--title", help="split title (new splits)")
        parser.add_argument("--force", action="store_true", help="replace references of a split with submissions")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["folder"] is not None:
            if opts["benchmark"] or opts["format"] or opts["hidden_labels"] or opts["title"]:
                raise CommandError("--from DIR takes no benchmark, split, path, --format, --hidden-labels or --title: "
                                   "each file's benchmark, split and format are recognised from the file")
            return self._from_folder(opts["folder"], opts["force"])
        if not (opts["benchmark"] and opts["split"] and opts["path"]):
            raise CommandError("give BENCHMARK SPLIT PATH, or --from DIR")
        benchmark = benchmark_create_from_spec(name=opts["benchmark"])
        split, _ = Split.objects.get_or_create(
            benchmark=benchmark, name=opts["split"], defaults={"title": opts["title"] or opts["split"]})
        log = ProblemLog(keep=200)
        try:
            count = split_import_references(split=split, path=opts["path"], source_format=opts["format"],
                                            force=opts["force"], log=log, hide_labels=opts["hidden_labels"])
        except InvalidInput as exc:
            for problem in exc.log.problems:
                self.stderr.write(str(problem))
            raise CommandError(f"{exc.log.total} problem(s); nothing was imported") from None
        except Refused as exc:
            raise CommandError(str(exc)) from None
        for warning in log.warnings:
            self.stdout.write(str(warning))
        self.stdout.write(f"{split}: {count} items imported"
                          + (f" ({log.warning_total} warning(s))" if log.warning_total else ""))

    def _from_folder(self, folder: Path, force: bool) -> None:
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder")
        outcomes = references_import_folder(folder=folder, force=force)
        for outcome in outcomes:
            (self.stderr if outcome.status == ERROR else self.stdout).write(str(outcome))
            for warning in outcome.warnings:
                self.stdout.write(f"    {warning}")
        counts = {status: sum(o.status == status for o in outcomes) for status in dict.fromkeys(
            o.status for o in outcomes)}
        self.stdout.write(", ".join(f"{n} {status}" for status, n in counts.items()) or f"{folder} holds no files")
        if counts.get(ERROR):
            raise CommandError(f"{counts[ERROR]} file(s) not imported; see above")
