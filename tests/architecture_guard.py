"""The layer guard: every import between tpuemb's modules, read from their source, against the
layer order (tests/test_architecture.py runs it on the package, and on scratch copies with a
violation planted, which it must catch).

An import is any of: ``import a.b`` and ``from a import b`` at the top of a module, in a
function, or under ``if TYPE_CHECKING:`` (a dependency is a dependency); a relative import
(``from ..engine import Engine``), resolved against the module's package; a name taken from the
package facade (``from tpuemb_cli import lint_file`` is an import of ``tpuemb_cli.api``); a
front-end's facade by the name its import hook gives it (``import tpuemb_cli.torchrec`` is an
import of ``tpuemb_cli.frontends.torchrec.api``); and a string that names a module of ours
(``importlib.import_module("tpuemb_cli.cli.check")``, a registry row).

What is checked:
- no module imports a layer above its own, nor (below ``cli``) a sibling package of its layer;
- the top layer's packages are independent of each other: ``cli`` (with ``__main__``, the
  console script), ``server`` and the public API (``api``, ``tf``, ``jax``, ``keras``,
  ``guards``, the package facade and each front-end's ``frontends/<name>/api.py``) import none
  of the others -- each is a way in to the
  layers below, and the command line and the language server go through the workspace, not
  through the API's facades;
- front-ends are independent of each other and of the top layer: a module of one front-end
  (``FRONTENDS``) imports no module of another, nor ``cli``, ``server`` or the API;
- no dynamic import of a name that is not a literal string (``importlib.import_module(f"..{x}")``,
  ``import_module("a." + name)``, ``__import__(x)``, under any alias), no importing function
  taken out of a call, no code run from text or loaded from a path (``exec``, ``eval``,
  ``runpy.run_path``, ``spec_from_file_location``, ``exec_module``): the guard reads the
  modules a literal names, and a computed name hides its target. Registries
  that import a module named in a row (a literal string the guard reads) are listed in
  ``DYNAMIC_IMPORTS``, each with its reason;
- no private name (``_name``) of another module of ours, imported (``from m import _x``) or
  reached through the module (``m._x``, ``pkg.m._x``, ``getattr(m, "_x")``, ``vars(m)["_x"]``,
  ``m.__dict__["_x"]``, a name the module was assigned to, ``sys.modules["m"]._x``);
- no cycle between modules, counting every import that runs (top-level and in functions; not
  ``TYPE_CHECKING`` imports, which never run, nor registry strings, which are data a package
  keeps about its own modules);
- the allow-lists below, each entry with its reason, and no entry that allows nothing.
"""

from __future__ import annotations

import ast
import fnmatch
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

# The top layer: each package (a key of LAYERS at the top level) and the group it belongs to. A
# module imports no module of another group.
TOP_GROUPS: dict[str, str] = {
    "cli": "cli",
    "__main__": "cli",  # the console script: `cli.console.run`
    "server": "server",
    "api": "api",
    "tf": "api",
    "jax": "api",
    "keras": "api",
    "guards": "api",
    "": "api",  # the package facade: the API's names, loaded lazily
}

# The front-ends: one ecosystem each, and the modules that are its own (fnmatch patterns of
# module names; a pattern names the module and, for a package, what is under it). Until the
# front-ends are packages, these are the modules that carry an ecosystem's name: its public
# facade, its rules and its spec modules. Every package under tpuemb_cli/frontends/ is a
# front-end too (`frontends`), named by its folder: once they land, that folder is the one place.
FRONTENDS: dict[str, tuple[str, ...]] = {
    "tensorflow": ("tpuemb_cli.tf",),
    "jax": ("tpuemb_cli.jax",),
    "keras": ("tpuemb_cli.keras",),
}
FRONTENDS_PACKAGE = "frontends"
# The layer of the registration and of each front-end's record (its package's __init__): the
# model's, so that every layer above reads what a front-end adds to it (its schema rows, file
# formats, rules, options).
FRONTEND_RECORDS = "model"
# A front-end's module beside the API (``frontends/<name>/api.py``): the one top-layer module a
# front-end may hold, in the API's group.
FRONTEND_FACADE = "api"

