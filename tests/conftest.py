"""Collection shared by every test folder: a module whose every test the ``-m`` expression deselects is not imported.

A module marked as a whole (``pytestmark = pytest.mark.slow``, or a list of marks) is read, not
imported, to learn its marks: importing the BERTScore and browser modules (torch, transformers,
playwright) is most of what collecting them costs, and a run that deselects them all
(``-m "not slow"``) would only throw them away.
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import pytest

_OPERATORS = frozenset({"and", "or", "not"})
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[()]")


def module_marks(source: str) -> set[str]:
    """The names of the marks in a module's top-level ``pytestmark`` (``pytest.mark.NAME`` or ``NAME(...)``)."""
    marks: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            for part in ast.walk(node.value):
                if (isinstance(part, ast.Attribute) and isinstance(part.value, ast.Attribute)
                        and part.value.attr == "mark"):
                    marks.add(part.attr)
    return marks


def deselects_every_test(markexpr: str, marks: set[str]) -> bool:
    """Whether no test carrying ``marks`` (and any others) can match ``markexpr``.

    Only plain expressions (mark names, ``and``, ``or``, ``not``, parentheses) are judged; any
    other (``-m "mark(arg=1)"``) answers False, and the module is collected as usual."""
    tokens = markexpr.replace("(", " ( ").replace(")", " ) ").split()
    if not tokens or not all(_PLAIN.fullmatch(token) for token in tokens):
        return False
    optional = sorted({t for t in tokens if t not in _OPERATORS and t not in "()"} - marks)
    for count in range(len(optional) + 1):
        for extra in itertools.combinations(optional, count):
            present = marks | set(extra)
            python = " ".join(t if t in _OPERATORS or t in "()" else str(t in present) for t in tokens)
            try:
                if eval(python, {"__builtins__": {}}):  # only True, False, and, or, not and parentheses
                    return False
            except SyntaxError:
                return False
    return True


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    markexpr = config.getoption("markexpr", "")
    if not markexpr or collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    source = collection_path.read_text(encoding="utf-8")
    if "pytestmark" not in source:
        return None
    marks = module_marks(source)
    if marks and deselects_every_test(markexpr, marks):
        return True
    return None
