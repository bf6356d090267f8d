"""The layer guard: every import between tpuemb's modules, read from their source, against the
layer order (tests/test_architecture.py runs it on the package, and on scratch copies with a
violation planted, which it must catch).

An import is any of: ``import a.b`` and ``from a import b`` at the top of a module, in a
function, or under ``if TYPE_CHECKING:`` (a dependency is a dependency); a relative import
(``from ..engine import Engine``), resolved against the module's package; a name taken from the
package facade (``from tpuemb_cli import lint_file`` is an import of ``tpuemb_cli.api``); and a
string that names a module of ours (``importlib.import_module("tpuemb_cli.cli.check")``, a
registry row).

What is checked:
- no module imports a layer above its own, nor (below ``cli``) a sibling package of its layer;
- no cycle between modules, counting every import that runs (top-level and in functions; not
  ``TYPE_CHECKING`` imports, which never run, nor registry strings, which are data a package
  keeps about its own modules);
- no private name (``_name``) imported from another module;
- the allow-list below, each entry with its reason, and no entry that allows nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import NamedTuple

PACKAGE = "tpuemb_cli"

# The layers, lowest first; a module may import its own layer and the ones below.
LAYERS: dict[str, int] = {
    "pb": 0,
    "model": 1,
    "load": 2,
    "spec": 3,
    "rules": 4,
    # Checkpoint compatibility (`tpuemb diff`): beside the rules, on the spec compiler.
    "compat": 4,
    "engine": 5,
    # The application layer: settings, engines and one document's lint for every front end.
    "workspace": 6,
    "fix": 6,
    "formatters": 6,
    "views": 6,
    "cli": 7,
    # The language server: a front end beside the command line (the only user of pygls).
    "server": 7,
    # The public API and the runtime guards: facades over the layers, imported by users only.
    "api": 7,
    "tf": 7,
    "jax": 7,
    "keras": 7,
    "guards": 7,
    "__main__": 7,
    # The package itself: `__version__`, and the API's names, loaded lazily (the facade).
    "": 7,
}

# The facade's lazy names, and the module each comes from (tpuemb_cli/__init__.py).
FACADE_NAMES = {
    "lint_file": "tpuemb_cli.api",
    "lint_message": "tpuemb_cli.api",
    "lint_string": "tpuemb_cli.api",
    "Finding": "tpuemb_cli.model.findings",
    "Severity": "tpuemb_cli.model.findings",
}

# Imports the rules above would refuse, each allowed for the reason given: (importer, imported).
# Empty: every exception that once stood here was fixed in the code instead. An entry that no
# longer allows anything is itself reported.
ALLOWED: dict[tuple[str, str], str] = {}


class Edge(NamedTuple):
    """One import: who imports what, how, and whether it runs (a TYPE_CHECKING import does
    not, and a registry string is data)."""

    importer: str
    imported: str
    line: int
    runs: bool
    names: tuple[str, ...] = ()  # the names a `from` import takes


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path) -> dict[str, Path]:
    """Every module of the package under ``root`` but the generated code (pb/)."""
    return {
        module_name(root, path): path
        for path in sorted(root.rglob("*.py"))
        if path.relative_to(root).parts[:1] != ("pb",)
    }


def layer(module: str) -> tuple[str, int]:
    top = module.split(".")[1] if "." in module else ""
    if top not in LAYERS:
        raise AssertionError(f"{module}: a package the layers do not name (add it to LAYERS)")
    return top, LAYERS[top]


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _walk(tree: ast.Module) -> Iterator[tuple[ast.AST, bool]]:
    """Every node, with whether the code it belongs to runs (not under TYPE_CHECKING)."""
    stack: list[tuple[ast.AST, bool]] = [(tree, True)]
    while stack:
        node, runs = stack.pop()
        yield node, runs
        for child in ast.iter_child_nodes(node):
            stack.append((child, runs and not _type_checking(node)))


def edges(known: frozenset[str], module: str, path: Path) -> tuple[Edge, ...]:
    """The imports of ``module`` (at ``path``) of other modules of ours."""
    return _edges(known, module, path.name == "__init__.py", path.read_text(encoding="utf-8"))


@cache  # the planted-violation tests read 200 unchanged copies of each module
def _edges(known: frozenset[str], module: str, is_package: bool, text: str) -> tuple[Edge, ...]:
    tree = ast.parse(text)
    package = module if is_package else module.rpartition(".")[0]
    found: list[Edge] = []

    def add(target: str, line: int, runs: bool, names: tuple[str, ...] = ()) -> None:
        if target != module:
            found.append(Edge(module, target, line, runs, names))

    for node, runs in _walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    add(alias.name, node.lineno, runs)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            if base.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                child = f"{base}.{alias.name}"
                if child in known:
                    add(child, node.lineno, runs)
                elif base == PACKAGE and alias.name in FACADE_NAMES:
                    add(FACADE_NAMES[alias.name], node.lineno, runs, (alias.name,))
                elif base == PACKAGE and alias.name.startswith("__"):
                    continue  # `__version__`: the package's own module imports nothing
                else:
                    add(base, node.lineno, runs, (alias.name,))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith(f"{PACKAGE}.")
            and node.value in known
        ):
            # A module named in a string: importlib, a registry row. It is a dependency for the
            # layers, and data (not an import that runs here) for cycles.
            add(node.value, node.lineno, False)
    return tuple(found)


def violations(root: Path) -> list[str]:
    """What breaks the rules in the package under ``root``, one message each."""
    known = modules(root)
    names = frozenset(known)
    problems: list[str] = []
    used: set[tuple[str, str]] = set()
    graph: dict[str, set[str]] = {module: set() for module in known}
    for module, path in known.items():
        own, level = layer(module)
        for edge in edges(names, module, path):
            if edge.imported.startswith(f"{PACKAGE}.pb"):
                continue
            if edge.runs and edge.imported in known:
                graph[module].add(edge.imported)
            other, other_level = layer(edge.imported)
            where = f"{module}:{edge.line}"
            for name in edge.names:
                if name.startswith("_") and not name.startswith("__"):
                    problems.append(f"{where} imports the private name {name} of {edge.imported}")
            wrong = other_level > level or (
                other_level == level and other != own and level < LAYERS["cli"]
            )
            if not wrong:
                continue
            if (module, edge.imported) in ALLOWED:
                used.add((module, edge.imported))
                continue
            how = "up the chain" if other_level > level else "from its sibling layer"
            problems.append(f"{where} ({own}) imports {edge.imported} ({other}) {how}")
    problems.extend(f"allowed, but no such import: {pair}" for pair in set(ALLOWED) - used)
    problems.extend(_cycles(graph))
    return problems


def _cycles(graph: dict[str, set[str]]) -> list[str]:
    """Each cycle of the import graph, once (found by Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[str] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
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
                    found.append("import cycle between " + ", ".join(sorted(component)))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found
