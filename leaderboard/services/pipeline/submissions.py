"""Creating submissions: metadata checks, quota, content-addressed storage, dry runs."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from leaderboard.models import Provenance, RunFile, Split, Status, Submission
from leaderboard.services.pipeline import steps as pipeline
from leaderboard.services.policy.quotas import quota_refused, rejected_quota_check
from leaderboard.services.policy.refusals import Refused
from leaderboard.services.policy.submission_fields import (
    FIELD_RULES,
    TEXT_FIELDS,
    field_clean,
    fields_storable,
)
from leaderboard.services.shared.blobs import TooLarge, blob_store
from leaderboard.services.shared.split_references import split_references
from scoring import ProblemLog, read_predictions


class Upload(Protocol):
    """What Django's UploadedFile offers and we need."""

    name: str | None
    size: int | None

    def chunks(self, chunk_size: int | None = None) -> Iterable[bytes]: ...


@dataclass
class SubmissionMetadata:
    model_name: str
    organisation: str = ""
    settings: dict[str, str] = field(default_factory=dict)
    paper_url: str = ""
    code_url: str = ""
    parameters: str = ""
    open_weights: bool | None = None
    description: str = ""
    is_private: bool = False

    @classmethod
    def from_data(cls, data: Any, split: Split, *, require_name: bool = True) -> SubmissionMetadata:
        """Read metadata from form/API data; settings are the spec's setting keys.

        A field that is neither a submission field nor a setting of the benchmark, and a yes/no
        field with another value, are refused naming the field (never ignored or guessed)."""
        spec_settings = {s.key: s for s in split.spec.settings}
        fields_storable(data, skip=FORM_ONLY_FIELDS)
        _check_known_fields(data, split)
        chosen = {}
        for key, setting in spec_settings.items():
            value = (data.get(key) or data.get(f"settings.{key}") or "").strip()
            if value:
                if value not in {c for c, _ in setting.choices}:
                    valid = ", ".join(c for c, _ in setting.choices)
                    raise Refused("invalid_setting", f"{key} must be one of: {valid}", field=key)
                chosen[key] = value
        texts = {name: _text(data, name) for name in TEXT_FIELDS}
        for name in TEXT_FIELDS:
            if FIELD_RULES[name].required and not texts[name] and require_name:
                raise Refused("missing_field", f"{name} is required", field=name)
        return cls(
            model_name=texts["model_name"],
            organisation=texts["organisation"],
            settings=chosen,
            paper_url=texts["paper_url"],
            code_url=texts["code_url"],
            parameters=texts["parameters"],
            open_weights=_optional_bool(data, "open_weights"),
            description=texts["description"],
            is_private=_optional_bool(data, "private") or False,
        )


@dataclass(frozen=True)
class ReleasedSource:
    """Where a released entry's predictions come from: the release's file, and what reading it found."""

    publisher: str
    repository: str
    commit: str
    path: str  # the file in the repository
    url: str  # the file at the commit
    licence: str
    sha256: str  # of the file as released
    items_answered: int
    items_total: int
    warning_counts: dict[str, int] = field(default_factory=dict)
    warnings: list[dict[str, Any]] = field(default_factory=list)  # the first ones, with file, line and field

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


FORM_ONLY_FIELDS = ("predictions", "split", "dry_run", "csrfmiddlewaretoken")
"""Sent by the submit form or the API beside the metadata: the files, the chosen split, the button, CSRF."""
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _check_known_fields(data: Any, split: Split) -> None:
    settings_keys = [s.key for s in split.spec.settings]
    known = {*FIELD_RULES, *FORM_ONLY_FIELDS, *settings_keys,
             *(f"settings.{key}" for key in settings_keys)}
    for key in data:
        if key not in known:
            offered = ", ".join(settings_keys) or "none"
            raise Refused(
                "unknown_field", f"{str(key)[:80]!r} is neither a submission field nor a setting of "
                f"{split.spec.name} (its settings: {offered})", field=str(key)[:80])


