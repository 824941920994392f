"""A metric family's code and its ``rules``: a change to the code a family's numbers come from is a decision.

Each family's signature carries ``rules:<n>`` (``MetricFamily.rules``), bumped when a change could move one of
its numbers, so that entries scored before and after are never ranked in one column. Nothing in the code can tell
a refactor from a change of numbers, so this test makes it a decision: it digests the source each family is
computed from (its module and the ``scoring`` modules it imports, comments, docstrings and layout left out;
the engine, task types and specs are ``SCORING_VERSION``'s) and compares it with the table below. When it fails,
either bump the family's ``rules`` (its numbers can move) or not (they cannot), and record the digest it prints.
"""

from __future__ import annotations

import ast
import hashlib
from functools import cache
from pathlib import Path

import scoring.metrics as registry
from scoring.metrics.base import MetricFamily

REPO = Path(__file__).resolve().parents[3]
# the engine's (SCORING_VERSION): the registry, the family base, records, file reading, specs
ENGINE_MODULES = frozenset({"scoring", "scoring.metrics", "scoring.metrics.base", "scoring.versions",
                            "scoring.reading.problems", "scoring.reading.jsonl"})
ENGINE_PACKAGES = ("scoring.task_types", "scoring.specs")

# family: (rules, digest of the code it is computed from)
RECORDED: dict[str, tuple[int, str]] = {
    "bertscore": (1, "86cb1fe0c0d654e0"),
    "cmi_beat": (1, "064b7f6db11baab5"),
    "cmi_guzheng": (2, "d50f63d4e6f07b82"),
    "cmi_key": (1, "e186fbf9ea5228e7"),
    "cmi_label": (1, "b44dfb38a03da0ad"),
    "cmi_r2": (1, "44d3599955fee2f4"),
    "cmi_tag_auc": (1, "144b8c821170de90"),
    "cmi_wer": (1, "e2b43a2db41a54b3"),
    "evaluate_bleu": (1, "fd3ff0e90b2cb334"),
    "evaluate_meteor": (1, "fd3ff0e90b2cb334"),
    "exact_pitch": (1, "c4a5975379ec08c1"),
    "judge": (1, "87da4a0bcc58eb7e"),
    "leave_one_out": (1, "9e4d3a3514d94eac"),
    "mcq": (1, "61617153be818b3b"),
    "mcq_mapped": (1, "455a6392ded8f326"),
    "nltk_meteor": (1, "88be6ad206157df1"),
    "nltk_sentence_bleu": (1, "1d7b40e2cf5ab7a7"),
    "ranking": (1, "9d172ba5c3b12772"),
    "rouge": (1, "f6aba9f28533fd12"),
    "sacrebleu": (1, "1d7b40e2cf5ab7a7"),
    "short_answer": (1, "8a978a632c1598e0"),
    "songform": (1, "cd0b7eed24a5a554"),
    "tag_set_f1": (1, "0739bebce0634b99"),
    "yes_no": (1, "8a978a632c1598e0"),
}


def _families() -> dict[str, type[MetricFamily]]:
    return dict(registry.METRIC_FAMILIES)


def _path(module: str) -> Path | None:
    base = REPO / Path(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def _owned(module: str) -> bool:
    return (module.split(".")[0] == "scoring" and module not in ENGINE_MODULES
            and not any(module == p or module.startswith(p + ".") for p in ENGINE_PACKAGES))


@cache
def _imports(module: str) -> frozenset[str]:
    path = _path(module)
    assert path is not None, module
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            out.update(f"{base}.{a.name}" if _path(f"{base}.{a.name}") else base for a in node.names)
    return frozenset(m for m in out if _owned(m) and _path(m) is not None)


def _modules(family: type[MetricFamily]) -> list[str]:
    seen: set[str] = set()
    todo = [family.__module__]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(_imports(module) - seen)
    return sorted(seen)


def _code(path: Path) -> str:
    """The module's code without comments, docstrings or layout (``ast.unparse`` of it, docstrings removed)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value,
                                                                                                    str):
                node.body = node.body[1:] or [ast.Pass()]
    return ast.unparse(tree)


def _digest(family: type[MetricFamily]) -> str:
    digest = hashlib.sha256()
    for module in _modules(family):
        path = _path(module)
        assert path is not None
        digest.update(module.encode() + b"\0" + _code(path).encode() + b"\0")
    return digest.hexdigest()[:16]


def test_every_family_s_code_is_recorded_with_its_rules() -> None:
    current = {name: (family.rules, _digest(family)) for name, family in sorted(_families().items())}
    changed = {name: value for name, value in current.items() if RECORDED.get(name) != value}
    table = "\n".join(f'    "{name}": ({rules}, "{digest}"),  # {", ".join(_modules(_families()[name]))}'
                      for name, (rules, digest) in changed.items())
    assert not changed, (
        "the code these families are computed from changed (or they are new). For each: if one of its numbers can "
        "move, bump its `rules`; then record it in RECORDED:\n" + table)
    assert set(RECORDED) == set(current), f"families no longer registered: {sorted(set(RECORDED) - set(current))}"


def test_comments_docstrings_and_layout_are_not_code(tmp_path) -> None:
    one = tmp_path / "one.py"
    two = tmp_path / "two.py"
    one.write_text('"""Doc."""\n\ndef f(x):\n    """Doc."""\n    return x + 1  # why\n')
    two.write_text('def f(x):\n\n    # another why\n    return x + 1\n')
    assert _code(one) == _code(two)
    two.write_text('def f(x):\n    return x + 2\n')
    assert _code(one) != _code(two)
