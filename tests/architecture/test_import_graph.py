"""The import graph of scoring/ and leaderboard/: no cycle anywhere, and every layer imports only downwards.

Layers: ``scoring`` (no Django, nothing of the site) <- ``leaderboard`` models and services <- its
selectors (the views' reads) <- its tasks and views. Inside services, a one-way stack of rooms: ``shared``
(the floor) <- ``policy`` <- ``pipeline``,
``references`` and ``boards``, which never import each other. Function-level imports count: a cycle deferred
into a function is still a cycle, and an upward import inside a function is still upward. The graph
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


MAX_SCORING_ROOT_MODULES = 13  # beyond the central ones, modules live in the sub-package of their idea


def test_scoring_keeps_few_modules_at_its_root() -> None:
    root = sorted(path.name for path in (REPO / "scoring").glob("*.py"))
    assert len(root) <= MAX_SCORING_ROOT_MODULES, root


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
                    ("leaderboard.tasks", "leaderboard.views", "leaderboard.selectors")):
                wrong[name].append(target)
            if name.startswith("leaderboard.selectors") and target.startswith(
                    ("leaderboard.tasks", "leaderboard.views")):
                wrong[name].append(target)
    assert dict(wrong) == {}


SERVICES = "leaderboard.services."
# Each room of services and the rooms below it that it may import (modules beside the rooms, such as
# ``services.openapi``, sit above them all).
ROOMS: dict[str, tuple[str, ...]] = {
    "shared": (),
    "policy": ("shared",),
    "pipeline": ("policy", "shared"),
    "references": ("policy", "shared"),
    "boards": ("policy", "shared"),
}


def _room(name: str) -> str | None:
    """``pipeline`` for ``leaderboard.services.pipeline.steps``; None outside services."""
    return name.removeprefix(SERVICES).split(".")[0] if name.startswith(SERVICES) else None


def _room_arrows(edges: dict[str, frozenset[str]]) -> dict[tuple[str, str], list[str]]:
    """Imports from a room to another module of services, by (room, imported room), as ``module -> module``."""
    arrows: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, targets in edges.items():
        room = _room(name)
        if room not in ROOMS:
            continue
        for target in sorted(targets):
            if (other := _room(target)) not in (None, room):
                arrows[(room, other)].append(f"{name} -> {target}")
    return arrows


def _against_the_order(arrows: dict[tuple[str, str], list[str]]) -> list[str]:
    return sorted(arrow for (room, other), found in arrows.items() if other not in ROOMS[room] for arrow in found)


def test_service_rooms_import_only_the_rooms_below() -> None:
    arrows = _room_arrows(graph())
    counts = [f"{room} -> {other}: {len(found)}" for (room, other), found in sorted(arrows.items())]
    print(f"arrows between service rooms: {', '.join(counts) or 'none'}")
    assert _against_the_order(arrows) == []


def test_the_room_order_finds_sideways_and_upward_arrows() -> None:
    edges = {"leaderboard.services.boards.ties": frozenset({"leaderboard.services.shared.scorers",
                                                            "leaderboard.services.pipeline.steps"}),
             "leaderboard.services.policy.access": frozenset({"leaderboard.services.openapi"}),
             "leaderboard.services.shared.queue": frozenset({"leaderboard.services.policy.refusals", "scoring"}),
             "leaderboard.views.api": frozenset({"leaderboard.services.boards.ties"})}
    assert _against_the_order(_room_arrows(edges)) == [
        "leaderboard.services.boards.ties -> leaderboard.services.pipeline.steps",
        "leaderboard.services.policy.access -> leaderboard.services.openapi",
        "leaderboard.services.shared.queue -> leaderboard.services.policy.refusals"]


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


# QuerySet and manager methods that nothing else a view handles has: a call of one is a query
QUERY_METHODS = frozenset({"all", "filter", "exclude", "order_by", "values_list", "annotate", "aggregate",
                           "select_related", "prefetch_related", "select_for_update", "exists", "first", "last",
                           "get_or_create", "update_or_create", "bulk_create", "bulk_update", "iterator", "distinct",
                           "only", "defer", "in_bulk"})
MANAGERS = frozenset({"objects", "_default_manager", "_base_manager"})
ORM_SHORTCUTS = frozenset({"get_object_or_404", "get_list_or_404"})


def _chain_root(node: ast.expr) -> ast.expr:
    """Where a chain starts: ``Split`` in ``Split.objects.filter(...).first()``."""
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _queries(node: ast.AST, models: set[str]) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in MANAGERS
    if isinstance(node, ast.ImportFrom):
        return node.module == "django.db.models"
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name):
        return node.func.id in ORM_SHORTCUTS
    if isinstance(node.func, ast.Attribute):
        root = _chain_root(node.func.value)
        return node.func.attr in QUERY_METHODS or (isinstance(root, ast.Name) and root.id in models)
    return False


def _orm_calls(path: Path) -> list[str]:
    """Lines of ``path`` that query through the ORM: a manager (``Model.objects``), a QuerySet method, a method
    of a model class imported from ``leaderboard.models``, ``get_object_or_404``, or ``django.db.models``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    models = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
              and (node.module or "").startswith("leaderboard.models") for a in node.names}
    found: dict[int, str] = {}
    for node in ast.walk(tree):
        if _queries(node, models):
            found.setdefault(node.lineno, ast.unparse(node))
    return [f"{line}: {text[:100]}" for line, text in sorted(found.items())]


