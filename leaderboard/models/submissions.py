"""Submissions, their run files, and the scores the pipeline stores."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from leaderboard.models.benchmarks import Split


class Status(models.TextChoices):
    UPLOADED = "uploaded", "Uploaded"
    VALIDATING = "validating", "Validating"
    INVALID = "invalid", "Invalid"
    QUEUED = "queued", "Queued"
    SCORING = "scoring", "Scoring"
    AGGREGATING = "aggregating", "Aggregating"
    SCORED = "scored", "Scored"
    FAILED = "failed", "Failed"


class Provenance(models.TextChoices):
    """Where an entry's predictions come from: uploaded by its owner, or a publisher's (or a model's authors')
    released outputs, scored here by the same workers and code."""

    SUBMITTED = "submitted", "Submitted"
    RELEASED = "released", "Re-scored from released outputs"


ACTIVE_STATUSES = (Status.UPLOADED, Status.VALIDATING, Status.QUEUED, Status.SCORING, Status.AGGREGATING)
NOT_COUNTED_STATUSES = (Status.INVALID, Status.FAILED)


def listed_filter(prefix: str = "") -> models.Q:
    """What "publicly listed" means (scored, public, not hidden, not withdrawn), for a relation when
    ``prefix`` names it (``"submissions__"``)."""
    return models.Q(**{f"{prefix}status": Status.SCORED, f"{prefix}is_private": False, f"{prefix}hidden": False,
                       f"{prefix}withdrawn_at": None})


class SubmissionQuerySet(models.QuerySet["Submission"]):
    def counting_towards_quota(self) -> SubmissionQuerySet:
        return self.exclude(status__in=NOT_COUNTED_STATUSES)

    def listed(self) -> SubmissionQuerySet:
        """Entries on the public boards: everyone sees them."""
        return self.filter(listed_filter())

    def scored_unlisted(self) -> SubmissionQuerySet:
        """Scored entries that are not withdrawn but off the public boards (private or hidden)."""
        return self.filter(status=Status.SCORED, withdrawn_at=None).exclude(is_private=False, hidden=False)


class Submission(models.Model):
    """One entry: model metadata, one or more run files, status and results."""

    uid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    split = models.ForeignKey(Split, on_delete=models.PROTECT, related_name="submissions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")

    model_name = models.CharField(max_length=200)
    organisation = models.CharField(max_length=200, blank=True)
    settings = models.JSONField(default=dict, blank=True, help_text="Values of the benchmark's settings.")
    paper_url = models.URLField(blank=True)
    code_url = models.URLField(blank=True)
    parameters = models.CharField(max_length=50, blank=True, help_text='e.g. "7B"')
    open_weights = models.BooleanField(null=True, blank=True)
    description = models.TextField(blank=True)
    profile = models.CharField(max_length=64, blank=True)
    provenance = models.CharField(max_length=16, choices=Provenance.choices, default=Provenance.SUBMITTED)
    source = models.JSONField(default=dict, blank=True, help_text=(
        "Released outputs: the release (publisher, repository, commit, path, url, licence), the released "
        "file's SHA-256, the items it answers and what reading it found."))

    is_private = models.BooleanField(default=False, help_text="Only you and the maintainers see it.")
    hidden = models.BooleanField(default=False, help_text="Hidden by a maintainer.")
    verified = models.BooleanField(default=False)
    demo = models.BooleanField(default=False, help_text="Made by the site's demo loader, not by a user.")
    withdrawn_at = models.DateTimeField(null=True, blank=True, help_text="Withdrawn by its owner: off every board.")

    status = models.CharField(max_length=20, choices=Status.choices, default=Status.UPLOADED)
    status_detail = models.TextField(blank=True)
    progress_done = models.PositiveBigIntegerField(default=0)
    progress_total = models.PositiveBigIntegerField(default=0)
    progress = models.JSONField(default=dict, blank=True, help_text="Stage, its detail and throughput points.")
    end_mail_sent = models.BooleanField(default=False, help_text="The owner was e-mailed that it ended.")
    problems = models.JSONField(default=list, blank=True)
    problem_counts = models.JSONField(default=dict, blank=True)
    warnings = models.JSONField(default=list, blank=True, help_text="First warnings: scored, but worth knowing.")
    warning_counts = models.JSONField(default=dict, blank=True)
    report = models.JSONField(default=dict, blank=True)
    internal_error = models.TextField(blank=True, help_text="Traceback for maintainers; never shown to submitters.")
    attempts = models.PositiveIntegerField(default=0)
    lease_owner = models.CharField(max_length=64, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = SubmissionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["split", "status"]), models.Index(fields=["user", "split", "created_at"])]

    def __str__(self) -> str:
        return f"{self.model_name} on {self.split} ({self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    @property
    def progress_percent(self) -> int:
        if self.status == Status.SCORED:
            return 100
        if not self.progress_total:
            return 0
        return min(100, int(100 * self.progress_done / self.progress_total))


class RunFile(models.Model):
    """One uploaded prediction file, kept by content hash so it can be re-scored."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="runs")
    number = models.PositiveSmallIntegerField()
    sha256 = models.CharField(max_length=64)
    original_name = models.CharField(max_length=255)
    size = models.PositiveBigIntegerField()

    class Meta:
        ordering = ["submission", "number"]
        constraints = [models.UniqueConstraint(fields=["submission", "number"], name="run_unique_number")]


class MetricValue(models.Model):
    """One aggregate score with its signature; values with different signatures never share a column."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="metric_values")
    key = models.CharField(max_length=128)
    signature = models.TextField()
    value = models.FloatField(null=True)
    std = models.FloatField(null=True)
    ci_low = models.FloatField(null=True)
    ci_high = models.FloatField(null=True)
    per_run = models.JSONField(default=list)
    n_scored = models.PositiveIntegerField(default=0)
    current = models.BooleanField(default=True, help_text="False once superseded (kept for history).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["submission", "key"]
        constraints = [
            models.UniqueConstraint(fields=["submission", "key", "signature"], name="metric_unique_signature")
        ]
        indexes = [models.Index(fields=["key", "current"])]


class ItemScore(models.Model):
    """Per-item values of one run (native scale, as the scoring engine produced them)."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="item_scores")
    run = models.PositiveSmallIntegerField()
    index = models.PositiveIntegerField()
    item_id = models.CharField(max_length=512)
    prediction = models.JSONField(default=dict)
    values = models.JSONField(default=dict)
    stats = models.JSONField(default=dict)
    notes = models.JSONField(default=dict)

    class Meta:
        ordering = ["submission", "run", "index"]
        constraints = [models.UniqueConstraint(fields=["submission", "run", "index"], name="itemscore_unique")]


class EntryVector(models.Model):
    """A per-item array of one entry (float64, row-major), for fast heatmaps and comparisons
    (written by ``services.pipeline.entry_vectors``, read by ``services.boards.entry_vectors``).

    ``candidate_scores``: a ranking entry's predicted scores, items x candidates (run 1);
    ``<metric key>``: the per-item values in report scale, averaged over runs;
    ``run<n>:values:<key>``, ``run<n>:stats:<key>``: run n's values and statistics in the engine's scale.
    """

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="vectors")
    key = models.CharField(max_length=128)
    rows = models.PositiveIntegerField()
    cols = models.PositiveIntegerField(default=1)
    data = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["submission", "key"], name="vector_unique_key")]
