"""Pages of ``docs/`` the site serves, rendered from the same Markdown files the repository holds."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

DOCS_DIR = Path(__file__).resolve().parents[2] / "docs"
SERVED = {"protocols": "protocols.md"}  # the pages boards link to


def doc_page(request: HttpRequest, name: str) -> HttpResponse:
    return render(request, "doc.html", {"body": _rendered(SERVED[name]), "name": name})


@lru_cache(maxsize=len(SERVED))
def _rendered(file: str) -> SafeString:
    # raw HTML in the Markdown is escaped ("js-default"), so only Markdown reaches the page
    return mark_safe(MarkdownIt("js-default").enable("table").render((DOCS_DIR / file).read_text(encoding="utf-8")))
