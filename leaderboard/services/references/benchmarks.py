"""Benchmarks from specs and reference imports (their parsed sets: ``services.shared.split_references``)."""

from __future__ import annotations

import tempfile
from functools import partial
from pathlib import Path

from django.conf import settings
from django.db import transaction

from leaderboard.models import Benchmark, ReferenceItem, Split
from leaderboard.services.policy.refusals import Refused
from leaderboard.services.references.exposure import LabelsExposed, import_exposure, references_exposure
from leaderboard.services.references.signatures import split_save
from leaderboard.services.shared.blobs import blob_store_file
from leaderboard.services.shared.queue import WARM_REFUSED, WARM_TASK, queue_send
from leaderboard.services.shared.split_references import split_references
from scoring import InvalidInput, ProblemLog, get_benchmark, read_references
from scoring.engine import heavy_jobs
from scoring.publishers.importers import REFERENCE_IMPORTERS, convert_file
from scoring.reading.problems import copy_problems


class ReferencesInUse(Refused):
    """Replacing references would silently change scored entries (callers that import files catch it)."""

    def __init__(self, message: str) -> None:
        super().__init__("references_in_use", message, "split", 409)


def benchmark_create_from_spec(*, name: str) -> Benchmark:
    """Create (or complete) a benchmark and the splits its spec declares."""
    spec = get_benchmark(name)
    benchmark, _ = Benchmark.objects.get_or_create(name=spec.name)
    for split_spec in spec.splits:
        Split.objects.get_or_create(
            benchmark=benchmark,
            name=split_spec.name,
            defaults={
                "title": split_spec.title,
                "description": split_spec.description,
                "hidden_labels": split_spec.hidden_labels,
            },
        )
    return benchmark


def split_import_references(
    *, split: Split, path: str | Path, source_format: str | None = None, force: bool = False,
    log: ProblemLog | None = None, hide_labels: bool = False,
) -> int:
    """Validate and store a split's references; returns the number of items.

    ``source_format`` converts a publisher's file first (``musicqa``, ``musiccaps``,
    ``jamendo``) in a temporary folder (never next to the input). ``hide_labels`` hides the split's
    labels in the same transaction as the new references. Raises :class:`InvalidInput` with every
    problem, :class:`ReferencesInUse` when scored submissions exist and ``force`` is off, or
    :class:`LabelsExposed` when the references would publish answers meant to stay hidden; nothing
    is stored then. Warnings (items the publisher's evaluator leaves out or counts as always wrong,
    with their lines) are collected in ``log`` when given.
    """
    path = Path(path)
    if exposure := import_exposure(split, source_format, path, hidden=split.hidden_labels or hide_labels):
        raise LabelsExposed(exposure)
    if not source_format:
        return _import_jsonl(split, path, path.name, force, log, hide_labels)
    with tempfile.TemporaryDirectory(prefix="references-") as tmp:
        converted = Path(tmp) / f"{path.stem}.jsonl"
        problems = convert_file(REFERENCE_IMPORTERS[source_format], path, converted)
        if problems:
            raise InvalidInput(problems)
        if log is not None:  # the importer's warnings (e.g. derived Jamendo pair ids), with their lines
            copy_problems(problems, log)
        return _import_jsonl(split, converted, path.name, force, log, hide_labels)


def _import_jsonl(split: Split, path: Path, name: str, force: bool, log: ProblemLog | None, hide: bool) -> int:
    log = log if log is not None else ProblemLog(keep=200)
    references = read_references(split.spec, path, log, name=name)
    if log:
        raise InvalidInput(log)
    hidden = split.hidden_labels or hide
    if exposure := references_exposure(split, references.references, hidden=hidden):
        raise LabelsExposed(exposure)
    if split.submissions.exists() and not force:
        raise ReferencesInUse(f"{split} has submissions; use force and re-score them")
    sha, _ = blob_store_file(path)
    with transaction.atomic():
        locked = Split.objects.select_for_update().get(pk=split.pk)
        if locked.hidden_labels and not hidden and (
                exposure := references_exposure(split, references.references, hidden=True)):
            raise LabelsExposed(exposure)  # hidden meanwhile (the admin's form)
        if hide and not locked.hidden_labels:
            split.hidden_labels = True
            split_save(split=split, update_fields=["hidden_labels"])  # keys the stored gold digests
        split.items.all().delete()
        ReferenceItem.objects.bulk_create(
            [
                ReferenceItem(
                    split=split,
                    index=i,
                    item_id=ref.id,
                    qa_type=ref.qa_type or "",
                    public=dict(ref.public),
                    labels=_labels(ref),
                )
                for i, ref in enumerate(references.references)
            ],
            batch_size=2000,
        )
        split.references_sha256 = sha
        split.references_name = name
        split.n_items = len(references)
        split.save(update_fields=["references_sha256", "references_name", "n_items"])
        _embeddings_warm_later(split)
    return len(references)


def _embeddings_warm_later(split: Split) -> None:
    """Once the import commits, the worker that scores BERTScore encodes the references into its store
    (``services.pipeline.warming``), when the site keeps them (``BERTSCORE``, ``_STORE``, ``_WARM``)."""
    config = settings.LEADERBOARD
    if not (config["BERTSCORE"] and config["BERTSCORE_STORE"] and config["BERTSCORE_WARM"]):
        return
    if any(heavy_jobs(profile) for profile in split.spec.profiles):
        transaction.on_commit(partial(queue_send, WARM_TASK, split.pk, 0, split.references_sha256,
                                      queue=config["SCORING_HEAVY_QUEUE"] or None, if_refused=WARM_REFUSED))


def _labels(ref: object) -> dict[str, object]:
    labels: dict[str, object] = {}
    if getattr(ref, "answers", ()):
        labels["answers"] = list(ref.answers)  # type: ignore[attr-defined]
    if getattr(ref, "gold_ranking", ()):
        labels["gold_ranking"] = list(ref.gold_ranking)  # type: ignore[attr-defined]
    return labels


def hidden_splits_exposed() -> list[tuple[Split, str]]:
    """Hidden-label splits whose stored references give their labels away (made before a check that now refuses
    them, or since exposed by a release): each with the reason, for maintainers (``manage.py audit_hidden_splits``)."""
    found = []
    splits = Split.objects.filter(hidden_labels=True).exclude(references_sha256="").select_related("benchmark")
    for split in splits.order_by("benchmark__name", "name"):
        references = split_references(split).references
        if references and (reason := references_exposure(split, references, hidden=True)):
            found.append((split, reason))
    return found
