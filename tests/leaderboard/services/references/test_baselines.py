"""The papers' tables keep rows one line tall: every note is a numbered footnote under its table."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from leaderboard.models import PublishedResult, Split
from leaderboard.services.references.baselines import baselines_load

pytestmark = pytest.mark.django_db


def test_every_published_note_is_a_footnote_printed_once(db):
    baselines_load()
    client = Client()
    boards = Split.objects.filter(published_results__isnull=False).distinct().select_related("benchmark")
    assert boards.count() >= 10
    for split in boards:
        page = client.get(f"/b/{split.benchmark.name}/{split.name}/").content.decode()
        published = page.split('<section id="published"', 1)[1]
        cells = re.findall(r'<td class="meta note">(.*?)</td>', published, re.S)
        assert all(re.fullmatch(r'(<a href="#note-\d+-\d+">note \d+</a>)?', c) for c in cells), split
        for target in set(re.findall(r'href="#(note-\d+-\d+)"', published)):
            assert published.count(f'id="{target}"') == 1, (split, target)
        notes = set(PublishedResult.objects.filter(split=split).exclude(notes="").values_list("notes", flat=True))
        footnotes = [html.unescape(n) for n in re.findall(r'<li id="note-\d+-\d+">(.*?)</li>', published, re.S)]
        assert set(footnotes) == notes, split
        for note in notes:  # once per table that has it
            tables = PublishedResult.objects.filter(split=split, notes=note).values("table").distinct().count()
            assert footnotes.count(note) == tables, (split, note[:40])
