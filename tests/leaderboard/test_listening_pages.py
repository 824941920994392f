"""MMAR and RUL-MuChoMusic benchmark pages: protocol, licence and citation from the specs, and MMAR's
published README table (raw string_match) on its board; RUL-MuChoMusic publishes no numbers in text,
so its board has no published table."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client

from scoring.specs import get_benchmark

pytestmark = pytest.mark.django_db


def test_benchmark_pages_show_protocol_licence_and_citation() -> None:
    call_command("create_benchmark", "mmar", "rul-muchomusic")
    client = Client()
    for name, cite in (("mmar", "arXiv:2505.13032"), ("rul-muchomusic", "arXiv:2504.00369")):
        page = client.get(f"/b/{name}/").content.decode()
        spec = get_benchmark(name)
        assert spec.license.split(" (")[0] in page and cite in page
        assert "Cite" in page and spec.description.split(". ")[0].replace("'", "&#x27;") in page


def test_mmar_board_shows_the_readme_table_and_rul_none() -> None:
    call_command("create_benchmark", "mmar", "rul-muchomusic")
    call_command("load_baselines")
    client = Client()
    mmar = client.get("/b/mmar/test/").content.decode()
    assert "MMAR README leaderboard, raw string_match" in mmar
    assert "Gemini 2.5 Pro" in mmar and "56.8" in mmar and "Caption + OpenAI o1" in mmar
    rul = client.get("/b/rul-muchomusic/test/").content.decode()
    assert "README leaderboard" not in rul and "Main results" not in rul
