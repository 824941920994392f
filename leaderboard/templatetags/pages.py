"""Template helpers for the pages' wording: entry facts, labelled settings, the plotly URL."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from leaderboard.services.fields import url_is_safe
from leaderboard.services.labels import settings_labelled

register = template.Library()


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
    the entry has, joined by " · " (no stray separator when the organisation is empty)."""
    parts: list[tuple[str, tuple[Any, ...]]] = []
    for text in (entry.organisation, entry.parameters):
        if text:
            parts.append(("{}", (text,)))
    if entry.open_weights is not None:
        parts.append(("{}", ("open weights" if entry.open_weights else "closed weights",)))
    for _, label, value in settings_labelled(spec, entry.settings):
        parts.append(('<span title="{}">{}</span>', (label, value)))
    for url, name in ((entry.paper_url, "paper"), (entry.code_url, "code")):
        if url and url_is_safe(url):  # a stored non-http(s) link is never rendered as one
            parts.append(('<a href="{}" rel="nofollow noopener">{}</a>', (url, name)))
    if entry.runs > 1:
        parts.append(("{} runs", (entry.runs,)))
    return format_html_join(" · ", "{}", ((format_html(f, *args),) for f, args in parts))