# Imports the rules above would refuse, each allowed for the reason given: (importer, imported).
# An entry that no longer allows anything is itself reported.
ALLOWED: dict[tuple[str, str], str] = {
    ("tpuemb_cli.cli.server", "tpuemb_cli.server.handshake"): (
        "`tpuemb server` starts the language server: the command line's one way into it, "
        "imported once the `server` extra is found, the only import between the two"
    ),
    ("tpuemb_cli.frontends.keras.spec.plan", "tpuemb_cli.frontends.jax.spec.compiler"): (
        "Keras-RS on the JAX backend stacks its SparseCore tables with jax-tpu-embedding's "
        "stacking: the Keras front-end plans with the JAX front-end's, until the stacking "
        "shared by both moves below them (issue 37, point 1)"
    ),
    ("tpuemb_cli.frontends.keras.spec.plan", "tpuemb_cli.frontends.jax.spec.layout"): (
        "as keras_plan -> jax_compiler: Keras-RS's JAX backend is jax-tpu-embedding's layout"
    ),
    ("tpuemb_cli.frontends.keras.spec.plan", "tpuemb_cli.frontends.jax.spec.stacking"): (
        "as keras_plan -> jax_compiler: Keras-RS's JAX backend is jax-tpu-embedding's stacking"
    ),
    ("tpuemb_cli.frontends.keras.views.model", "tpuemb_cli.frontends.jax.views.spec"): (
        "as keras_plan -> jax_compiler: a Keras-RS layer on the JAX backend is shown as "
        "jax-tpu-embedding's stacks"
    ),
    ("tpuemb_cli.frontends.keras.compat.weights", "tpuemb_cli.frontends.jax.spec.memory"): (
        "as keras_plan -> jax_compiler: a Keras-RS layer on the JAX backend saves the stacked "
        "variables jax-tpu-embedding's memory model lays out"
    ),
    ("tpuemb_cli.frontends.keras.views.model", "tpuemb_cli.frontends.jax.spec.memory"): (
        "as keras_plan -> jax_compiler: a Keras-RS layer on the JAX backend takes the memory "
        "jax-tpu-embedding's model says"
    ),
    ("tpuemb_cli.frontends.keras.views.model", "tpuemb_cli.frontends.jax.spec.memory_record"): (
        "as keras_plan -> jax_compiler: its report is jax-tpu-embedding's report of the layer"
    ),
    ("tpuemb_cli.frontends.keras.spec.plan", "tpuemb_cli.frontends.jax.spec.named_optimizers"): (
        "as keras_plan -> jax_compiler: a Keras-RS layer's stacks name their optimizers as "
        "jax-tpu-embedding 0.2.0's proto does"
    ),
    ("tpuemb_cli.frontends.keras.spec.conversion", "tpuemb_cli.frontends.jax.spec.stacking"): (
        "as keras_plan -> jax_compiler: a Keras-RS layer's spec is stacked as jax-tpu-embedding "
        "stacks it"
    ),
}

