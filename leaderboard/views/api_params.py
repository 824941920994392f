"""The API refuses query parameters it would otherwise ignore or clamp (a typo must not look like an answer)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from leaderboard.models import Split
from leaderboard.services.boards.leaderboards import ENTRY_POLICIES
from leaderboard.services.boards.provenance import PROVENANCES
from leaderboard.services.policy.refusals import Refused


def check_board_params(split: Split, params: Mapping[str, str], columns: Iterable[object] = (),
                       names: tuple[str, ...] = ("sort",)) -> None:
    """Raise a 400 :class:`Refused` naming the parameter for an unknown ``entry``, setting value, or
    column in ``names`` (``sort``): a metric key of the benchmark or a column id/key shown."""
    spec = split.spec
    entry = params.get("entry")
    if entry and entry not in ENTRY_POLICIES:
        raise Refused("invalid_parameter", f"entry must be one of: {', '.join(ENTRY_POLICIES)}", field="entry")
    for setting in spec.settings:
        value = params.get(setting.key)
        choices = [c for c, _ in setting.choices]
        if value and value not in choices:
            raise Refused("invalid_setting", f"{setting.key} must be one of: {', '.join(choices)}",
                          field=setting.key)
    known = {m.key for p in spec.profiles for m in p.metrics}
    for column in columns:
        known |= {getattr(column, "id", ""), getattr(column, "key", "")}
    for name in names:
        wanted = params.get(name)
        if wanted and wanted.split(":", 1)[0] not in known:  # judged columns are <metric>:<judge>
            keys = ", ".join(sorted(m.key for m in spec.profile().metrics))
            raise Refused("invalid_parameter", f"{name} must be a column id or a metric key ({keys})", field=name)


def check_items_query(params: Mapping[str, str]) -> None:
    """Before the query: ``q`` is storable text (the explorer answers for ``page``, ``run`` and the filters)."""
    if "\x00" in params.get("q", ""):
        raise Refused("invalid_parameter", "q contains a NUL character", field="q")


def check_filter_params(params: Mapping[str, str]) -> None:
    """A 400 naming the parameter for a leaderboard filter the page would only mention: ``open`` other
    than yes/no, ``dir`` other than reverse, ``papers`` other than hide, ``provenance`` other than submitted or
    released, a ``params_min``/``params_max``
    that is not a size. Empty values (what the page's form sends for "any") pass."""
    from leaderboard.services.boards.field_plots import parameter_count

    if params.get("open") not in (None, "", "yes", "no"):
        raise Refused("invalid_parameter", "open must be yes or no", field="open")
    if params.get("dir") not in (None, "", "reverse"):
        raise Refused("invalid_parameter", "dir must be reverse (or absent)", field="dir")
    if params.get("papers") not in (None, "", "hide"):
        raise Refused("invalid_parameter", "papers must be hide (or absent)", field="papers")
    if params.get("provenance") not in (None, "", *PROVENANCES):
        raise Refused("invalid_parameter", f"provenance must be one of: {', '.join(PROVENANCES)}", field="provenance")
    for name in ("params_min", "params_max"):
        value = params.get(name, "").replace("\x00", "").strip()
        if value and parameter_count(value) is None:
            raise Refused("invalid_parameter", f"{name} must be a size such as 7B or 350M", field=name)
