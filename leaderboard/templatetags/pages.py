"""Template helpers for the pages' wording: entry facts, labelled settings, the plotly URL, where mail goes."""

from __future__ import annotations

import html
from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from leaderboard.services.boards.labels import settings_labelled
from leaderboard.services.policy.submission_fields import FIELD_RULES, url_is_safe

register = template.Library()


@register.simple_tag
def field_max(name: str) -> int | None:
    """A submission field's length limit (the ``maxlength`` of its input), from the one rules table."""
    return FIELD_RULES[name].max_length


@register.simple_tag
def mail_printed() -> bool:
    """True where mail goes to the console (the embedded default, ``scripts/run-site``): a page must not say a link
    was e-mailed when it was printed in the terminal that runs the site."""
    from django.conf import settings

    return str(settings.EMAIL_BACKEND).endswith("console.EmailBackend")


@register.simple_tag
def plotly_src() -> str:
    from leaderboard.views.vendor import plotly_url

    return plotly_url()


@register.filter
def setting_labels(settings: Any, spec: Any) -> list[tuple[str, str, str]]:
    """``(key, setting label, value label)`` in the benchmark's order."""
    return settings_labelled(spec, settings or {})


@register.filter
def settings_text(settings: Any, spec: Any) -> str:
    return ", ".join(value for _, _, value in settings_labelled(spec, settings or {}))


@register.simple_tag
def entry_facts(entry: Any, spec: Any) -> SafeString:
    """Organisation, size, weights, settings (as the form words them), links, runs: only the parts
    the entry has, joined by " · " (no stray separator when the organisation is empty).
    Every value escaped (``html.escape``, as Django's ``escape``; one row each on a leaderboard)."""
    parts = [escape(text) for text in (entry.organisation, entry.parameters) if text]
    if entry.open_weights is not None:
        parts.append("open weights" if entry.open_weights else "closed weights")
    parts += [f'<span title="{escape(label)}">{escape(value)}</span>'
              for _, label, value in settings_labelled(spec, entry.settings)]
    parts += [f'<a href="{escape(url)}" rel="nofollow noopener">{name}</a>'
              for url, name in ((entry.paper_url, "paper"), (entry.code_url, "code"))
              if url and url_is_safe(url)]  # a stored non-http(s) link is never rendered as one
    if entry.runs > 1:
        parts.append(f"{int(entry.runs)} runs")
    return mark_safe(" · ".join(parts))


def escape(value: Any) -> str:
    return html.escape(str(value))
