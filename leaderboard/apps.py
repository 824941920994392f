from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from leaderboard import (
            signals,  # noqa: F401  (connects the cache invalidation receivers)
            tasks,  # noqa: F401  (registers the tasks services.shared.queue sends by name)
        )
