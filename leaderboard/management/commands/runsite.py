"""Run the web server, the workers and the sweeper (beat + its own consumer) together, for the embedded default.

Two lanes, each with a worker of its own, so that nobody waits behind someone else's heavy work: validation and
light scoring on the default queue (two processes: a broken file or a 1,000-item multiple-choice run is not held
behind another submission's light metrics), and the model-heavy work (BERTScore chunks, reference warming) on
the heavy queue (``SCORING_HEAVY_QUEUE``, set here to ``<queue>-heavy`` unless given).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

HEAVY_NICENESS = 10  # CPU weight about a tenth of the light lane's while both want the cores


class Command(BaseCommand):
    help = ("Start the site (Django's server), a light and a heavy worker and the sweeper; Ctrl-C stops them.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--addr", default="127.0.0.1:8000")
        parser.add_argument("--concurrency", type=int, default=2, help="processes of the light lane")
        parser.add_argument("--heavy-concurrency", type=int, default=1, help="processes of the heavy lane")

    def handle(self, *args: Any, addr: str, concurrency: int, heavy_concurrency: int, **options: Any) -> None:
        heavy_queue = settings.LEADERBOARD["SCORING_HEAVY_QUEUE"] or f"{settings.CELERY_TASK_DEFAULT_QUEUE}-heavy"
        env = {"SITE_URL": f"http://{addr}", **os.environ, "SCORING_HEAVY_QUEUE": heavy_queue}
        # no gossip or mingle: the filesystem broker's fanout tables are created without a lock held, so workers
        # starting together could read one half-written and stop (and nothing here needs them)
        celery = [sys.executable, "-m", "celery", "-A", "leaderboard.config", "worker", "--loglevel", "INFO",
                  "--without-gossip", "--without-mingle"]
        worker = subprocess.Popen(
            [*celery, "-Q", settings.CELERY_TASK_DEFAULT_QUEUE, "--concurrency", str(concurrency), "-n", "light@%h"],
            env=env)
        heavy = subprocess.Popen(
            [*celery, "-Q", heavy_queue, "--concurrency", str(heavy_concurrency), "-n", "heavy@%h"], env=env,
            preexec_fn=_yield_to_light_work)
        # the sweeper (beat + its own queue and consumer): a long chunk on the worker never delays it
        sweeper = subprocess.Popen(
            [*celery, "-Q", settings.CELERY_SWEEP_QUEUE, "--pool", "solo", "--beat", "-n", "sweeper@%h",
             "--schedule", str(settings.LEADERBOARD_DATA_DIR / "celerybeat-schedule")],
            env=env,
        )
        web = subprocess.Popen([sys.executable, "manage.py", "runserver", addr, "--noreload"], env=env)
        self.stdout.write(f"site on http://{addr}/ with a light worker (pid {worker.pid}), a heavy worker for "
                          f"BERTScore on {heavy_queue} (pid {heavy.pid}) and the sweeper (pid {sweeper.pid}); "
                          "Ctrl-C stops them all")
        children = [web, worker, heavy, sweeper]

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


def _yield_to_light_work() -> None:
    """The heavy lane runs at a lower CPU priority: on one machine its chunks take every core they are given, and a
    validation or a small run waiting for a core would wait behind them; idle cores still go to heavy work."""
    os.nice(HEAVY_NICENESS)