def test_views_make_no_orm_call() -> None:
    """Views read through ``leaderboard.selectors`` and change state through services, never by a query."""
    wrong = {name: calls for name, path in _modules().items()
             if name.startswith("leaderboard.views") and (calls := _orm_calls(path))}
    assert wrong == {}


def test_the_orm_call_finder_finds_each_form(tmp_path: Path) -> None:
    probe = tmp_path / "view.py"
    probe.write_text("from django.db.models import Count\n"
                     "from leaderboard.models import ApiToken, Split\n"
                     "found = get_object_or_404(Split.objects.named(benchmark, split))\n"
                     "history = found.metric_values.filter(current=False)\n"
                     "users = get_user_model()._default_manager.all()\n"
                     "token, key = ApiToken.issue(user)\n"
                     "q, user, row = request.GET.get('q'), form.save(commit=False), Split(name='x')\n")
    assert [line.split(":")[0] for line in _orm_calls(probe)] == ["1", "3", "4", "5", "6"]


def test_signals_only_clear_caches() -> None:
    """The receivers forget what a save made stale, with ``services.<room>.cache``'s functions and nothing
    else: state changes (keying a split's signatures when its labels are hidden) are the services' own."""
    tree = ast.parse((REPO / "leaderboard" / "signals.py").read_text(encoding="utf-8"))
    imported = {node.module or "": [a.asname or a.name for a in node.names] for node in tree.body
                if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in OURS}
    caches = [module for module in imported if module.startswith("leaderboard.services.") and module.endswith(".cache")]
    allowed = {name for module in caches for name in imported[module]} | {"set", "frozenset", "len"}
    wrong = [f"import {module}" for module in imported if module not in caches and module != "leaderboard.models"]
    for function in (node for node in tree.body if isinstance(node, ast.FunctionDef)):
        for node in (inner for statement in function.body for inner in ast.walk(statement)):
            clears = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in allowed
            if isinstance(node, (ast.Import, ast.ImportFrom)) or (isinstance(node, ast.Call) and not clears):
                wrong.append(f"{function.name}: {ast.unparse(node)}")
    assert caches and wrong == []


WRITES = frozenset({"save", "create", "update", "delete", "bulk_create", "bulk_update", "get_or_create",
                    "update_or_create"})


def test_selectors_never_write() -> None:
    wrong = {name: calls for name, path in _modules().items() if name.startswith("leaderboard.selectors")
             and (calls := [f"{node.lineno}: {ast.unparse(node)}"
                            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                            and node.func.attr in WRITES])}
    assert wrong == {}