# Dynamic imports of a name that is not a literal, each allowed for the reason given:
# (importer, the argument's source). A registry whose rows name modules by literal strings is
# read by the guard through those strings; the call that imports a row's module is listed here.
DYNAMIC_IMPORTS: dict[tuple[str, str], str] = {
    ("tpuemb_cli.cli.main", "row[0]"): (
        "COMMANDS: each command's module is a literal string in its row, imported when the "
        "command runs (start-up pays only for the command used)"
    ),
    ("tpuemb_cli.formatters", "FORMATS[ALIASES.get(name, name)]"): (
        "FORMATS: each output format's module is a literal string in its row (or registered "
        "by name), imported when the format is asked for"
    ),
    ("tpuemb_cli.views.memory_formats", "RENDERERS[name]"): (
        "RENDERERS: each `explain --memory` format's module is a literal string in its row, "
        "imported when the format is asked for"
    ),
    ("tpuemb_cli.rules", "entry.module"): (
        "CATALOG: each rule's module is a literal string in its catalog row, imported when "
        "the rule runs"
    ),
    ("tpuemb_cli.model.schema", "row.module"): (
        "the schema rows: each message type's generated module (tpuemb_cli.pb) is a literal "
        "string in its row, imported when a document of the type is read"
    ),
    ("tpuemb_cli.frontends", "package"): (
        "REGISTERED: each front-end's package is a literal string in the registration, its "
        "record imported when the front-ends are first asked for"
    ),
    ("tpuemb_cli.frontends", "name"): (
        "each front-end's modules (engine, views, compat) are literal strings of its record, "
        "each imported when a document of a kind it owns first needs it"
    ),
    ("tpuemb_cli", "module"): (
        "a front-end's facade (`tpuemb_cli.<name>`): its module is a literal string of its "
        "record (`api`), imported when a user imports the facade"
    ),
    ("tpuemb_cli.frontends", "front_end.rules"): (
        "each front-end's rules module is a literal string of its record, imported when the "
        "catalog is first read (its rows appended to the catalog's)"
    ),
    ("tpuemb_cli.load.encodings", "self.codec"): (
        "ENCODINGS: each encoding's codec module is a literal string in its row, imported "
        "when a file of the encoding is read"
    ),
    ("tpuemb_cli.load.encodings.json", "reader"): (
        "a message type's own JSON reader (a Keras model's config.json: its front-end's "
        "load/config), a literal string of the module's full name on the type's row (`json_reader`)"
    ),
    # Not an import: code run from text, which the guard refuses whatever it says.
    (
        "tpuemb_cli.model.records",
        "compile(source, '<string>', 'eval', dont_inherit=True)",
    ): (
        "a record's `__new__` for more than 32 fields (fewer are written out in the module): the "
        "lambda `collections.namedtuple` compiles for it (`lambda _cls, f0, f1: _tuple_new(_cls, "
        "(f0, f1))`, the text built from the count alone, run in a namespace without builtins), "
        "compiled here without the rest of a namedtuple; it imports nothing"
    ),
    ("tpuemb_cli.__main__", "self.__name__"): (
        "DEFERRED: the modules the console script defers, literal strings in that tuple, each "
        "imported by its own name when first used"
    ),
    ("tpuemb_cli.__main__", "package"): (
        "DEFERRED: the package of a module the console script defers (a literal string in that "
        "tuple), imported before the module is deferred"
    ),
}


class Edge(NamedTuple):
    """One import: who imports what, how, and whether it runs (a TYPE_CHECKING import does
    not, and a registry string is data)."""

    importer: str
    imported: str
    line: int
    runs: bool
    names: tuple[str, ...] = ()  # the names a `from` import takes
    named: bool = False  # a module named in a string (a registry row), not an import statement


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
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    if top == FRONTENDS_PACKAGE:
        return _frontend_layer(module, parts)
    if top not in LAYERS:
        raise AssertionError(f"{module}: a package the layers do not name (add it to LAYERS)")
    return top, LAYERS[top]


def _frontend_layer(module: str, parts: list[str]) -> tuple[str, int]:
    """A front-end's module sits in the layer it is named for (``frontends.keras.engine``: the
    engine's; ``frontends.keras.views.memory``: the views'), under that layer's rules. The
    registration (``frontends``) and each front-end's record (``frontends.keras``) sit beside
    the model's records: every layer above reads them."""
    if len(parts) <= 3:
        return FRONTEND_RECORDS, LAYERS[FRONTEND_RECORDS]
    named = parts[3]
    if named == FRONTEND_FACADE and len(parts) == 4:
        # Its facade (``FrontEnd.api``: users import it as ``tpuemb_cli.<name>``) is the API's.
        return FRONTEND_FACADE, LAYERS[FRONTEND_FACADE]
    if named not in LAYERS or LAYERS[named] >= LAYERS["cli"]:
        raise AssertionError(
            f"{module}: a front-end's module is named for a layer below the top one "
            f"({', '.join(k for k, v in LAYERS.items() if k and v < LAYERS['cli'])})"
        )
    return named, LAYERS[named]


