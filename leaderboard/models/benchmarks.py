"""Benchmarks and their splits, with the stored reference data."""

from __future__ import annotations

import uuid
from functools import cached_property

from django.db import models

from scoring import BenchmarkSpec, get_benchmark


class Benchmark(models.Model):
    """A hosted benchmark; everything about how it scores lives in its ``scoring`` spec."""

    name = models.SlugField(max_length=64, unique=True)
    listed = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @cached_property
    def spec(self) -> BenchmarkSpec:
        return get_benchmark(self.name)


def new_cache_token() -> str:
    return uuid.uuid4().hex


class SplitQuerySet(models.QuerySet["Split"]):
    def named(self, benchmark: str, split: str) -> SplitQuerySet:
        """The split ``benchmark/split`` (at most one), with its benchmark loaded."""
        return self.select_related("benchmark").filter(benchmark__name=benchmark, name=split)


class Split(models.Model):
    """One reference set of a benchmark, with its own leaderboard.

    ``hidden_labels``: gold answers are never shown to anyone but maintainers,
    neither item by item nor through per-item correctness.
    """

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="splits")
    name = models.SlugField(max_length=64)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    hidden_labels = models.BooleanField(default=False)
    references_sha256 = models.CharField(max_length=64, blank=True)
    references_name = models.CharField(max_length=255, blank=True)
    n_items = models.PositiveIntegerField(default=0)
    accepting_submissions = models.BooleanField(default=True)
    demo = models.BooleanField(default=False, help_text="Generated demo data, not the real benchmark.")
    created_at = models.DateTimeField(auto_now_add=True)
    # changes whenever anything shown on the split's pages changes (services.shared.cache); a fresh random
    # token, not a counter, so an instance saved with an old value can never bring back an old key
    cache_token = models.CharField(max_length=32, default=new_cache_token, editable=False)

    objects = SplitQuerySet.as_manager()

    class Meta:
        ordering = ["benchmark__name", "name"]
        constraints = [models.UniqueConstraint(fields=["benchmark", "name"], name="split_unique_name")]

    def __str__(self) -> str:
        return f"{self.benchmark.name}/{self.name}"

    @property
    def spec(self) -> BenchmarkSpec:
        return self.benchmark.spec

    @property
    def has_references(self) -> bool:
        return bool(self.references_sha256)


class ReferenceItem(models.Model):
    """One item of a split, for the per-item explorer: public inputs and hidden labels."""

    split = models.ForeignKey(Split, on_delete=models.CASCADE, related_name="items")
    index = models.PositiveIntegerField()
    item_id = models.CharField(max_length=512)
    qa_type = models.CharField(max_length=32, blank=True)
    public = models.JSONField(default=dict)
    labels = models.JSONField(default=dict)

    class Meta:
        ordering = ["split", "index"]
        constraints = [
            models.UniqueConstraint(fields=["split", "index"], name="item_unique_index"),
            models.UniqueConstraint(fields=["split", "item_id"], name="item_unique_id"),
        ]


class PublishedResult(models.Model):
    """A row of a paper's table: reported there, not re-scored here, never ranked with site scores."""

    split = models.ForeignKey(Split, on_delete=models.CASCADE, related_name="published_results")
    paper = models.CharField(max_length=200)
    table = models.CharField(max_length=50)
    caption = models.TextField(blank=True)
    kind = models.CharField(max_length=20, default="leaderboard")
    model_name = models.CharField(max_length=200)
    settings = models.JSONField(default=dict)
    metrics = models.JSONField(default=dict)
    columns = models.JSONField(default=list)
    scale = models.TextField(blank=True)  # as printed; some tables describe mixed scales at length
    notes = models.TextField(blank=True)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["split", "table", "order"]
