"""Load on a leaderboard page, production-shaped: gunicorn, PostgreSQL, Redis, DEBUG off, wrk on loopback.

Creates its own PostgreSQL database (named by DATABASE_URL), seeds it as ``leaderboard_speed.py``
does (1,000 entries over 10 splits; the big DialBGM split holds 100 entries of 50 models and the
papers' tables), starts gunicorn with ``--workers`` processes of ``--threads`` threads each (gthread
workers, which keep connections alive; ``--threads 1``: sync workers), and runs ``wrk`` (Debian:
``apt-get install -y wrk``) with ``--connections`` connections for ``--seconds`` against the big
split's leaderboard page and its leaderboard API, sending ``Accept-Encoding: gzip`` as every browser
does (``--no-gzip``: none, so 128 KiB pages travel uncompressed). p95 comes from wrk's latency histogram. Then it
adds an entry the way the pipeline does and checks that the very next request shows it. The
database is dropped and gunicorn stopped at the end; bounded in time, loopback only.

    SECRET_KEY=x DATABASE_URL=postgresql://postgres@127.0.0.1:5432/leaderboard_load \\
    REDIS_URL=redis://127.0.0.1:6379/14 .venv/bin/python bench/leaderboard_load.py [--workers 2] \\
    [--threads 16] [--connections 200] [--seconds 15] [--no-page-cache] [--no-gzip]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.leaderboard_speed import create_database, drop_database, seed  # noqa: E402

TARGET_RPS, TARGET_P95_MS = 800.0, 250.0
P95_SCRIPT = """
done = function(summary, latency, requests)
  io.write(string.format("p95_us=%d\\nerrors=%d\\n", latency:percentile(95),
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status
    + summary.errors.timeout))
end
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(url: str) -> tuple[int, str, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.headers.get("X-Page-Cache", ""), response.read().decode()


def start_gunicorn(env: dict[str, str], port: int, workers: int, threads: int) -> subprocess.Popen[bytes]:
    kind = ["-k", "gthread", "--threads", str(threads)] if threads > 1 else ["-k", "sync"]
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "leaderboard.config.wsgi", "-w", str(workers), *kind,
         "-b", f"127.0.0.1:{port}", "--backlog", "2048", "--log-level", "warning"],
        cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if _get(f"http://127.0.0.1:{port}/healthz")[0] == 200:
                return server
        except OSError:
            time.sleep(0.5)
    os.killpg(server.pid, signal.SIGTERM)
    raise SystemExit("gunicorn did not answer /healthz within 60 s")


def wrk(url: str, connections: int, seconds: int, script: Path, headers: list[str]) -> dict[str, float]:
    extra = [arg for header in headers for arg in ("-H", header)]
    out = subprocess.run(["wrk", "-t", "2", "-c", str(connections), "-d", f"{seconds}s", "--timeout", "5s",
                          *extra, "-s", str(script), url],
                         capture_output=True, text=True, timeout=seconds + 60, check=True)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out.stdout)[1])  # type: ignore[index]
    total = int(re.search(r"(\d+) requests in", out.stdout)[1])  # type: ignore[index]
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out.stdout)
    p95_us = int(re.search(r"p95_us=(\d+)", out.stdout)[1])  # type: ignore[index]
    errors = int(re.search(r"errors=(\d+)", out.stdout)[1])  # type: ignore[index]
    return {"rps": rps, "p95_ms": p95_us / 1000.0, "requests": total, "errors": errors,
            "non_2xx": int(non_2xx[1]) if non_2xx else 0}


def add_entry(split: Any, name: str) -> None:
    """A scored entry as the pipeline stores it, announced with the pipeline's call."""
    from django.contrib.auth import get_user_model

    from leaderboard.models import MetricValue, Status, Submission
    from leaderboard.services.shared.cache import leaderboard_changed

    user = get_user_model().objects.first()
    submission = Submission.objects.create(split=split, user=user, model_name=name, status=Status.SCORED,
                                           profile=split.spec.official_profile)
    template = MetricValue.objects.filter(submission__split=split, current=True).first()
    assert template is not None
    MetricValue.objects.create(submission=submission, key=template.key, signature=template.signature, value=0.5,
                               per_run=[0.5], n_scored=10, current=True)
    leaderboard_changed(split.pk)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=16, help="per worker (gthread); 1: sync workers")
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--no-page-cache", action="store_true", help="render every request (for comparison)")
    parser.add_argument("--no-gzip", action="store_true",
                        help="send no Accept-Encoding (by default wrk sends gzip, as every browser does)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (Debian: apt-get install -y wrk)")
    url = os.environ["DATABASE_URL"]
    name = create_database(url)
    server = None
    try:
        import django

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.config.settings")
        django.setup()
        from django.core.cache import cache
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        world = seed(random.Random(0))
        cache.clear()
        big = world["big"]
        port = free_port()
        env = {**os.environ, "DEBUG": "0", "ALLOWED_HOSTS": "127.0.0.1", "LOG_LEVEL": "WARNING",
               "PAGE_CACHE": "0" if args.no_page_cache else "1"}
        server = start_gunicorn(env, port, args.workers, args.threads)
        base = f"http://127.0.0.1:{port}"
        paths = {"leaderboard page": f"/b/{big.benchmark.name}/{big.name}/",
                 "leaderboard API": f"/api/v1/benchmarks/{big.benchmark.name}/{big.name}/leaderboard"}
        workers = f"{args.workers} x {args.threads} threads" if args.threads > 1 else f"{args.workers} sync"
        print(f"database {name}: {world['entries']} entries; gunicorn {workers} workers; "
              f"wrk {args.connections} connections x {args.seconds} s, "
              f"{'no Accept-Encoding' if args.no_gzip else 'Accept-Encoding: gzip'}; page cache "
              f"{'off' if args.no_page_cache else 'on'}; load average {os.getloadavg()[0]:.1f}")
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
            script.write(P95_SCRIPT)
        for label, path in paths.items():
            status, state, _ = _get(base + path)  # fills the cache
            assert status == 200, (path, status)
            single = []
            for _ in range(50):
                start = time.perf_counter()
                status, state, _ = _get(base + path)
                single.append(1000 * (time.perf_counter() - start))
            print(f"{label}: {len(_get(base + path)[2]) / 1024:.0f} KiB; one request at a time "
                  f"{statistics.median(single):.1f} ms median (cache {state or 'off'})")
            result = wrk(base + path, args.connections, args.seconds, Path(script.name),
                         [] if args.no_gzip else ["Accept-Encoding: gzip"])
            met = result["rps"] >= TARGET_RPS and result["p95_ms"] < TARGET_P95_MS
            print(f"{label}: {result['rps']:.0f} req/s, p95 {result['p95_ms']:.0f} ms, {result['requests']} requests, "
                  f"{result['errors']} socket errors, {result['non_2xx']} non-2xx "
                  f"(target >= {TARGET_RPS:.0f} req/s, p95 < {TARGET_P95_MS:.0f} ms: {'met' if met else 'NOT met'})")
        os.unlink(script.name)
        for path in paths.values():
            _get(base + path)
            add_entry(big, f"Fresh entry {path[-12:]}")
            status, state, body = _get(base + path)
            assert f"Fresh entry {path[-12:]}" in body, "a change was not visible on the next request"
            print(f"freshness: a new entry on {path} was visible on the next request (cache {state or 'off'})")
    finally:
        if server is not None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
        from django.db import connections

        connections.close_all()
        drop_database(url)
        print(f"dropped database {name}")


if __name__ == "__main__":
    main()
