from typing import Any

from django.core.management.base import BaseCommand

from leaderboard.services.pipeline.steps import submissions_sweep


class Command(BaseCommand):
    help = "Re-queue submissions whose worker vanished; fail those that cannot finish."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(str(submissions_sweep()))