def submission_create(*, user: Any, split: Split, metadata: SubmissionMetadata, files: Sequence[Upload],
                      released: ReleasedSource | None = None) -> Submission:
    """Store the run files and create a submission; validation and scoring follow on a worker.

    Raises :class:`Refused` (nothing stored, no quota used) for a closed split,
    a wrong number of files, a file over the size limit, or an exhausted daily quota. ``released``: the
    entry is a release's outputs (provenance ``released``, imported by a maintainer's command: no quota).
    """

    _check_acceptable(split, files)
    if released is None:
        _check_quota(user, split)
        rejected_quota_check(user=user)
    stored = [_store(upload) for upload in files]
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # serialise per user
        if released is None:
            _check_quota(user, split)
        submission = Submission.objects.create(
            split=split,
            user=user,
            model_name=metadata.model_name,
            organisation=metadata.organisation,
            settings=metadata.settings,
            paper_url=metadata.paper_url,
            code_url=metadata.code_url,
            parameters=metadata.parameters,
            open_weights=metadata.open_weights,
            description=metadata.description,
            is_private=metadata.is_private,
            profile=split.spec.official_profile,
            provenance=Provenance.SUBMITTED if released is None else Provenance.RELEASED,
            source={} if released is None else released.as_json(),
            status=Status.UPLOADED,
            status_detail="Waiting for a worker to validate the files.",
        )
        RunFile.objects.bulk_create(
            RunFile(submission=submission, number=i, sha256=sha, original_name=name, size=size)
            for i, (sha, size, name) in enumerate(stored, start=1)
        )
        transaction.on_commit(lambda: pipeline.enqueue_validation(submission.pk))
    return submission


def submission_dry_run(*, split: Split, files: Sequence[Upload], data: Any = None) -> ProblemLog:
    """Validate files against the split without storing anything or using quota.

    ``data`` (form or API fields) is checked by the submission's own rules, so a dry run refuses
    what the submission would refuse (an unknown setting value; an empty model name when one is sent).
    """
    _check_acceptable(split, files)
    if data is not None:
        SubmissionMetadata.from_data(data, split, require_name="model_name" in data)
    log = ProblemLog(keep=settings.LEADERBOARD["KEEP_PROBLEMS"])
    references = split_references(split)
    with tempfile.TemporaryDirectory(prefix="dry-run-") as tmp:
        for number, upload in enumerate(files, start=1):
            path = Path(tmp) / f"{number}.jsonl"
            with open(path, "wb") as out:
                for chunk in _limited_chunks(upload):
                    out.write(chunk)
            read_predictions(split.spec, references, path, log, name=_display_name(upload, number))
    return log


def quota_used(user: Any, split: Split) -> int:
    """Submissions in the last 24 hours that count: pending ones hold a slot until validated; invalid
    and failed ones free theirs (``quotas.quota_refused`` says when)."""
    since = timezone.now() - timedelta(days=1)
    return Submission.objects.filter(user=user, split=split, created_at__gte=since).counting_towards_quota().count()


def _check_acceptable(split: Split, files: Sequence[Upload]) -> None:
    if not split.accepting_submissions or not split.has_references:
        raise Refused("closed", f"{split} is not accepting submissions", field="split")
    if not files:
        raise Refused("missing_field", "attach at least one predictions file", field="predictions")
    max_runs = settings.LEADERBOARD["MAX_RUNS"]
    if len(files) > max_runs:
        raise Refused("too_many_runs", f"at most {max_runs} run files per submission", field="predictions")
    limit = settings.LEADERBOARD["MAX_UPLOAD_BYTES"]
    for number, upload in enumerate(files, start=1):
        if upload.size is not None and upload.size > limit:
            raise _too_large(upload, number, limit)


def _check_quota(user: Any, split: Split) -> None:

    quota = settings.LEADERBOARD["DAILY_QUOTA"]
    if getattr(user, "is_staff", False):
        return
    if quota_used(user, split) >= quota:
        raise quota_refused(user=user, split=split, quota=quota)


def _store(upload: Upload) -> tuple[str, int, str]:
    try:
        sha, size = blob_store(upload.chunks(), limit=settings.LEADERBOARD["MAX_UPLOAD_BYTES"])
    except TooLarge as exc:
        raise _too_large(upload, 0, exc.limit) from None
    return sha, size, _display_name(upload, 0)


def _limited_chunks(upload: Upload) -> Iterable[bytes]:
    limit, seen = settings.LEADERBOARD["MAX_UPLOAD_BYTES"], 0
    for chunk in upload.chunks():
        seen += len(chunk)
        if seen > limit:
            raise _too_large(upload, 0, limit)
        yield chunk


def _too_large(upload: Upload, number: int, limit: int) -> Refused:
    return Refused(
        "file_too_large",
        f"{_display_name(upload, number)} is larger than the {limit // (1024 * 1024)} MB limit",
        field="predictions",
        status=413,
    )


def _display_name(upload: Upload, number: int) -> str:
    return Path(upload.name or f"run-{number}.jsonl").name[:255]


def _text(data: Any, name: str) -> str:
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise Refused("wrong_type", f"{name} must be a string", field=name)
    return field_clean(name, value or "")


def _optional_bool(data: Any, name: str) -> bool | None:
    value = data.get(name)
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise Refused("invalid_value", f"{name} must be true or false (or 1/0, yes/no, on/off), got "
                  f"{str(value)[:40]!r}", field=name)

