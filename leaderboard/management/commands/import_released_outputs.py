from collections import Counter
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services.pipeline.released_outputs import REFUSED, STATUSES, released_outputs_import
from scoring.publishers.released_outputs import output_sets


class Command(BaseCommand):
    help = ("Import the model outputs a publisher released (the sets of scoring/publishers/released_outputs.toml: "
            + ", ".join(s.name for s in output_sets()) + ") found under DIR, each file of a hosted task as an "
            "entry of the system account, provenance 'released', scored by the workers like an upload. "
            "Idempotent by content hash. The splits' references must be imported first (import_references).")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--from", dest="folder", type=Path, metavar="DIR", required=True,
                            help="a folder of released output files (e.g. ../shared/data/cmi-bench-results)")

    def handle(self, *args: Any, **opts: Any) -> None:
        folder: Path = opts["folder"]
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder")
        outcomes = released_outputs_import(folder=folder)
        for outcome in outcomes:
            (self.stderr if outcome.status == REFUSED else self.stdout).write(str(outcome))
        counts = Counter(o.status for o in outcomes)
        self.stdout.write(", ".join(f"{counts[s]} {s}" for s in STATUSES if counts[s]) or f"{folder} holds no files")
        if any(o.needs_references for o in outcomes):
            self.stderr.write("Import the splits' references first: manage.py import_references --from DIR, DIR "
                              "holding the publisher's task files (e.g. ../shared/data/cmi-bench for CMI-Bench).")
        if counts[REFUSED]:
            raise CommandError(f"{counts[REFUSED]} file(s) refused; see above")
