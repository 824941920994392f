"""Weight and load time of a board's first view, in headless Chromium against a production-shaped site.

Creates its own PostgreSQL database (named by DATABASE_URL) seeded as ``leaderboard_speed.py`` seeds it
(the big DialBGM split: 100 entries of 50 models, the papers' tables, heatmaps and field plots), collects
the static files into a temporary folder, starts gunicorn with DEBUG off, and opens the big split's board in
Chromium (Playwright, ``/usr/bin/chromium``) at 1366 x 768, counting the bytes every response put on the
wire (Chrome's ``encodedDataLength``: compressed bodies and headers). It prints the first visit (empty
cache), a second visit (cached assets), and what scrolling down to the plots fetches and how long drawing
them takes. The database is dropped and gunicorn stopped at the end; loopback only.

    SECRET_KEY=x DATABASE_URL=postgresql://postgres@127.0.0.1:5432/page_weight \\
    REDIS_URL=redis://127.0.0.1:6379/14 .venv/bin/python bench/page_weight.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.leaderboard_load import free_port, start_gunicorn  # noqa: E402
from bench.leaderboard_speed import create_database, drop_database, seed  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
VIEWPORT: Any = {"width": 1366, "height": 768}
BUDGET_BYTES, BUDGET_CACHED_S = 500_000, 1.0
TIMING = """() => { const t = performance.getEntriesByType('navigation')[0];
    return {interactive: t.domContentLoadedEventEnd / 1000, load: t.loadEventEnd / 1000}; }"""


class Wire:
    """Bytes on the wire per URL, from the DevTools protocol, since ``reset``."""

    def __init__(self, page: Any) -> None:
        self.sizes: dict[str, int] = {}
        self.urls: dict[str, str] = {}
        session = page.context.new_cdp_session(page)
        session.send("Network.enable")
        session.on("Network.responseReceived", lambda e: self.urls.__setitem__(e["requestId"], e["response"]["url"]))
        session.on("Network.loadingFinished", lambda e: self.sizes.__setitem__(e["requestId"], e["encodedDataLength"]))

    def reset(self) -> None:
        self.sizes.clear()
        self.urls.clear()

    def total(self) -> int:
        return sum(self.sizes.values())

    def largest(self) -> list[tuple[str, int]]:
        named = [(self.urls.get(k, k).split("/", 3)[-1], v) for k, v in self.sizes.items()]
        return sorted(named, key=lambda p: -p[1])[:4]


def visit(page: Any, wire: Any, url: str) -> dict[str, Any]:
    wire.reset()
    page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
    return {**page.evaluate(TIMING), "bytes": wire.total(), "largest": wire.largest()}


def plots(page: Any, wire: Any) -> dict[str, Any]:
    wire.reset()
    start = time.perf_counter()
    page.locator("#field-plots").scroll_into_view_if_needed()
    page.wait_for_selector("#field-plots[data-rendered=true]", timeout=60_000)
    field = time.perf_counter() - start
    page.locator("#heatmaps").scroll_into_view_if_needed()
    page.wait_for_selector("#heatmap-models[data-rendered=true]", timeout=60_000)
    return {"field": field, "all": time.perf_counter() - start, "bytes": wire.total()}


def measure(base: str, path: str, repeats: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=["--no-sandbox", "--disable-gpu", "--disable-quic"])
        first, cached, drawn = [], [], []
        for _ in range(repeats):
            context = browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
            wire = Wire(page)
            first.append(visit(page, wire, base + path))
            drawn.append(plots(page, wire))
            cached.append(visit(page, wire, base + path))  # plotly now cached too, as on a return visit
            context.close()
        browser.close()
    kib = 1024
    f, c = first[-1], cached[-1]
    largest = ", ".join(f"{u} {b / kib:.0f}" for u, b in f["largest"])
    print(f"first visit: {f['bytes'] / kib:.0f} KiB on the wire ({largest}); "
          f"interactive (DOMContentLoaded, deferred scripts run) median "
          f"{statistics.median(v['interactive'] for v in first):.2f} s, load "
          f"{statistics.median(v['load'] for v in first):.2f} s over {repeats}")
    print(f"cached visit: {c['bytes'] / kib:.0f} KiB; interactive median "
          f"{statistics.median(v['interactive'] for v in cached):.2f} s, load "
          f"{statistics.median(v['load'] for v in cached):.2f} s")
    print(f"scrolled to the plots: {drawn[0]['bytes'] / kib:.0f} KiB more on the first visit; field plots drawn "
          f"{statistics.median(d['field'] for d in drawn):.2f} s after the scroll, heatmaps "
          f"{statistics.median(d['all'] for d in drawn):.2f} s")
    met = f["bytes"] < BUDGET_BYTES and statistics.median(v["interactive"] for v in cached) < BUDGET_CACHED_S
    print(f"targets: first view < {BUDGET_BYTES / 1000:.0f} kB, interactive < {BUDGET_CACHED_S:.0f} s cached: "
          f"{'met' if met else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    url = os.environ["DATABASE_URL"]
    name = create_database(url)
    server = None
    static = tempfile.TemporaryDirectory()
    try:
        import django

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.config.settings")
        os.environ["STATIC_ROOT"] = static.name
        django.setup()
        from django.core.cache import cache
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        call_command("collectstatic", "--noinput", verbosity=0)
        world = seed(random.Random(0))
        cache.clear()
        big = world["big"]
        port = free_port()
        env = {**os.environ, "DEBUG": "0", "ALLOWED_HOSTS": "127.0.0.1", "LOG_LEVEL": "WARNING"}
        server = start_gunicorn(env, port, 2, 4)
        print(f"database {name}: {world['entries']} entries; gunicorn 2 x 4 threads, DEBUG off; "
              f"Chromium {VIEWPORT['width']}x{VIEWPORT['height']}; load average {os.getloadavg()[0]:.1f}")
        measure(f"http://127.0.0.1:{port}", f"/b/{big.benchmark.name}/{big.name}/", args.repeats)
    finally:
        if server is not None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
        from django.db import connections

        connections.close_all()
        drop_database(url)
        static.cleanup()
        print(f"dropped database {name}")


if __name__ == "__main__":
    main()
