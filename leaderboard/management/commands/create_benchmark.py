from typing import Any

from django.core.management.base import BaseCommand, CommandError

from leaderboard.services.references.benchmarks import benchmark_create_from_spec
from scoring import BENCHMARKS


class Command(BaseCommand):
    help = "Create benchmarks and their splits from the scoring specs."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("names", nargs="*", help=f"spec names ({', '.join(BENCHMARKS)})")
        parser.add_argument("--all", action="store_true")

    def handle(self, *args: Any, names: list[str], all: bool, **options: Any) -> None:
        wanted = list(BENCHMARKS) if all else names
        if not wanted:
            raise CommandError("name one or more benchmarks, or --all")
        for name in wanted:
            if name not in BENCHMARKS:
                raise CommandError(f"unknown benchmark {name!r}; valid: {', '.join(sorted(BENCHMARKS))}")
            benchmark = benchmark_create_from_spec(name=name)
            splits = ", ".join(benchmark.splits.values_list("name", flat=True))
            self.stdout.write(f"{name}: splits {splits}")
