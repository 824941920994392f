"""Run the web server, a Celery worker and the sweeper (beat + its own consumer) together, for the embedded default."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Start the site (Django's server), one worker and the sweeper; Ctrl-C stops them."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--addr", default="127.0.0.1:8000")
        parser.add_argument("--concurrency", type=int, default=1)

    def handle(self, *args: Any, addr: str, concurrency: int, **options: Any) -> None:
        env = dict(os.environ)
        celery = [sys.executable, "-m", "celery", "-A", "leaderboard.config", "worker", "--loglevel", "INFO"]
        worker = subprocess.Popen(
            [*celery, "-Q", settings.CELERY_TASK_DEFAULT_QUEUE, "--concurrency", str(concurrency)], env=env)
        # the sweeper (beat + its own queue and consumer): a long chunk on the worker never delays it
        sweeper = subprocess.Popen(
            [*celery, "-Q", settings.CELERY_SWEEP_QUEUE, "--pool", "solo", "--beat", "-n", "sweeper@%h",
             "--schedule", os.path.join(env.get("LEADERBOARD_DATA_DIR", "var"), "celerybeat-schedule")],
            env=env,
        )
        web = subprocess.Popen([sys.executable, "manage.py", "runserver", addr, "--noreload"], env=env)
        self.stdout.write(f"site on http://{addr}/ with a worker (pid {worker.pid}) and the sweeper "
                          f"(pid {sweeper.pid}); Ctrl-C stops all three")
        children = [web, worker, sweeper]

        def stop(*_: Any) -> None:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        try:
            while all(child.poll() is None for child in children):
                time.sleep(0.5)
        finally:
            stop()
            for child in children:
                try:
                    child.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    child.kill()
