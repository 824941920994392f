"""HTML pages. Thin: fetch, check access, call a service, render. Readable without JavaScript."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods

from leaderboard.models import Benchmark, Split, Status, Submission
from leaderboard.selectors.benchmarks import (
    benchmark_get_listed,
    benchmark_list_listed,
    benchmark_list_splits,
    benchmark_list_splits_counted,
)
from leaderboard.selectors.published import published_get_board_counts
from leaderboard.selectors.splits import split_get, split_list_open, split_list_siblings
from leaderboard.selectors.submissions import (
    submission_get_listed_counts,
    submission_get_visible,
    submission_list_history,
    submission_list_owned,
)
from leaderboard.services.boards import leaderboards
from leaderboard.services.boards.field_plots import field_context
from leaderboard.services.boards.items import PREDICTIONS_WITHHELD, ItemPageRefused, item_page
from leaderboard.services.boards.kit import benchmark_reference_versions
from leaderboard.services.boards.labels import metric_unit, signature_model
from leaderboard.services.boards.parsing import parsing_protocol, submission_parsing_shown
from leaderboard.services.boards.provenance import provenance_source
from leaderboard.services.pipeline.progress import eta_text, submission_eta_seconds, submission_stage_line
from leaderboard.services.pipeline.queue_position import submission_queue_place
from leaderboard.services.pipeline.submissions import (
    SubmissionMetadata,
    quota_used,
    submission_create,
    submission_dry_run,
)
from leaderboard.services.policy.access import can_view_item_details, can_view_predictions
from leaderboard.services.policy.accounts import account_email_on_end
from leaderboard.services.policy.disclosure import WITHHELD, disclosure_hidden, disclosure_metrics
from leaderboard.services.policy.quotas import dry_run_check
from leaderboard.services.policy.refusals import Refused
from leaderboard.views.entries import entry_form
from leaderboard.views.error_responses import with_retry_after
from leaderboard.views.model_pages import model_overview_context
from leaderboard.views.uploads import uploaded_files
from scoring.reading.problems import warning_summary
from scoring.specs import SUITES
from scoring.specs.citations import bibtex

# The home page's groups of benchmarks outside a suite, by the kind of answer they score.
_GROUPS = {"multiple_choice": "Multiple-choice questions", "leave_one_out": "Multiple-choice questions",
           "ranking": "Ranking", "comparative_qa": "Questions on two pieces",
           "generation": "Captions, answers, tags and transcriptions"}


def home(request: HttpRequest) -> HttpResponse:
    benchmarks = list(benchmark_list_listed())
    counts = submission_get_listed_counts()
    published = published_get_board_counts()
    tops = leaderboards.leaderboard_top_entries([s for b in benchmarks for s in benchmark_list_splits(b)])
    groups = _home_groups(benchmarks, counts, published)
    return render(request, "home.html", {"benchmarks": benchmarks, "groups": groups, "counts": counts,
                                         "published": published, "tops": tops, **model_overview_context(request)})


def _home_groups(benchmarks: list[Benchmark], counts: dict[int, int],
                 published: dict[int, int]) -> list[dict[str, Any]]:
    """Suites first (one row each, its tasks listed inside), then the other benchmarks by kind of answer;
    each benchmark with its entries and published rows summed over its splits."""
    suites: dict[str, dict[str, Any]] = {}
    kinds: dict[str, dict[str, Any]] = {}
    for b in benchmarks:
        splits = benchmark_list_splits(b)
        row = {"benchmark": b, "splits": splits, "entries": sum(counts.get(s.pk, 0) for s in splits),
               "published": sum(published.get(s.pk, 0) for s in splits)}
        suite = SUITES.get(getattr(b.spec, "suite", ""))
        if suite is not None:
            group = suites.setdefault(suite.name, {"suite": suite, "title": suite.title, "rows": []})
        else:
            title = _GROUPS.get(b.spec.task_type, b.spec.task_type.replace("_", " ").capitalize())
            group = kinds.setdefault(title, {"suite": None, "title": title, "rows": []})
        group["rows"].append(row)
    for group in (*suites.values(), *kinds.values()):
        group["entries"] = sum(r["entries"] for r in group["rows"])
        group["published"] = sum(r["published"] for r in group["rows"])
    return [*suites.values(), *kinds.values()]


def benchmark(request: HttpRequest, benchmark: str) -> HttpResponse:
    found = benchmark_get_listed(benchmark)
    splits = benchmark_list_splits_counted(found)
    return render(request, "benchmark.html", {"benchmark": found, "spec": found.spec, "splits": splits,
                                              "bibtex": bibtex(found.name),
                                              "versions": benchmark_reference_versions(found, request.user)})


def leaderboard(request: HttpRequest, benchmark: str, split: str) -> HttpResponse:
    found = split_get(benchmark, split)
    board = leaderboards.build(found, request.user, request.GET)
    siblings = split_list_siblings(found)
    return render(request, "leaderboard.html", {
        "charts": len(board.rows) > 1,  # drawn from the heatmap API; the no-JS tables are a page of their own
        "split": found, "spec": found.spec, "board": board, "siblings": siblings,
        "query": request.GET, "task_type": found.spec.task_type,
        "judge_agreement": [(row.entry.model_name, a) for row in board.rows for a in row.entry.judge_agreement],
        **field_context(board, request.GET),
    })


def submission(request: HttpRequest, uid: str) -> HttpResponse:
    found = submission_get_visible(request.user, uid)
    page = _explorer(found, request) if found.status == Status.SCORED else None
    predictions_withheld = PREDICTIONS_WITHHELD if page and page["withheld"] == PREDICTIONS_WITHHELD else ""
    if predictions_withheld:
        page = None
    hidden = disclosure_hidden(split=found.split, user=request.user)
    metrics = _metric_rows(found, released=hidden)
    mine = request.user.is_authenticated and found.user_id == request.user.pk
    files_visible = can_view_predictions(request.user, found)
    source = provenance_source(found.source, warnings=files_visible)
    return render(request, "submission.html", {
        "submission": found, "spec": found.split.spec, "metrics": metrics, "items": page,
        "details_visible": can_view_item_details(request.user, found.split),
        "disclosure": WITHHELD if hidden else "", "predictions_withheld": predictions_withheld,
        "files_visible": files_visible,
        "source": source,
        "source_missing": (source["items_total"] - source["items_answered"]) if source else 0,
        "history": [] if hidden else submission_list_history(found),
        "mine": mine,
        "email_on_end": mine and found.is_active and account_email_on_end(request.user),
        "form": entry_form(request, found),
        "stage_detail": submission_stage_line(found), "eta": eta_text(submission_eta_seconds(found)),
        "queue_place": submission_queue_place(found),
        "parsing": parsing_protocol(found.split, found.profile or None, submission_parsing_shown(found, hidden=hidden))
        if found.status == Status.SCORED else None,
    })


def _explorer(submission: Submission, request: HttpRequest) -> dict[str, Any]:
    """The explorer's page; a refused query shows its message inside the explorer (no items)."""
    try:
        return item_page(submission, request.user, request.GET)
    except ItemPageRefused as exc:
        return {**exc.page, "error": exc}


