"""The site side of a benchmark added as one row: the spec alone creates its board and imports its release."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from leaderboard.models import Split
from leaderboard.services.references.benchmarks import benchmark_create_from_spec
from leaderboard.services.references.reference_files import IMPORTED, references_import_folder
from scoring.specs import registered
from scoring.specs.cmi import cmi_spec
from tests.scoring.specs.test_one_row import RELEASED, ROW

pytestmark = pytest.mark.django_db


def test_the_row_creates_the_benchmark_and_imports_its_released_file(tmp_path: Path) -> None:
    (tmp_path / ROW.file).write_text("".join(json.dumps(r) + "\n" for r in RELEASED), encoding="utf-8")
    with registered(cmi_spec(ROW)):
        benchmark = benchmark_create_from_spec(name=ROW.name)
        assert [s.name for s in Split.objects.filter(benchmark=benchmark)] == ["test"]
        [outcome] = references_import_folder(folder=tmp_path)  # the registry as it is now, the row included
        assert (outcome.status, outcome.split) == (IMPORTED, f"{ROW.name}/test")
        assert Split.objects.get(benchmark=benchmark, name="test").n_items == len(RELEASED)
