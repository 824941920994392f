from typing import Any

from django.core.management.base import BaseCommand

from leaderboard.services.references.baselines import baselines_load


class Command(BaseCommand):
    help = "Load the papers' reported results (leaderboard/baselines/*.json) as published baselines."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"{baselines_load()} published rows loaded")