@login_required
def my_submissions(request: HttpRequest) -> HttpResponse:
    mine = submission_list_owned(request.user)
    return render(request, "my_submissions.html", {"submissions": mine})


@login_required
@require_http_methods(["GET", "POST"])
@csrf_exempt  # checked by _submit once the upload is parsed: see below
def submit(request: HttpRequest) -> HttpResponse:
    # The size guard is an upload handler, and handlers can only be added before the body is parsed.
    # CsrfViewMiddleware would parse it (request.POST) before this view runs, so the CSRF check is
    # done by _submit instead (Django's documented pattern for changing upload handlers in a view).
    files: list[Any] = []
    upload_error: Refused | None = None
    if request.method == "POST":
        try:
            files = uploaded_files(request)
        except Refused as exc:
            upload_error = exc
    return _submit(request, files, upload_error)


@csrf_protect
def _submit(request: HttpRequest, files: list[Any], upload_error: Refused | None) -> HttpResponse:
    splits = split_list_open()
    chosen = _chosen_split(request, splits)
    context: dict[str, Any] = {"splits": splits, "chosen": chosen, "data": request.POST or {}}
    if chosen is not None:
        context["quota_used"] = quota_used(request.user, chosen)
        context["daily_quota"] = settings.LEADERBOARD["DAILY_QUOTA"]
    if request.method == "POST" and chosen is not None:
        try:
            if upload_error is not None:
                raise upload_error
            if "dry_run" in request.POST:
                dry_run_check(user=request.user, files=files)
                problems = submission_dry_run(split=chosen, files=files, data=request.POST)
                context["dry_run"] = {"valid": not problems, "problems": problems.problems,
                                      "counts": problems.counts.most_common(), "total": problems.total,
                                      "warnings": warning_summary(problems.warning_counts)}
            else:
                metadata = SubmissionMetadata.from_data(request.POST, chosen)
                created = submission_create(user=request.user, split=chosen, metadata=metadata, files=files)
                messages.success(request, "Uploaded. Validation and scoring run on a worker; this page updates.")
                return redirect("submission", uid=created.uid)
        except Refused as exc:  # the form comes back with the message
            context["error"] = exc
    error = context.get("error")
    status = 200 if error is None else 429 if error.status == 429 else 400  # a limit: 429 with Retry-After
    return with_retry_after(render(request, "submit.html", context, status=status), error)


def _chosen_split(request: HttpRequest, splits: Any) -> Split | None:
    wanted = request.POST.get("split") or request.GET.get("split") or ""
    benchmark, _, name = wanted.partition("/")
    return next((s for s in splits if s.benchmark.name == benchmark and s.name == name), None)


def _metric_rows(submission: Submission, *, released: bool = False) -> list[dict[str, Any]]:
    report = submission.report or {}
    signatures = report.get("signatures", {})
    profile = submission.split.spec.profile(submission.profile or None)
    rows = []
    for key, value in report.get("metrics", {}).items():
        metric = profile.metric_for(key)
        rows.append({
            "key": key, "label": metric.label if metric else key, "value": value,
            "decimals": metric.decimals if metric else 4,
            "higher_is_better": metric.higher_is_better if metric else True,
            "std": report.get("std", {}).get(key), "ci95": report.get("ci95", {}).get(key),
            "per_run": report.get("per_run", {}).get(key, []), "n_scored": report.get("n_scored", {}).get(key),
            "signature": signatures.get(key, ""), "unit": metric_unit(metric) if metric else "",
            "model": signature_model(signatures.get(key, "")),
        })
    if released:  # a hidden-label split seen by a non-maintainer
        cells = disclosure_metrics(submission=submission, metrics={r["key"]: r for r in rows})
        rows = [{**row, **cells[row["key"]]} for row in rows]
    return rows

