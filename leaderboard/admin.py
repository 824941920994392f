"""Maintainers' pages: benchmarks, references, submissions (hide, verify, re-score)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path

from leaderboard.models import ApiToken, Benchmark, MetricValue, PublishedResult, RunFile, Split, Submission
from leaderboard.services.pipeline.steps import submission_rescore
from leaderboard.services.policy.moderation import submissions_hide, submissions_unhide, submissions_verify
from leaderboard.services.references.benchmarks import ReferencesInUse, split_import_references
from leaderboard.services.references.exposure import LabelsExposed, references_exposure
from leaderboard.services.references.signatures import split_save
from leaderboard.services.shared.split_references import split_references
from scoring import InvalidInput, ProblemLog
from scoring.publishers.importers import REFERENCE_IMPORTERS
from scoring.reading.problems import warning_summary


class SplitForm(forms.ModelForm):
    """A split's settings; hidden labels only where the split's references do not give them away."""

    class Meta:
        model = Split
        fields = "__all__"

    def clean_hidden_labels(self) -> bool:
        hidden = bool(self.cleaned_data.get("hidden_labels"))
        split = self.instance
        if not hidden or "hidden_labels" not in self.changed_data or not split.pk or not split.references_sha256:
            return hidden
        try:
            references = split_references(split).references
        except Exception:  # unreadable references publish nothing: hiding them is never a leak
            return hidden
        if exposure := references_exposure(split, references, hidden=True):
            raise forms.ValidationError(exposure)
        return hidden


class SplitInline(admin.TabularInline):
    model = Split
    form = SplitForm
    extra = 0
    fields = ("name", "title", "hidden_labels", "accepting_submissions", "n_items", "references_name", "demo")
    readonly_fields = ("n_items", "references_name")


@admin.register(Benchmark)
class BenchmarkAdmin(admin.ModelAdmin):
    list_display = ("name", "listed", "created_at")
    inlines = [SplitInline]

    def save_formset(self, request: Any, form: Any, formset: Any, change: bool) -> None:
        """The splits edited inline are saved as a split's own form saves them (:func:`split_save`)."""
        splits = formset.save(commit=False)
        for gone in formset.deleted_objects:
            gone.delete()
        for split in splits:
            split_save(split=split)
        formset.save_m2m()


class ReferencesForm(forms.Form):
    references = forms.FileField(help_text="JSONL in the benchmark's contract, or a publisher's own file")
    source_format = forms.ChoiceField(choices=[("", "JSONL contract"), *((f, f) for f in sorted(REFERENCE_IMPORTERS))],
                                      required=False, label="Format")
    force = forms.BooleanField(required=False, help_text="replace references of a split that has submissions "
                               "(re-score them afterwards)")


@admin.register(Split)
class SplitAdmin(admin.ModelAdmin):
    form = SplitForm
    list_display = ("__str__", "title", "hidden_labels", "accepting_submissions", "n_items", "demo")
    list_filter = ("benchmark", "hidden_labels")
    readonly_fields = ("references_sha256", "references_name", "n_items")
    change_form_template = "admin/leaderboard/split/change_form.html"

    def save_model(self, request: Any, obj: Split, form: Any, change: bool) -> None:
        split_save(split=obj)  # labels hidden after entries were scored: their signatures are keyed

    def get_urls(self) -> list[Any]:
        urls = [path("<int:split_id>/references/", self.admin_site.admin_view(self.import_references),
                     name="leaderboard_split_references")]
        return urls + super().get_urls()

    def import_references(self, request: Any, split_id: int) -> Any:
        """Validate and store a reference file; every problem is listed, nothing stored on any."""
        split = get_object_or_404(Split, pk=split_id)
        form = ReferencesForm(request.POST or None, request.FILES or None)
        problems: list[Any] = []
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["references"]
            with tempfile.TemporaryDirectory() as tmp:
                target = Path(tmp) / Path(upload.name).name
                with open(target, "wb") as out:
                    for chunk in upload.chunks():
                        out.write(chunk)
                log = ProblemLog(keep=200)
                try:
                    count = split_import_references(split=split, path=target, force=form.cleaned_data["force"],
                                                    source_format=form.cleaned_data["source_format"] or None, log=log)
                except InvalidInput as exc:
                    problems = exc.log.problems
                except (ReferencesInUse, LabelsExposed) as exc:
                    messages.error(request, str(exc))
                else:
                    messages.success(request, f"{count} items imported into {split}.")
                    for line in warning_summary(log.warning_counts):
                        messages.warning(request, line)
                    for warning in log.warnings[:20]:
                        messages.warning(request, str(warning))
                    return redirect("admin:leaderboard_split_change", split.pk)
        context = {**self.admin_site.each_context(request), "split": split, "form": form, "problems": problems,
                   "title": f"Import references into {split}", "opts": self.model._meta}
        return render(request, "admin/leaderboard/split/references.html", context)


class RunFileInline(admin.TabularInline):
    model = RunFile
    extra = 0
    readonly_fields = ("number", "sha256", "original_name", "size")


class MetricValueInline(admin.TabularInline):
    model = MetricValue
    extra = 0
    readonly_fields = ("key", "value", "std", "ci_low", "ci_high", "n_scored", "signature", "current")


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("model_name", "split", "user", "status", "provenance", "hidden", "is_private", "verified",
                    "created_at")
    list_filter = ("status", "provenance", "hidden", "is_private", "verified", "split")
    search_fields = ("model_name", "organisation", "user__username", "uid")
    readonly_fields = ("uid", "status", "status_detail", "progress_done", "progress_total", "problems",
                       "problem_counts", "report", "attempts", "internal_error", "created_at", "finished_at",
                       "provenance", "source")
    inlines = [RunFileInline, MetricValueInline]
    actions = ["hide", "unhide", "verify", "rescore"]

    @admin.action(description="Hide from leaderboards")
    def hide(self, request: Any, queryset: Any) -> None:
        submissions_hide(submissions=queryset)

    @admin.action(description="Show on leaderboards")
    def unhide(self, request: Any, queryset: Any) -> None:
        submissions_unhide(submissions=queryset)

    @admin.action(description="Mark verified")
    def verify(self, request: Any, queryset: Any) -> None:
        submissions_verify(submissions=queryset)

    @admin.action(description="Re-score from the stored files")
    def rescore(self, request: Any, queryset: Any) -> None:
        for submission in queryset:
            submission_rescore(submission.pk)
        messages.info(request, f"{queryset.count()} submission(s) queued for re-scoring.")


@admin.register(PublishedResult)
class PublishedResultAdmin(admin.ModelAdmin):
    list_display = ("model_name", "split", "paper", "table")
    list_filter = ("split", "table")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("user", "name", "prefix", "created_at", "last_used_at")
    readonly_fields = ("key_hash", "prefix")
