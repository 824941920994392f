"""The papers' rows keep the board one line a row: every note is a numbered footnote under the board,
printed once however many rows point to it; a table that is not ranked keeps its own footnotes."""

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
        board = page.split('<table class="board" id="leaderboard">', 1)[1].split("</table>", 1)[0]
        published = page.split('<section id="published"', 1)[1]
        ranked = PublishedResult.objects.filter(split=split, kind="leaderboard")
        assert board.count('<tr class="paper"') == ranked.count(), split
        footnotes = [html.unescape(n) for n in re.findall(r'<li id="paper-note-\d+">(.*?)</li>', published, re.S)]
        assert sorted(footnotes) == sorted(set(ranked.exclude(notes="").values_list("notes", flat=True))), split
        for row in re.findall(r'<tr class="paper".*?</tr>', board, re.S):  # one link, to a note that exists
            for target in re.findall(r'href="#(paper-note-\d+)"', row):
                assert published.count(f'id="{target}"') == 1, (split, target)
        assert sum(board.count(f'href="#paper-note-{n}"') for n in range(1, len(footnotes) + 1)) == \
            ranked.exclude(notes="").count(), split
        others = PublishedResult.objects.filter(split=split).exclude(kind="leaderboard")
        notes = set(others.exclude(notes="").values_list("notes", flat=True))
        kept = [html.unescape(n) for n in re.findall(r'<li id="note-\d+-\d+">(.*?)</li>', published, re.S)]
        assert set(kept) == notes, split
