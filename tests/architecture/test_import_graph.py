"""The import graph of scoring/ and leaderboard/: no cycle anywhere, and every layer imports only downwards.

Layers: ``scoring`` (no Django, nothing of the site) <- ``leaderboard`` models and services <- its tasks
and views. Function-level imports count: a cycle deferred into a function is still a cycle. The graph
(modules and arrows) is printed so that a run shows the size of the house. No module of scoring/,
leaderboard/ or bench/ uses another module's private ``_name``, and bench/ scripts put only the
repository's root on ``sys.path`` (test helpers are ``tests.helpers.<x>``).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("scoring", "leaderboard")
OURS = ("scoring", "leaderboard", "bench", "tests")  # first parts of this repository's module names


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


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_uses(name: str, path: Path) -> list[str]:
    """Another module's private names that ``name`` imports (``from m import _x``) or reads (``m._x``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: set[str] = set()  # local names bound to one of this repository's modules
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            ours = [a for a in node.names if a.name.split(".")[0] in OURS]
            modules.update(a.asname or a.name.split(".")[0] for a in ours)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            if base.split(".")[0] not in OURS:
                continue
            found += [f"{base}.{a.name}" for a in node.names if _private(a.name)]
            modules.update(a.asname or a.name for a in node.names
                           if (REPO / base.replace(".", "/") / f"{a.name}.py").exists())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules \
                and _private(node.attr):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def _bench_scripts() -> dict[str, Path]:
    return {f"bench.{path.stem}": path for path in sorted((REPO / "bench").glob("*.py"))}


def test_no_module_uses_another_modules_private_names() -> None:
    checked = {**_modules(), **_bench_scripts()}
    wrong = {name: uses for name, path in checked.items() if (uses := _private_uses(name, path))}
    assert wrong == {}


def test_the_private_name_finder_finds_both_forms(tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text("from leaderboard.services.boards.heatmaps import _expand, pairwise_tau_b\n"
                      "from leaderboard.services.boards import compare\n"
                      "from scoring.specs import catalog as _catalog\n"
                      "compare._numbers(a, b); compare.compare_numbers(a, b); self._x; compare.__name__\n")
    assert _private_uses("bench.script", script) == ["leaderboard.services.boards.heatmaps._expand",
                                                     "compare._numbers"]


def test_bench_scripts_put_only_the_repository_root_on_sys_path() -> None:
    wrong = []
    for name, path in _bench_scripts().items():
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and ast.unparse(node.func.value) == "sys.path" and node.func.attr in ("insert", "append"):
                entry = ast.unparse(node.args[-1])
                if " / " in entry:  # a folder inside the repository: its modules would import by bare name
                    wrong.append(f"{name}: {entry}")
    assert wrong == []


def _splits_on_the_signature_separator(path: Path) -> bool:
    """Whether a module splits or joins text on ``"|"`` (a signature's separator) with ``str.split``/``join``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "split" and node.args and ast.unparse(node.args[0]) in ("'|'", '"|"'):
                return True
            if node.func.attr == "join" and ast.unparse(node.func.value) in ("'|'", '"|"'):
                return True
    return False


def test_signatures_are_read_and_written_only_by_the_value_object(tmp_path: Path) -> None:
    allowed = {"scoring.signature",  # and regular-expression alternations, not signatures:
               "scoring.judge.parsing", "scoring.judge.profiles"}
    wrong = sorted(name for name, path in {**_modules(), **_bench_scripts()}.items()
                   if name not in allowed and _splits_on_the_signature_separator(path))
    assert wrong == []
    probe = tmp_path / "probe.py"
    probe.write_text('fields = dict(p.split(":", 1) for p in signature.split("|"))\n')
    assert _splits_on_the_signature_separator(probe)


def test_migrations_are_frozen() -> None:
    """A migration imports Django, the standard library and (for a field's default, as makemigrations writes it)
    ``leaderboard.models``, never live services or the library: live code changes, history must not."""
    wrong = []
    for path in sorted((REPO / "leaderboard" / "migrations").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            wrong += [f"{path.name}: {name}" for name in names
                      if name.split(".")[0] in OURS and not name.startswith("leaderboard.models")]
    assert wrong == []
