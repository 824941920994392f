"""Compare API speed: two scored 36,519-item Jamendo-MT-QA entries (the real test set's size).

Creates its own PostgreSQL database (named by DATABASE_URL), migrates it, imports 12,173 synthetic
Jamendo-shaped pairs (36,519 items), uploads two prediction files and scores them with the site's
pipeline (BERTScore off: the comparison reads stored per-item values, whatever the metrics), then
times ``GET /api/v1/compare?a=&b=`` with django.test.Client: cold (cache cleared before each
request: per-item values read back, 1,000 paired replicates) and warm, then each part of a cold
request called on its own. Drops the database at the end.

    DJANGO_SETTINGS_MODULE=leaderboard.config.settings SECRET_KEY=x BERTSCORE=0 \\
    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/leaderboard_bench_compare \\
    REDIS_URL=redis://127.0.0.1:6379/14 .venv/bin/python bench/compare_speed.py [--requests 5] [--pairs 12173]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.leaderboard_speed import create_database, drop_database  # noqa: E402

PAIRS = 12_173  # x 3 questions = 36,519 items
TARGET_S = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=PAIRS, help="Jamendo pairs (3 items each); a smaller run only "
                        "checks that the script works")
    parser.add_argument("--profile", action="store_true", help="print a profile of one cold request")
    args = parser.parse_args()
    os.environ.setdefault("BERTSCORE", "0")
    url = os.environ["DATABASE_URL"]
    create_database(url)
    try:
        import django

        os.environ["ALLOWED_HOSTS"] = ",".join(filter(None, [os.environ.get("ALLOWED_HOSTS", ""), "testserver"]))
        os.environ.setdefault("LEADERBOARD_DATA_DIR", tempfile.mkdtemp(prefix="bench-compare-"))
        warnings.filterwarnings("ignore", message="No directory at")
        django.setup()
        from django.contrib.auth import get_user_model
        from django.core.cache import cache
        from django.core.files.uploadedfile import SimpleUploadedFile
        from django.core.management import call_command
        from django.test import Client

        from leaderboard.models import Split
        from leaderboard.services.pipeline import steps as pipeline
        from leaderboard.services.pipeline.submissions import SubmissionMetadata, submission_create
        from leaderboard.services.references.benchmarks import benchmark_create_from_spec, split_import_references
        from tests.helpers.datagen import jamendo_predictions, jamendo_references, write_jsonl

        call_command("migrate", verbosity=0)
        refs = jamendo_references(args.pairs, seed=7)
        tmp = Path(tempfile.mkdtemp(prefix="bench-compare-files-"))
        split, _ = Split.objects.get_or_create(benchmark=benchmark_create_from_spec(name="jamendo-mt-qa"),
                                               name="full", defaults={"title": "full"})
        split_import_references(split=split, path=write_jsonl(refs, tmp / "refs.jsonl"))
        user = get_user_model().objects.create_user(username="bench", password="x")
        uids = []
        for n, seed in enumerate((1, 2)):
            text = write_jsonl(jamendo_predictions(refs, seed=seed, noise=0.2 + 0.1 * n), tmp / f"run{n}.jsonl")
            start = time.perf_counter()
            metadata = SubmissionMetadata.from_data({"model_name": f"Model {n}", "type": "Multi"}, split)
            entry = submission_create(user=user, split=split, metadata=metadata,
                                      files=[SimpleUploadedFile(text.name, text.read_bytes())])
            pipeline.submission_validate(entry.pk)
            pipeline.submission_score(entry.pk)
            entry.refresh_from_db()
            assert entry.status == "scored", entry.status_detail
            print(f"entry {n}: {len(refs)} items scored in {time.perf_counter() - start:.1f} s")
            uids.append(str(entry.uid))
        client = Client()
        route = f"/api/v1/compare?a={uids[0]}&b={uids[1]}"
        cold, cold_cpu, warm = [], [], []
        for _ in range(args.requests):
            cache.clear()
            start, cpu = time.perf_counter(), time.process_time()
            response = client.get(route)
            cold.append(time.perf_counter() - start)
            cold_cpu.append(time.process_time() - cpu)  # all threads: less at the mercy of other load
            assert response.status_code == 200, response.content[:500]
        for _ in range(args.requests):
            start = time.perf_counter()
            client.get(route)
            warm.append(time.perf_counter() - start)
        if args.profile:
            import cProfile
            import pstats

            cache.clear()
            profiler = cProfile.Profile()
            profiler.runcall(client.get, route)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
        data = response.json()
        print(f"compare API, {data['n_items']} items, {len(data['metrics'])} metrics, "
              f"{data['bootstrap']['replicates']} replicates:")
        print(f"  cold: median {statistics.median(cold):.3f} s, max {max(cold):.3f} s (target < {TARGET_S} s); "
              f"CPU median {statistics.median(cold_cpu):.3f} s")
        print(f"  warm: median {statistics.median(warm):.3f} s, max {max(warm):.3f} s")
        _print_parts(uids, args.requests)
    finally:
        drop_database(url)


def _print_parts(uids: list[str], repeats: int) -> None:
    """Median time of each part of a cold request, called directly (each part once per repeat)."""
    import json

    from django.conf import settings
    from django.contrib.auth.models import AnonymousUser

    from leaderboard.models import Submission
    from leaderboard.services.boards.compare import compare_entries, compare_items, compare_numbers
    from leaderboard.services.boards.entry_vectors import entry_runs_read
    from leaderboard.services.shared.scorers import site_scorer

    a, b = (Submission.objects.select_related("split__benchmark").get(uid=uid) for uid in uids)
    scorer = site_scorer(a)
    numbers = compare_numbers(a, b)
    keys = [row["key"] for row in numbers["metrics"]]
    n = len(scorer.references)
    runs = {"a": entry_runs_read(a, keys, n), "b": entry_runs_read(b, keys, n)}
    parts = {
        "scorer (references cached)": lambda: site_scorer(a),
        "per-item vectors, both entries": lambda: (entry_runs_read(a, keys, n), entry_runs_read(b, keys, n)),
        "paired bootstrap (Scorer.compare)": lambda: scorer.compare(
            runs["a"], runs["b"], seed=0, n_bootstrap=settings.LEADERBOARD["BOOTSTRAP_REPLICATES"], keys=keys),
        "all numbers (services.boards.compare.compare_numbers)": lambda: compare_numbers(a, b),
        "largest differences list": lambda: compare_items(a, b, keys[0], numbers, details=True),
        "answer from cached numbers, as JSON": lambda: json.dumps(
            compare_entries(a=a, b=b, user=AnonymousUser(), params={})),
    }
    print(f"  parts (median of {repeats}):")
    for name, part in parts.items():
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            part()
            times.append(time.perf_counter() - start)
        print(f"    {name}: {1000 * statistics.median(times):.0f} ms")


if __name__ == "__main__":
    main()
