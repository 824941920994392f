"""Links to the suites' boards: from the home page, and from a board of one of a suite's tasks."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from scoring.specs import SUITES, suite_members

register = template.Library()


@register.simple_tag
def suite_links() -> SafeString:
    """One paragraph naming every suite, with how many tasks it has."""
    if not SUITES:
        return mark_safe("")
    links = format_html_join(" · ", '<a href="{}">{}</a> ({} tasks side by side)', (
        (reverse("suite", args=[s.name]), s.title, len(suite_members(s.name))) for s in SUITES.values()))
    return format_html('<p class="meta" id="suite-links">Suites: {}</p>', links)


@register.simple_tag
def suite_link(spec: Any) -> SafeString:
    """On a task's board: the suite it belongs to, linked."""
    suite = SUITES.get(getattr(spec, "suite", ""))
    if suite is None:
        return mark_safe("")
    return format_html('<p class="meta" id="suite-link">A task of <a href="{}">{}</a>: every task side by side, '
                       'each with its own metric and scale.</p>', reverse("suite", args=[suite.name]), suite.title)
