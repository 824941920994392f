"""docs/production.md's settings table names every environment variable ``leaderboard/config/settings.py`` reads,
and only variables the project reads."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SETTINGS = REPO / "leaderboard" / "config" / "settings.py"
PRODUCTION = REPO / "docs" / "production.md"
TABLE_HEADER = "| variable | default | meaning |"


def settings_variables() -> set[str]:
    """The names in ``settings.py``'s ``env_*("NAME", ...)`` calls."""
    tree = ast.parse(SETTINGS.read_text(encoding="utf-8"))
    return {call.args[0].value for call in ast.walk(tree)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id.startswith("env_")
            and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)}


def documented_variables() -> set[str]:
    """The names in the first column of production.md's settings table."""
    lines = PRODUCTION.read_text(encoding="utf-8").splitlines()
    names: set[str] = set()
    for line in lines[lines.index(TABLE_HEADER) + 2:]:
        if not line.startswith("|"):
            break
        names |= set(re.findall(r"`([A-Z][A-Z0-9_]*)`", line.split("|")[1]))
    return names


def test_settings_reads_only_documented_variables() -> None:
    missing = settings_variables() - documented_variables()
    assert not missing, f"read by settings.py, not in docs/production.md's settings table: {sorted(missing)}"


def test_the_table_documents_only_variables_the_project_reads() -> None:
    sources = "\n".join(path.read_text(encoding="utf-8")
                        for folder in ("leaderboard", "scoring") for path in (REPO / folder).rglob("*.py"))
    unread = {name for name in documented_variables() - settings_variables() if f'"{name}"' not in sources}
    assert not unread, f"in docs/production.md's settings table, read nowhere: {sorted(unread)}"
