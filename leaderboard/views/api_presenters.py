"""The API's JSON for benchmarks, splits, metric values and entries (access already checked by the views)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from leaderboard.models import MetricValue, Split, Submission
from leaderboard.selectors.submissions import submission_list_current_values, submission_list_runs
from leaderboard.services.boards.parsing import submission_parsing_shown
from leaderboard.services.boards.provenance import provenance_source
from leaderboard.services.pipeline.progress import submission_eta_seconds, submission_stage
from leaderboard.services.pipeline.queue_position import submission_queue_place
from leaderboard.services.policy.access import can_view_predictions
from leaderboard.services.policy.disclosure import WITHHELD, disclosure_hidden, disclosure_metrics
from scoring import BenchmarkSpec
from scoring.reading.problems import warning_summary


def metric_columns(spec: BenchmarkSpec, profile: str | None = None) -> list[dict[str, Any]]:
    return [
        {
            "key": m.key,
            "label": m.label,
            "higher_is_better": m.higher_is_better,
            "scale": m.scale,
            "decimals": m.decimals,
            "applies_to": m.applies_to,
            "description": m.description,
        }
        for m in spec.profile(profile).metrics
    ]


def split_json(split: Split) -> dict[str, Any]:
    spec = split.spec
    return {
        "benchmark": spec.name,
        "split": split.name,
        "title": split.title,
        "description": split.description,
        "hidden_labels": split.hidden_labels,
        "n_items": split.n_items,
        "demo_data": split.demo,
        "accepting_submissions": split.accepting_submissions and split.has_references,
        "leaderboard_url": reverse("leaderboard", args=[spec.name, split.name]),
    }


def benchmark_json(spec: BenchmarkSpec, splits: list[Split]) -> dict[str, Any]:
    return {
        "name": spec.name,
        "title": spec.title,
        "task_type": spec.task_type,
        "description": spec.description,
        "source": spec.source,
        "data_origin": spec.data_origin,
        "license": spec.license,
        "official_profile": spec.official_profile,
        "profiles": [{"name": p.name, "description": p.description, "metrics": list(p.keys)}
                     for p in spec.profiles],
        "metrics": metric_columns(spec),
        "default_sort": spec.default_sort,
        "settings": [{"key": s.key, "label": s.label, "choices": [c for c, _ in s.choices]} for s in spec.settings],
        "splits": [split_json(s) for s in splits],
    }


def metric_value_json(value: MetricValue) -> dict[str, Any]:
    return {
        "value": value.value,
        "std": value.std,
        "ci95": [value.ci_low, value.ci_high] if value.ci_low is not None else None,
        "per_run": value.per_run,
        "n_scored": value.n_scored,
        "signature": value.signature,
    }


def submission_json(submission: Submission, *, with_problems: bool = True, viewer: Any = None) -> dict[str, Any]:
    """The entry as ``viewer`` may see it (no viewer: as the public does)."""
    hidden = disclosure_hidden(split=submission.split, user=viewer)
    # a run file's digest and size can be matched against guessed files: part of the predictions
    files_visible = can_view_predictions(viewer, submission)
    metrics = {v.key: metric_value_json(v) for v in submission_list_current_values(submission)}
    stage, stage_detail = submission_stage(submission)
    data: dict[str, Any] = {
        "id": str(submission.uid),
        "url": reverse("submission", args=[submission.uid]),
        "benchmark": submission.split.benchmark.name,
        "split": submission.split.name,
        "model_name": submission.model_name,
        "organisation": submission.organisation,
        "settings": submission.settings,
        "paper_url": submission.paper_url,
        "code_url": submission.code_url,
        "parameters": submission.parameters,
        "open_weights": submission.open_weights,
        "private": submission.is_private,
        "verified": submission.verified,
        "demo": submission.demo,
        "provenance": submission.provenance,
        # what reading the released file found quotes its lines, as the warnings do
        "source": provenance_source(submission.source, warnings=files_visible),
        "withdrawn_at": submission.withdrawn_at.isoformat() if submission.withdrawn_at else None,
        "profile": submission.profile,
        "status": submission.status,
        "status_detail": submission.status_detail,
        "stage": stage,
        "stage_detail": stage_detail,
        "eta_seconds": submission_eta_seconds(submission),
        "queue": None if (place := submission_queue_place(submission)) is None else {**place.as_json(),
                                                                                    "text": place.text()},
        "progress": {"done": submission.progress_done, "total": submission.progress_total,
                     "percent": submission.progress_percent},
        "runs": [{"number": r.number, "file": r.original_name, "sha256": r.sha256 if files_visible else None,
                  "size": r.size if files_visible else None} for r in submission_list_runs(submission)],
        "created_at": submission.created_at.isoformat(),
        "finished_at": submission.finished_at.isoformat() if submission.finished_at else None,
        "metrics": disclosure_metrics(submission=submission, metrics=metrics) if hidden else metrics,
    }
    if hidden:
        data["disclosure"] = WITHHELD
    if submission.report:
        data["not_computed"] = submission.report.get("not_computed", {})
        data["diagnostics"] = {} if hidden else submission.report.get("diagnostics", {})
        data["parsing"] = submission_parsing_shown(submission, hidden=hidden)
        data["n_items"] = submission.report.get("n_items")  # with bootstrap: the report `scoring score` prints
        data["bootstrap"] = submission.report.get("bootstrap", {})
    data["warning_counts"] = submission.warning_counts
    data["warning_summary"] = warning_summary(submission.warning_counts or {})
    if with_problems:  # problems and warnings quote the files' lines (ids, values): how many, never which
        data["problems"] = submission.problems if files_visible else []
        data["problem_counts"] = submission.problem_counts
        data["warnings"] = submission.warnings if files_visible else []
    return data
