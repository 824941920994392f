from typing import Any

from django.core.management.base import BaseCommand

from leaderboard.management.demo import demo_load


class Command(BaseCommand):
    help = "Load generated demo splits and demo submissions (clearly labelled; not the real benchmarks)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--no-score", action="store_true", help="leave scoring to the worker")

    def handle(self, *args: Any, no_score: bool, **options: Any) -> None:
        created = demo_load(score_now=not no_score)
        self.stdout.write(f"{len(created)} demo submission(s) created")
