from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from leaderboard.services.pipeline.retention import rejected_files_purge


class Command(BaseCommand):
    help = "Remove stored files of invalid and failed submissions older than the retention (REJECTED_RETENTION_DAYS)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--older-than-days", type=float, default=None)

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(str(rejected_files_purge(older_than_days=options["older_than_days"])))
