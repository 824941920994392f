"""Leaderboard and heatmap speed on a seeded site: 1,000 scored entries over 10 splits.

Creates its own PostgreSQL database (named by DATABASE_URL), migrates it, seeds it, measures,
and drops it at the end. Seeded: 5 DialBGM and 5 Jamendo-MT-QA splits of 100 entries each, with
MetricValue rows (engine-shaped signatures, bootstrap intervals, runs with std; a few entries
private, hidden, incomplete, or scored with a second BERTScore model) and EntryVector rows. One
DialBGM split holds 50 models x 2 entries, each with 1,200 items x 4 candidates of integer scores
(ties), the size of the real test set.

Measured with django.test.Client (server time: URL resolving, middleware, the view, rendering),
median and p95 over N requests, for the big split's leaderboard page, leaderboard API and heatmap
endpoint, cold (cache and the process's recent pages cleared before each request) and warm (cache
filled first).

    DJANGO_SETTINGS_MODULE=leaderboard.config.settings SECRET_KEY=x \\
    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/leaderboard_bench \\
    REDIS_URL=redis://127.0.0.1:6379/14 .venv/bin/python bench/leaderboard_speed.py [--requests 50]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

import numpy as np
import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SPLITS = 10
ENTRIES_PER_SPLIT = 100
BIG_MODELS, BIG_ITEMS, CANDIDATES = 50, 1200, 4
SMALL_ITEMS = 300
TARGETS_MS = {"page": 100.0, "heatmap": 300.0}


# --- the database ------------------------------------------------------------------------------


def _admin_url(url: str) -> tuple[str, str]:
    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    if not name or name in ("postgres", "leaderboard", "template0", "template1"):
        raise SystemExit(f"refusing to create and drop database {name!r}: name a bench database in DATABASE_URL")
    return urlunparse(parsed._replace(path="/postgres")), name


def create_database(url: str) -> str:
    admin, name = _admin_url(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def drop_database(url: str) -> None:
    admin, name = _admin_url(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# --- seeding -------------------------------------------------------------------------------------


def _signature(spec: Any, key: str, extra: dict[str, str]) -> str:
    metric = spec.profile().metric(key)
    fields = {"metric": key, "profile": f"{spec.name}/{spec.official_profile}", "scale": f"{metric.scale:g}",
              "items": f"qa_type={metric.applies_to}" if metric.applies_to else "all", **extra,
              "scoring": "0.1.0"}
    from scoring.signature import Signature

    return Signature.of(fields).format()


FAMILY_FIELDS = {
    "hit_at_1": {"ties": "expected"}, "mrr": {"ties": "expected"},
    "ndcg_at_4": {"ties": "expected", "gain": "exp2", "cutoff": "4"},
    "kendall_tau_b": {"ties": "expected", "all_tied": "0"},
    "yes_no_accuracy": {"rule": "evaluate.py-yes-no"}, "short_answer_accuracy": {"rule": "two-way-substring"},
    "bleu": {"impl": "sacrebleu", "tok": "13a", "smooth": "exp", "nrefs": "1", "sacrebleu": "2.6.0"},
    "rouge1": {"impl": "rouge-score", "stemmer": "yes", "rouge-score": "0.1.2"},
    "rouge2": {"impl": "rouge-score", "stemmer": "yes", "rouge-score": "0.1.2"},
    "rougeL": {"impl": "rouge-score", "stemmer": "yes", "rouge-score": "0.1.2"},
}
JUDGE = "gpt-4o-mini"
JUDGE_FIELDS = {"judge": f"openai/{JUDGE}", "temperature": "0", "prompt": "sha256:3f9a1c0e", "parser": "json-v1"}
BERT = {"impl": "bert-score", "layer": "17", "idf": "no", "rescale": "no", "multi_ref": "max",
        "batching": "unpadded-64", "bert-score": "0.3.13", "transformers": "5.23.0", "torch": "2.13.0"}


def seed(rng: random.Random) -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    from leaderboard.models import EntryVector, MetricValue, RunFile, Split, Status, Submission
    from leaderboard.services.references.baselines import baselines_load
    from leaderboard.services.references.benchmarks import benchmark_create_from_spec

    users = [get_user_model().objects.create_user(username=f"user{i}", password="x") for i in range(40)]
    splits: list[Split] = []
    for bench, names in (("dialbgm", ["test", "dev", "summary-only", "caption-only", "hard"]),
                         ("jamendo-mt-qa", ["full", "subset-2010", "yes-no-hard", "long-pairs", "dev"])):
        benchmark = benchmark_create_from_spec(name=bench)
        for name in names:
            split, _ = Split.objects.get_or_create(benchmark=benchmark, name=name, defaults={"title": name})
            split.n_items = BIG_ITEMS if (bench, name) == ("dialbgm", "test") else SMALL_ITEMS
            split.references_sha256 = f"{len(splits):064x}"
            split.save()
            splits.append(split)
    baselines_load()  # the papers' tables, shown under the big split as on the real site
    big = splits[0]
    np_rng = np.random.default_rng(0)
    total = 0
    for split in splits:
        spec = split.spec
        keys = [m.key for m in spec.profile().metrics]
        is_big = split.pk == big.pk
        n_items = split.n_items
        models = BIG_MODELS if is_big else 60
        submissions, plan = [], []
        for n in range(ENTRIES_PER_SPLIT):
            model = n % models if is_big else rng.randrange(models)
            settings = ({"input": rng.choice(["full_dialogue", "summary"]),
                         "modality": rng.choice(["audio", "caption"]),
                         "category": rng.choice(["multimodal_llm", "audio_language_model", "text_llm"])}
                        if spec.name == "dialbgm" else {"type": rng.choice(["Cap", "Multi"])})
            if is_big:  # each model keeps its settings: 50 rows, each the best of 2 entries
                settings = {"input": ["full_dialogue", "summary"][model % 2], "modality": "audio",
                            "category": "multimodal_llm"}
            submissions.append(Submission(
                split=split, user=users[model % len(users)], model_name=f"{spec.name}-model-{model:02d}",
                organisation=f"Lab {model % 7}", settings=settings, status=Status.SCORED,
                is_private=not is_big and rng.random() < 0.03, hidden=not is_big and rng.random() < 0.02,
                profile=spec.official_profile, parameters=f"{rng.choice([1, 3, 7, 13, 70])}B",
                open_weights=rng.random() < 0.5, report={"metrics": {}}))
            plan.append((model, rng.choice([1, 1, 1, 3])))
        Submission.objects.bulk_create(submissions)
        runs, values, vectors = [], [], []
        for sub, (model, n_runs) in zip(submissions, plan):
            skill = 0.2 + 0.6 * ((model * 37) % models) / models + rng.gauss(0, 0.02)
            runs += [RunFile(submission=sub, number=r, sha256=f"{sub.pk:032x}{r:032x}", original_name=f"run{r}.jsonl",
                             size=123_456) for r in range(1, n_runs + 1)]
            second_bert = spec.name == "jamendo-mt-qa" and rng.random() < 0.1
            incomplete = not is_big and rng.random() < 0.05
            judged = rng.random() < 0.8  # Jamendo: most entries also have the LLM-judge columns
            for key in keys:
                metric = spec.profile().metric(key)
                if (incomplete and key == "bleu") or (metric.family == "judge" and not judged):
                    continue
                if metric.family == "judge":  # stored per judge: "<key>:<judge>"
                    stored, extra = f"{key}:{JUDGE}", JUDGE_FIELDS
                    value = rng.random() / 3 if metric.descriptive else skill * 5.0
                else:
                    stored = key
                    extra = FAMILY_FIELDS.get(key) or {**BERT, "model": "microsoft/deberta-xlarge-mnli"
                                                       if second_bert else "roberta-large"}
                    value = skill * (100.0 if metric.scale == 100 or key == "bleu" else 1.0)
                half = abs(value) * 0.04 + 1e-3
                per_run = [value + rng.gauss(0, half / 4) for _ in range(n_runs)]
                values.append(MetricValue(
                    submission=sub, key=stored, signature=_signature(spec, key, extra), value=float(np.mean(per_run)),
                    std=float(np.std(per_run, ddof=1)) if n_runs > 1 else None, ci_low=value - half,
                    ci_high=value + half, per_run=per_run, n_scored=n_items, current=True))
                per_item = np.clip(np_rng.normal(skill, 0.3, n_items), 0, 1)
                vectors.append(EntryVector(submission=sub, key=stored, rows=n_items, cols=1, data=per_item.tobytes()))
            if spec.task_type == "ranking":
                items = BIG_ITEMS if is_big else n_items
                scores = np_rng.integers(0, 11, size=(items, CANDIDATES)).astype(np.float64)  # ties, as LLM raters
                vectors.append(EntryVector(submission=sub, key="candidate_scores", rows=items, cols=CANDIDATES,
                                           data=scores.tobytes()))
        RunFile.objects.bulk_create(runs, batch_size=2000)
        MetricValue.objects.bulk_create(values, batch_size=2000)
        EntryVector.objects.bulk_create(vectors, batch_size=200)
        total += len(submissions)
    return {"big": big, "splits": splits, "entries": total}


# --- measuring -----------------------------------------------------------------------------------


def timed(client: Any, url: str, before: Callable[[], None] | None, n: int) -> list[float]:
    times = []
    for _ in range(n):
        if before is not None:
            before()
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000.0)
        assert response.status_code == 200, (url, response.status_code)
    return times


def p95(values: list[float]) -> float:
    return float(np.percentile(values, 95))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--keep", action="store_true", help="keep the bench database (for profiling)")
    args = parser.parse_args()
    url = os.environ["DATABASE_URL"]
    name = create_database(url)
    try:
        import django

        # the production settings; no setup_test_environment (its instrumented template rendering
        # copies every context and would add to the times); the test Client's host is allowed
        os.environ["ALLOWED_HOSTS"] = ",".join(filter(None, [os.environ.get("ALLOWED_HOSTS", ""), "testserver"]))
        warnings.filterwarnings("ignore", message="No directory at")  # WhiteNoise: static files not collected here
        django.setup()
        from django.core.cache import cache
        from django.core.management import call_command
        from django.db import connection
        from django.test import Client

        call_command("migrate", verbosity=0)
        start = time.perf_counter()
        world = seed(random.Random(0))
        print(f"database {name}: seeded {world['entries']} entries over {len(world['splits'])} splits "
              f"in {time.perf_counter() - start:.1f} s")
        big = world["big"]
        base = f"{big.benchmark.name}/{big.name}"
        urls = {
            "leaderboard page": f"/b/{base}/",
            "leaderboard API": f"/api/v1/benchmarks/{base}/leaderboard",
            "heatmap API (50 models x 1,200 items)": f"/api/v1/benchmarks/{base}/heatmap",
            "leaderboard page, jamendo-mt-qa/full (extra)": "/b/jamendo-mt-qa/full/",
        }
        client = Client()
        data = client.get(urls["heatmap API (50 models x 1,200 items)"]).json()
        assert len(data["models"]) == BIG_MODELS and len(data["model_agreement"]["matrix"]) == BIG_MODELS
        assert data["model_agreement"]["items"][0][1] > 0
        rows = len(client.get(urls["leaderboard API"]).json()["rows"])
        print(f"big split: {rows} leaderboard rows, heatmap {BIG_MODELS}x{BIG_MODELS} over {BIG_ITEMS} items")
        from leaderboard.views.page_cache import recent_pages_clear

        def clear() -> None:  # the shared cache and this process's recent pages
            cache.clear()
            recent_pages_clear()

        results = []
        for label, path in urls.items():
            cold = timed(client, path, clear, args.requests)
            client.get(path)  # warm the cache
            warm = timed(client, path, None, args.requests)
            results.append((label, cold, warm))
        _report(results, connection.vendor)
    finally:
        from django.db import connections

        connections.close_all()
        if "--keep" not in sys.argv:
            drop_database(url)
            print(f"dropped database {name}")


def _report(results: list[tuple[str, list[float], list[float]]], vendor: str) -> None:
    print()
    print("| request | cold median | cold p95 | warm median | warm p95 | target (p95) | cold p95 / target |"
          " warm p95 / target |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, cold, warm in results:
        target = TARGETS_MS["heatmap" if label.startswith("heatmap") else "page"]
        print(f"| {label} | {statistics.median(cold):.1f} ms | {p95(cold):.1f} ms | {statistics.median(warm):.1f} ms "
              f"| {p95(warm):.1f} ms | < {target:.0f} ms | {p95(cold) / target:.2f} | {p95(warm) / target:.2f} |")
    print(f"\n({len(results[0][1])} requests each; cold = cache and recent pages cleared before every request; "
          f"database: {vendor})")


if __name__ == "__main__":
    main()
