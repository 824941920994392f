"""The Celery app; workers import only the tasks module (thin tasks calling services)."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import celeryd_init

from scoring.threads import torch_threads_configure

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.config.settings")

app = Celery("leaderboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["leaderboard"])


@celeryd_init.connect
def _share_cores(sender: Any = None, instance: Any = None, **kwargs: Any) -> None:
    """Before the pool forks: torch threads per process = cores / concurrency (SCORING_TORCH_THREADS overrides)."""
    torch_threads_configure(concurrency=int(getattr(instance, "concurrency", None) or 1))
