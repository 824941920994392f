"""Released model outputs as entries (``manage.py import_released_outputs --from DIR``).

Every file under the folder that a set of ``scoring/publishers/released_outputs.toml`` recognises and whose task is
hosted becomes a submission of the system account (:data:`RELEASED_ACCOUNT`): provenance ``released``, its
source (publisher, repository, commit, path, licence, the file's SHA-256), the model's name from the set's
table. It is stored and enqueued by :func:`~leaderboard.services.pipeline.submissions.submission_create` like an
upload and scored by the same workers. A file already imported (same split, same content hash) creates
nothing. The file is read first as ``python -m scoring score --missing-as-empty`` reads it: a file with errors
is refused with them; a run that lacks items is stored as one line per item, the missing ones as the empty
answers they are scored as, and the entry says how many items the release answers.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from django.core.files.base import ContentFile

from leaderboard.models import Provenance, Split, Submission
from leaderboard.services.pipeline.submissions import ReleasedSource, SubmissionMetadata, submission_create
from leaderboard.services.policy.accounts import system_account_get
from leaderboard.services.policy.refusals import Refused
from leaderboard.services.shared.split_references import split_references
from scoring import ProblemLog
from scoring.publishers.released import released_files
from scoring.publishers.released_outputs import (
    OutputFile,
    OutputRun,
    output_content,
    output_jsonl,
    output_read,
    outputs_find,
)

RELEASED_ACCOUNT = "released-outputs"
IMPORTED, ALREADY, NOT_HOSTED, REFUSED, NOT_RECOGNISED = (
    "imported", "already imported", "not hosted here", "refused", "not recognised")
STATUSES = (IMPORTED, ALREADY, NOT_HOSTED, REFUSED, NOT_RECOGNISED)
FIRST_PROBLEMS = 3  # named in a refusal's line
SOURCE_WARNINGS = 20  # the first warnings kept on the entry, with file, line and field


@dataclass(frozen=True)
class OutputOutcome:
    """What happened to one file of the folder."""

    path: str  # relative to the folder
    status: str
    target: str = ""  # benchmark/split
    detail: str = ""
    submission: str = ""  # the entry's id
    needs_references: bool = False  # refused: the split's references are not imported yet

    def __str__(self) -> str:
        target = f" -> {self.target}" if self.target else ""
        return f"{self.path}{target}: {self.status}" + (f": {self.detail}" if self.detail else "")


def released_outputs_import(*, folder: Path) -> list[OutputOutcome]:
    """One outcome per file under ``folder``, in path order."""
    return [_outcome(relative, found) for relative, found in outputs_find(folder)]


def _outcome(relative: str, found: OutputFile | None) -> OutputOutcome:
    if found is None:
        return OutputOutcome(relative, NOT_RECOGNISED,
                             detail="no set of scoring/publishers/released_outputs.toml names it")
    if not found.benchmark:
        return OutputOutcome(relative, NOT_HOSTED, detail=f"task {found.task} of {found.output_set.name}")
    target = f"{found.benchmark}/{found.output_set.split}"
    if found.model is None:
        return OutputOutcome(relative, REFUSED, target, f"model {found.model_key!r} is not in the "
                             f"{found.output_set.name} set's model table (scoring/publishers/released_outputs.toml)")
    split = Split.objects.filter(benchmark__name=found.benchmark, name=found.output_set.split).first()
    if split is None or not split.has_references:
        return OutputOutcome(relative, REFUSED, target, _no_references(found), needs_references=True)
    try:
        return _import_one(relative, found, split, target)
    except Refused as exc:
        return OutputOutcome(relative, REFUSED, target, exc.message)


def _no_references(found: OutputFile) -> str:
    names = sorted(row.name for row in released_files() if row.benchmark == found.benchmark)
    holding = f" (the folder holding {', '.join(names)})" if names else ""
    return (f"{found.benchmark}/{found.output_set.split} has no references yet: import them first with "
            f"manage.py import_references --from DIR{holding}")


def _import_one(relative: str, found: OutputFile, split: Split, target: str) -> OutputOutcome:
    existing = _existing(found, split)
    if existing is not None:
        return OutputOutcome(relative, ALREADY, target, f"{existing.model_name} ({existing.status})", str(existing.uid))
    spec, references = split.spec, split_references(split)
    run = output_read(spec, references, found)
    if run.log:
        first = "; ".join(str(problem) for problem in run.log.problems[:FIRST_PROBLEMS])
        return OutputOutcome(relative, REFUSED, target, f"{run.log.total} problem(s): {first}")
    complete = run.answered == run.items
    content = run.content if complete else output_jsonl(spec, references, run)
    name = found.name if complete else f"{found.name.removesuffix('.jsonl')}.missing-as-empty.jsonl"
    model = found.model
    assert model is not None
    submission = submission_create(
        user=system_account_get(RELEASED_ACCOUNT), split=split,
        metadata=SubmissionMetadata(model_name=model.name, parameters=model.parameters,
                                    description=_description(found, model.name)),
        files=[ContentFile(content, name=name)], released=_source(found, run))
    return OutputOutcome(relative, IMPORTED, target, _imported_detail(model.name, run), str(submission.uid))


def _existing(found: OutputFile, split: Split) -> Submission | None:
    """The entry already made from this file's content on this split, if any."""
    content = output_content(found, ProblemLog(keep=0))  # an unreadable file is refused when read in full
    if content is None:
        return None
    sha256 = hashlib.sha256(content).hexdigest()
    return Submission.objects.filter(split=split, provenance=Provenance.RELEASED, source__sha256=sha256).first()


def _source(found: OutputFile, run: OutputRun) -> ReleasedSource:
    release = found.output_set
    return ReleasedSource(
        publisher=release.publisher, repository=release.repository, commit=release.commit,
        path=found.source_path, url=found.source_url, licence=release.licence, sha256=run.sha256,
        items_answered=run.answered, items_total=run.items,
        warning_counts=dict(run.log.warning_counts.most_common()),
        warnings=[w.as_dict() for w in run.log.warnings[:SOURCE_WARNINGS]])


def _description(found: OutputFile, model: str) -> str:
    release = found.output_set
    return (f"{model}'s outputs as released by {release.publisher} ({release.repository} at "
            f"{release.commit[:8]}, {found.source_path}; {release.licence}), re-scored here.")


def _imported_detail(model: str, run: OutputRun) -> str:
    answered = f"{run.answered:,} of {run.items:,} items answered"
    missing = run.items - run.answered
    empty = f", {missing:,} missing scored as empty answers" if missing else ""
    others = run.log.warning_total - missing
    warnings = f", {others:,} {'other ' if missing else ''}warning(s)" if others else ""
    return f"{model}, {answered}{empty}{warnings}"
