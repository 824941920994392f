"""Owners control their entries: withdraw, public/private, metadata. Every change is recorded.

A withdrawn entry leaves every leaderboard, comparison and heatmap; its page stays, as a
tombstone, for its owner and the maintainers. Each change moves the split's cache version.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from leaderboard.models import EntryChange, Submission
from leaderboard.services.policy.access import is_maintainer
from leaderboard.services.policy.disclosure import disclosure_hidden, disclosure_released
from leaderboard.services.policy.refusals import Refused
from leaderboard.services.policy.submission_fields import EDITABLE_FIELDS, FIELD_RULES, field_clean
from leaderboard.services.shared.cache import leaderboard_changed

EDITABLE = EDITABLE_FIELDS
_OPEN_WEIGHTS = {"": None, "unknown": None, "yes": True, "no": False}  # the edit form's select


def entry_can_manage(*, submission: Submission, user: Any) -> bool:
    return is_maintainer(user) or (getattr(user, "is_authenticated", False) and submission.user_id == user.pk)


def entry_withdraw(*, submission: Submission, user: Any) -> None:
    """Take the entry off every board; its page stays for its owner and the maintainers."""
    if submission.withdrawn_at is not None:
        raise Refused("already_withdrawn", "this entry is already withdrawn", "withdraw")
    if submission.is_active:
        raise Refused("still_scoring", "this entry is still being scored; withdraw it once it has finished",
                      "withdraw", 409)
    _change(submission, user, "withdrawn", {"withdrawn_at": [None, timezone.now().isoformat()]},
            withdrawn_at=timezone.now())


def entry_set_visibility(*, submission: Submission, user: Any, private: bool) -> None:
    if submission.withdrawn_at is not None:
        raise Refused("withdrawn", "a withdrawn entry stays off the boards", "private", 409)
    if submission.is_private == private:
        return
    _change(submission, user, "made private" if private else "made public",
            {"private": [submission.is_private, private]}, is_private=private)


def entry_update_metadata(*, submission: Submission, user: Any, data: Mapping[str, str]) -> list[str]:
    """Apply the submitted fields that changed; returns their names. Raises :class:`Refused` on the first bad field."""
    new = {name: _clean(name, data) for name in EDITABLE if name in data}
    changed = {name: [_plain(getattr(submission, name)), _plain(value)] for name, value in new.items()
               if getattr(submission, name) != value}
    if changed:
        _change(submission, user, "metadata edited", changed, **{name: new[name] for name in changed})
    return list(changed)


def _clean(name: str, data: Mapping[str, str]) -> Any:
    """The field's value by :data:`FIELD_RULES` (NUL characters dropped, as a form cannot send them on purpose)."""
    value = data.get(name, "").replace("\x00", "")
    if FIELD_RULES[name].kind == "boolean":
        if value.strip() not in _OPEN_WEIGHTS:
            raise Refused("invalid_value", f"{name} is yes, no or unknown", field=name)
        return _OPEN_WEIGHTS[value.strip()]
    value = field_clean(name, value, voice="form")
    if FIELD_RULES[name].required and not value:
        raise Refused("missing_field", "the model needs a name", field=name)
    return value


def _plain(value: Any) -> Any:
    return value if value is None or isinstance(value, bool | int | float | str) else str(value)


def _change(submission: Submission, user: Any, action: str, detail: dict[str, Any], **fields: Any) -> None:
    with transaction.atomic():
        Submission.objects.filter(pk=submission.pk).update(**fields, updated_at=timezone.now())
        for name, value in fields.items():
            setattr(submission, name, value)
        EntryChange.objects.create(submission=submission, user=user if getattr(user, "pk", None) else None,
                                   action=action, detail=detail)
        transaction.on_commit(lambda: leaderboard_changed(submission.split_id))


def entry_main_scores(*, submission: Submission, user: Any, limit: int = 3) -> list[tuple[str, str]]:
    """(label, value) of the entry's leading metrics (the default sort first), as ``user`` may see them."""
    metrics = (submission.report or {}).get("metrics") or {}
    spec = submission.split.spec
    profile = spec.profile(submission.profile or None)
    keys = sorted(metrics, key=lambda k: (k != spec.default_sort, list(metrics).index(k)))
    hidden = disclosure_hidden(split=submission.split, user=user)
    released = disclosure_released(split=submission.split) if hidden else {}
    signatures = (submission.report or {}).get("signatures") or {}
    out = []
    for key in keys[:limit]:
        metric = profile.metric_for(key)
        value = metrics[key]
        if hidden:  # the Ladder's value, as on every other page: rounding alone would answer "one step worse"
            shown = released.get((submission.pk, key, signatures.get(key, "")))
            if shown is None and value is not None:
                out.append((metric.label if metric else key, "not above best"))
                continue
            value = shown
        decimals = metric.decimals if metric else 4
        out.append((metric.label if metric else key, "–" if value is None else f"{value:.{decimals}f}"))
    return out