@cache  # each module's text is parsed and walked once, for every check and every scratch copy
def _nodes(text: str) -> tuple[tuple[ast.AST, bool], ...]:
    """Every node of ``text``, with whether its code runs (see ``_walk``)."""
    return tuple(_walk(ast.parse(text)))


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


def facade_module(known: frozenset[str], name: str) -> str:
    """The module ``name`` stands for: a front-end's facade for ``tpuemb_cli.<name>`` (and what
    is under it), which the package's import hook finds as ``frontends/<name>/api.py`` when no
    module of that name is the package's; else ``name`` itself."""
    parts = name.split(".")
    if len(parts) < 2 or parts[0] != PACKAGE or name in known:
        return name
    facade = f"{PACKAGE}.{FRONTENDS_PACKAGE}.{parts[1]}.{FRONTEND_FACADE}"
    if facade in known and f"{PACKAGE}.{parts[1]}" not in known:
        return facade
    return name


@cache  # the planted-violation tests read 200 unchanged copies of each module
def _edges(known: frozenset[str], module: str, is_package: bool, text: str) -> tuple[Edge, ...]:
    package = module if is_package else module.rpartition(".")[0]
    found: list[Edge] = []

    def add(
        target: str, line: int, runs: bool, names: tuple[str, ...] = (), named: bool = False
    ) -> None:
        target = facade_module(known, target)
        if target != module:
            found.append(Edge(module, target, line, runs, names, named))

    for node, runs in _nodes(text):
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
                if child in known or facade_module(known, child) in known:
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
            and facade_module(known, node.value) in known
        ):
            # A module named in a string: importlib, a registry row. It is a dependency for the
            # layers, and data (not an import that runs here) for cycles.
            add(node.value, node.lineno, False, named=True)
    return tuple(found)


def _table_of_contents(module: str, edge: Edge) -> bool:
    """Whether ``edge`` is a front-end's record naming one of its own modules in a string: the
    record lists its modules whatever their layer (the registration imports each when asked),
    and the modules themselves keep the layers."""
    parts = module.split(".")
    return (
        edge.named
        and len(parts) == 3
        and parts[1] == FRONTENDS_PACKAGE
        and edge.imported.startswith(f"{module}.")
    )


def frontends(root: Path) -> dict[str, tuple[str, ...]]:
    """Each front-end and the patterns of its modules: ``FRONTENDS``, and each package under
    ``frontends/`` (its registration module, ``frontends/__init__.py``, is none of them)."""
    found = dict(FRONTENDS)
    folder = root / FRONTENDS_PACKAGE
    if folder.is_dir():
        for package in sorted(folder.iterdir()):
            if (package / "__init__.py").is_file():
                own = f"{PACKAGE}.{FRONTENDS_PACKAGE}.{package.name}"
                found[package.name] = (*found.get(package.name, ()), own)
    return found


def frontend_of(module: str, patterns: dict[str, tuple[str, ...]]) -> str | None:
    """The front-end ``module`` belongs to, if any."""
    for name, owned in patterns.items():
        for pattern in owned:
            if fnmatch.fnmatchcase(module, pattern) or module.startswith(f"{pattern}."):
                return name
    return None


def top_group(module: str) -> str | None:
    """The group of the top layer ``module`` belongs to (cli, server, api), if any."""
    parts = module.split(".")
    if len(parts) == 4 and parts[1] == FRONTENDS_PACKAGE and parts[3] == FRONTEND_FACADE:
        return TOP_GROUPS[FRONTEND_FACADE]  # a front-end's facade
    top = parts[1] if len(parts) > 1 else ""
    return TOP_GROUPS.get(top)


