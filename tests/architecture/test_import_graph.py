"""The import graph of scoring/ and leaderboard/: no cycle anywhere, and every layer imports only downwards.

Layers: ``scoring`` (no Django, nothing of the site) <- ``leaderboard`` models and services <- its tasks
and views. Function-level imports count: a cycle deferred into a function is still a cycle. The graph
(modules and arrows) is printed so that a run shows the size of the house.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("scoring", "leaderboard")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(REPO).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Modules of this repository that ``name`` imports (a package's submodule when named, else the package)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            subs = {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules}
            out.update(subs if len(subs) == len(node.names) else {*subs, base} & set(modules))
    out.discard(name)
    return out


@cache
def graph() -> dict[str, frozenset[str]]:
    modules = _modules()
    return {name: frozenset(_imports(name, path, modules)) for name, path in modules.items()}


def _cycles(edges: dict[str, frozenset[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle_in_scoring_or_leaderboard() -> None:
    edges = graph()
    arrows = sum(len(targets) for targets in edges.values())
    print(f"import graph: {len(edges)} modules, {arrows} arrows")
    assert _cycles(edges) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset()}) == [
        ["a", "b", "c"]]


def test_layers_import_only_downwards() -> None:
    wrong = defaultdict(list)
    for name, targets in graph().items():
        for target in targets:
            if name.startswith("scoring") and target.startswith("leaderboard"):
                wrong[name].append(target)
            if name.startswith(("leaderboard.services", "leaderboard.models")) and target.startswith(
                    ("leaderboard.tasks", "leaderboard.views")):
                wrong[name].append(target)
    assert dict(wrong) == {}


def test_scoring_never_imports_django() -> None:
    modules = _modules()
    users = [name for name, path in modules.items() if name.startswith("scoring")
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, (ast.Import, ast.ImportFrom))
             and any((a.name if isinstance(node, ast.Import) else (node.module or "")).split(".")[0] == "django"
                     for a in node.names)]
    assert users == []
