"""Board build time with compare's paired test deciding ties: 20 scored DialBGM entries of 1,000 items.

Creates its own PostgreSQL database (named by DATABASE_URL), migrates it, imports 1,000 synthetic DialBGM
items, uploads 20 prediction files of graded skill and scores them with the site's pipeline (each entry
then has its per-run arrays, as every entry aggregated on the site has), then times
``services.boards.leaderboards.build`` for an anonymous viewer: cold (cache cleared before each build:
entries read, every shown entry's replicates computed) and warm (nothing changed since the last build),
and the leaderboard API cold. Prints each row's rank and tie rule. Drops the database at the end.

    DJANGO_SETTINGS_MODULE=leaderboard.config.settings SECRET_KEY=x \\
    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/leaderboard_bench_ties \\
    REDIS_URL=redis://127.0.0.1:6379/14 .venv/bin/python bench/board_ties_speed.py [--requests 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.leaderboard_speed import create_database, drop_database  # noqa: E402

ENTRIES = 20
ITEMS = 1_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=7)
    parser.add_argument("--entries", type=int, default=ENTRIES)
    parser.add_argument("--items", type=int, default=ITEMS)
    parser.add_argument("--profile", action="store_true", help="print a profile of one cold and one warm build")
    args = parser.parse_args()
    url = os.environ["DATABASE_URL"]
    create_database(url)
    try:
        import django

        os.environ["ALLOWED_HOSTS"] = ",".join(filter(None, [os.environ.get("ALLOWED_HOSTS", ""), "testserver"]))
        os.environ.setdefault("LEADERBOARD_DATA_DIR", tempfile.mkdtemp(prefix="bench-ties-"))
        warnings.filterwarnings("ignore", message="No directory at")
        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        split = _seed(args.entries, args.items)
        _measure(split, args.requests, profile=args.profile)
    finally:
        drop_database(url)


def _seed(entries: int, items: int) -> Any:
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile

    from leaderboard.models import Split
    from leaderboard.services.pipeline import steps as pipeline
    from leaderboard.services.pipeline.submissions import SubmissionMetadata, submission_create
    from leaderboard.services.references.benchmarks import benchmark_create_from_spec, split_import_references
    from tests.helpers.datagen import dialbgm_predictions, dialbgm_references, write_jsonl

    refs = dialbgm_references(items, seed=7)
    tmp = Path(tempfile.mkdtemp(prefix="bench-ties-files-"))
    split, _ = Split.objects.get_or_create(benchmark=benchmark_create_from_spec(name="dialbgm"), name="test",
                                           defaults={"title": "test"})
    split_import_references(split=split, path=write_jsonl(refs, tmp / "refs.jsonl"))
    start = time.perf_counter()
    for n in range(entries):
        user = get_user_model().objects.create_user(username=f"bench{n}", password="x")  # the daily quota
        text = write_jsonl(dialbgm_predictions(refs, seed=n, skill=0.3 + 0.5 * n / entries), tmp / f"run{n}.jsonl")
        metadata = SubmissionMetadata.from_data({"model_name": f"Model {n:02d}"}, split)
        entry = submission_create(user=user, split=split, metadata=metadata,
                                  files=[SimpleUploadedFile(text.name, text.read_bytes())])
        pipeline.submission_validate(entry.pk)
        pipeline.submission_score(entry.pk)
        entry.refresh_from_db()
        assert entry.status == "scored", entry.status_detail
    print(f"{entries} entries of {items} items scored in {time.perf_counter() - start:.1f} s")
    split.refresh_from_db()
    return split


def _measure(split: Any, requests: int, *, profile: bool) -> None:
    from django.contrib.auth.models import AnonymousUser
    from django.core.cache import cache
    from django.test import Client

    from leaderboard.services.boards.leaderboards import build
    from leaderboard.views.page_cache import recent_pages_clear

    def clear() -> None:  # the shared cache and this process's recent pages
        cache.clear()
        recent_pages_clear()

    anonymous = AnonymousUser()
    board = build(split, anonymous, {})
    for row in board.rows:
        rule = getattr(row, "tie_rule", None)
        print(f"  {row.rank}{'≈' if row.tied_with_above else ' '} {row.entry.model_name} "
              f"{row.entry.value(board.sort.id) if board.sort else None:.3f} {rule or ''}")
    api = f"/api/v1/benchmarks/{split.benchmark.name}/{split.name}/leaderboard"
    client = Client()
    timings = {
        "build, cold": _timed(lambda: build(split, anonymous, {}), requests, clear),
        "build, warm": _timed(lambda: build(split, anonymous, {}), requests, None),
        "leaderboard API, cold": _timed(lambda: client.get(api), requests, clear),
    }
    print(f"{len(board.rows)} rows, median of {requests}:")
    for name, (wall, cpu) in timings.items():
        print(f"  {name}: {1000 * wall:.0f} ms (CPU {1000 * cpu:.0f} ms)")
    if profile:
        import cProfile
        import pstats

        for name in ("cold", "warm"):
            if name == "cold":
                clear()
            profiler = cProfile.Profile()
            profiler.runcall(build, split, anonymous, {})
            print(f"build, {name}:")
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(20)


def _timed(call: Callable[[], Any], repeats: int, before: Callable[[], Any] | None) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(repeats):
        if before is not None:
            before()
        start, cpu = time.perf_counter(), time.process_time()
        call()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


if __name__ == "__main__":
    main()