def violations(root: Path) -> list[str]:
    """What breaks the rules in the package under ``root``, one message each."""
    known = modules(root)
    names = frozenset(known)
    owned = frontends(root)
    problems: list[str] = []
    used: set[tuple[str, str]] = set()
    used_dynamic: set[tuple[str, str]] = set()
    graph: dict[str, set[str]] = {module: set() for module in known}
    for module, path in known.items():
        own, level = layer(module)
        group, frontend = top_group(module), frontend_of(module, owned)
        text = path.read_text(encoding="utf-8")
        is_package = path.name == "__init__.py"
        for edge in _edges(names, module, is_package, text):
            if edge.imported.startswith(f"{PACKAGE}.pb"):
                continue
            if edge.runs and edge.imported in known:
                graph[module].add(edge.imported)
            where = f"{module}:{edge.line}"
            for name in edge.names:
                if name.startswith("_") and not name.startswith("__"):
                    problems.append(f"{where} imports the private name {name} of {edge.imported}")
            wrong = _refused(edge.imported, own, level, group, frontend, owned)
            if wrong is None or _table_of_contents(module, edge):
                continue
            if (module, edge.imported) in ALLOWED:
                used.add((module, edge.imported))
                continue
            problems.append(f"{where} ({own}) imports {edge.imported} {wrong}")
        for line, argument in _dynamic_imports(text):
            if (module, argument) in DYNAMIC_IMPORTS:
                used_dynamic.add((module, argument))
                continue
            problems.append(
                f"{module}:{line} imports a module whose name is not a literal ({argument}): "
                "name it in a literal string (or list the registry in DYNAMIC_IMPORTS)"
            )
        for line, target, name in _private_attributes(names, module, is_package, text):
            problems.append(f"{module}:{line} reaches the private name {name} of {target}")
    problems.extend(f"allowed, but no such import: {pair}" for pair in set(ALLOWED) - used)
    problems.extend(
        f"allowed, but no such dynamic import: {pair}"
        for pair in sorted(set(DYNAMIC_IMPORTS) - used_dynamic)
    )
    problems.extend(_cycles(graph))
    return problems


def _refused(
    imported: str,
    own: str,
    level: int,
    group: str | None,
    frontend: str | None,
    owned: dict[str, tuple[str, ...]],
) -> str | None:
    """Why importing ``imported`` is refused to a module of package ``own`` at ``level`` (in
    the top layer's ``group``, of ``frontend``), or None when it is allowed."""
    other, other_level = layer(imported)
    other_group = top_group(imported)
    # The front-end rule first: it says more than "up the chain" about a front-end's import.
    if frontend is not None:
        other_frontend = frontend_of(imported, owned)
        if other_frontend is not None and other_frontend != frontend:
            return f"({other}): the {frontend} front-end imports the {other_frontend} front-end"
        if other_group is not None and other_group != group:
            return f"({other}): the {frontend} front-end imports the top layer ({other_group})"
    if other_level > level:
        return f"({other}) up the chain"
    if other_level == level and other != own and level < LAYERS["cli"]:
        return f"({other}) from its sibling layer"
    if group is not None and other_group is not None and other_group != group:
        return f"({other}): {group} and {other_group} are independent packages of the top layer"
    return None


# Calls that import the module their first argument names: `importlib.import_module(name)` (under
# any alias of importlib), `import_module(name)` (however it was imported), `__import__(name)`,
# `runpy.run_module(name)`. Refused whatever their argument: code run by its text (`exec`,
# `eval`, `compile`, whose code a `FunctionType` or `exec` then runs) or loaded from a path
# (`runpy.run_path`, `spec_from_file_location`, `exec_module`, `load_module`), which names no
# module the guard can read; and an importing function taken out of a call (`load =
# importlib.import_module`, `getattr(importlib, "import_module")`), which hides the calls made
# through it.
_IMPORTING_ATTRIBUTES = frozenset({"import_module", "__import__", "run_module"})
_CODE_RUNNERS = frozenset({"exec", "eval", "compile"})
_PATH_LOADERS = frozenset({"run_path", "spec_from_file_location", "exec_module", "load_module"})


