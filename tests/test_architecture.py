"""The package tree is the flow: model < load < spec < rules, compat < engine < fix, formatters <
cli.

No module imports one above it in that chain (lazy and type-checking imports included: a
dependency is a dependency), fix and formatters do not import each other, and no chain of
imports that runs when a module is imported comes back to where it started.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent / "tpuemb_cli"

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
    "cli": 7,
    # The language server: a front end beside the command line (the only user of pygls).
    "server": 7,
    # The public API and the runtime guards: facades over the layers, imported by users only.
    "api": 7,
    "tf": 7,
    "guards": 7,
    "__main__": 7,
}
# The package itself is the public facade: `__version__`, and attributes that load lazily.
FACADE = "tpuemb_cli"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {
    _module_name(path): path
    for path in sorted(ROOT.rglob("*.py"))
    if "pb" not in path.relative_to(ROOT).parts[:1]
}


def _layer(module: str) -> tuple[str, int]:
    top = module.split(".")[1] if "." in module else ""
    assert top in LAYERS, f"{module}: a package the layers do not name (add it to LAYERS)"
    return top, LAYERS[top]


def _is_module(name: str) -> bool:
    return name in MODULES or (ROOT.parent / name.replace(".", "/")).with_suffix(".py").exists()


def _imports(path: Path, top_level_only: bool) -> set[str]:
    """The tpuemb modules ``path`` imports; ``from package import submodule`` counts as the
    submodule."""
    tree = ast.parse(path.read_text())
    module = _module_name(path) if path.is_relative_to(ROOT) else path.stem
    nodes = ast.walk(tree)
    if top_level_only:
        nodes = iter(
            n
            for n in tree.body
            if not (isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test))
        )
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("tpuemb_cli")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(FACADE):
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                found.add(child if _is_module(child) else node.module)
    found.discard(module)
    return found


@pytest.mark.parametrize("module", sorted(MODULES), ids=str)
def test_no_import_points_up_the_chain(module: str) -> None:
    if module == FACADE:
        return
    package, level = _layer(module)
    for imported in sorted(_imports(MODULES[module], top_level_only=False)):
        if imported == FACADE or imported.startswith("tpuemb_cli.pb"):
            continue
        other, other_level = _layer(imported)
        assert other_level <= level, f"{module} ({package}) imports {imported} ({other}): up"
        if other_level == level and other != package and level < LAYERS["cli"]:
            raise AssertionError(f"{module} ({package}) imports its sibling layer {imported}")


def test_no_import_cycle() -> None:
    graph = {module: _imports(path, top_level_only=True) for module, path in MODULES.items()}
    done: set[str] = set()

    def visit(module: str, stack: list[str]) -> None:
        if module in stack:
            cycle = stack[stack.index(module) :] + [module]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if module in done or module not in graph:
            return
        for imported in sorted(graph[module]):
            visit(imported, [*stack, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


def test_the_check_itself_catches_an_upward_import(tmp_path: Path) -> None:
    # A test that cannot fail is no test: an engine import in a rule module is caught.
    rule = tmp_path / "rule.py"
    rule.write_text("from tpuemb_cli.engine.runner import Engine\n")
    assert _imports(rule, top_level_only=False) == {"tpuemb_cli.engine.runner"}
    assert _layer("tpuemb_cli.engine.runner")[1] > _layer("tpuemb_cli.rules.config.unused_table")[1]
