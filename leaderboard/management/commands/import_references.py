from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from leaderboard.models import Split
from leaderboard.services.benchmarks import ReferencesInUse, benchmark_create_from_spec, split_import_references
from scoring import InvalidInput, ProblemLog
from scoring.importers import REFERENCE_IMPORTERS


class Command(BaseCommand):
    help = "Validate and store a split's reference file (JSONL, or a publisher's own format)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("benchmark")
        parser.add_argument("split")
        parser.add_argument("path", type=Path)
        parser.add_argument("--format", choices=sorted(REFERENCE_IMPORTERS), help="publisher's file format")
        parser.add_argument("--hidden-labels", action="store_true", help="never show gold labels publicly")
        parser.add_argument("--title", help="split title (new splits)")
        parser.add_argument("--force", action="store_true", help="replace references of a split with submissions")

    def handle(self, *args: Any, **opts: Any) -> None:
        benchmark = benchmark_create_from_spec(name=opts["benchmark"])
        split, _ = Split.objects.get_or_create(
            benchmark=benchmark, name=opts["split"], defaults={"title": opts["title"] or opts["split"]})
        if opts["hidden_labels"] and not split.hidden_labels:
            split.hidden_labels = True
            split.save(update_fields=["hidden_labels"])  # keys the stored gold digests (signals)
        log = ProblemLog(keep=200)
        try:
            count = split_import_references(split=split, path=opts["path"], source_format=opts["format"],
                                            force=opts["force"], log=log)
        except InvalidInput as exc:
            for problem in exc.log.problems:
                self.stderr.write(str(problem))
            raise CommandError(f"{exc.log.total} problem(s); nothing was imported") from None
        except ReferencesInUse as exc:
            raise CommandError(str(exc)) from None
        for warning in log.warnings:
            self.stdout.write(str(warning))
        self.stdout.write(f"{split}: {count} items imported"
                          + (f" ({log.warning_total} warning(s))" if log.warning_total else ""))
