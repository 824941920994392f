from typing import Any

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services.references.benchmarks import hidden_splits_exposed


class Command(BaseCommand):
    help = ("List the hidden-label splits whose references give their labels away (items of a public release or of "
            "a public split, layouts that expose the answer); exits non-zero when there is one.")

    def handle(self, *args: Any, **opts: Any) -> None:
        found = hidden_splits_exposed()
        for split, reason in found:
            self.stdout.write(f"{split.benchmark.name}/{split.name}: {reason}")
        if found:
            raise CommandError(f"{len(found)} hidden split{'s' if len(found) > 1 else ''} "
                               f"give{'' if len(found) > 1 else 's'} its labels away: make it public or import other "
                               "references")
        self.stdout.write("no hidden split gives its labels away")