@cache
def _dynamic_imports(text: str) -> tuple[tuple[int, str], ...]:
    """Each call in ``text`` that imports a module by a name that is not a literal string (or
    runs code text, or loads it from a path), and each importing function taken out of a call:
    its line and the source of what hides the name."""
    nodes = [node for node, _ in _nodes(text)]
    importers = {"__import__"}  # names bound to an importing function
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module in ("importlib", "builtins", "runpy"):
            importers.update(
                alias.asname or alias.name
                for alias in node.names
                if alias.name in _IMPORTING_ATTRIBUTES
            )
    called = {id(node.func) for node in nodes if isinstance(node, ast.Call)}
    found: list[tuple[int, str]] = []
    for node in nodes:
        if isinstance(node, ast.Name | ast.Attribute) and id(node) not in called:
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in importers or name in _IMPORTING_ATTRIBUTES:
                found.append((node.lineno, ast.unparse(node)))
            continue
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        name = function.id if isinstance(function, ast.Name) else ""
        attribute = function.attr if isinstance(function, ast.Attribute) else ""
        taken = (
            name == "getattr"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in _IMPORTING_ATTRIBUTES
        )
        if name in _CODE_RUNNERS or attribute in _PATH_LOADERS or taken:
            found.append((node.lineno, ast.unparse(node)))
            continue
        if not (name in importers or attribute in _IMPORTING_ATTRIBUTES):
            continue
        argument = node.args[0] if node.args else None
        for keyword in node.keywords:
            if keyword.arg in ("name", "mod_name"):
                argument = keyword.value
        if argument is None or not (
            isinstance(argument, ast.Constant) and isinstance(argument.value, str)
        ):
            found.append((node.lineno, "" if argument is None else ast.unparse(argument)))
    return tuple(found)


@cache
def _private_attributes(
    known: frozenset[str], module: str, is_package: bool, text: str
) -> tuple[tuple[int, str, str], ...]:
    """Each private name of another module of ours that ``text`` reaches through the module:
    ``m._x`` where ``m`` is bound to a module of ours (``import a.b as m``, ``from a import
    b``, relative or not), ``a.b._x`` after ``import a.b``, and ``getattr(m, "_x")``."""
    nodes = [node for node, _ in _nodes(text)]
    package = module if is_package else module.rpartition(".")[0]
    bound: dict[str, str] = {}  # a local name -> the module of ours it is bound to
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != PACKAGE:
                    continue
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    bound[PACKAGE] = PACKAGE
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                if f"{base}.{alias.name}" in known or (base == "" and alias.name == PACKAGE):
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}".lstrip(".")

    def target(node: ast.expr) -> str | None:
        """The module of ours ``node`` stands for: a name bound to it, a chain of attributes,
        ``importlib.import_module("...")`` or ``sys.modules["..."]``."""
        if isinstance(node, ast.Name):
            return bound.get(node.id)
        if isinstance(node, ast.Attribute):
            parent = target(node.value)
            if parent is not None and f"{parent}.{node.attr}" in known:
                return f"{parent}.{node.attr}"
        named: ast.expr | None = None
        if isinstance(node, ast.Call) and node.args:
            function = node.func
            name = function.attr if isinstance(function, ast.Attribute) else ""
            name = function.id if isinstance(function, ast.Name) else name
            if name in _IMPORTING_ATTRIBUTES:
                named = node.args[0]
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "sys.modules":
            named = node.slice
        if isinstance(named, ast.Constant) and named.value in known:
            return str(named.value)
        return None

    # A module passed on by assignment (`m = recognise`): bound too (in the order written).
    for node in nodes:
        if isinstance(node, ast.Assign) and (module_of := target(node.value)) is not None:
            for name_node in node.targets:
                if isinstance(name_node, ast.Name):
                    bound[name_node.id] = module_of

    found: list[tuple[int, str, str]] = []
    for node in nodes:
        reached: tuple[ast.expr, str] | None = None
        if isinstance(node, ast.Attribute):
            reached = (node.value, node.attr)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            reached = (node.args[0], node.args[1].value)
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            # `vars(m)["_x"]`, `m.__dict__["_x"]`
            holder = node.value
            if isinstance(holder, ast.Call) and ast.unparse(holder.func) == "vars" and holder.args:
                reached = (holder.args[0], node.slice.value)
            elif isinstance(holder, ast.Attribute) and holder.attr == "__dict__":
                reached = (holder.value, node.slice.value)
        if reached is None:
            continue
        owner, name = reached
        if not name.startswith("_") or name.startswith("__"):
            continue
        where = target(owner)
        if where is not None and where != module and where in known | {PACKAGE}:
            found.append((owner.lineno, where, name))
    return tuple(found)


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
