"""The front-ends: one package per ecosystem, and the one place they are registered.

A front-end is everything one library's embedding configuration means to tpuemb: its message
types and file formats, how its files are read (``load/``), converted and sized (``spec/``),
linted (``engine.py``: the kinds of document it owns; ``rules/``), explained (``views/``) and
compared with a checkpoint (``compat/``), and its options (a Keras backend). Its package is
``frontends/<name>/``; its ``__init__.py`` holds its record (``FRONT_END``), and its modules are
named for the layer they sit in (``engine.py`` beside the engine, ``views/`` beside the views),
so that the layers hold across it. docs/architecture.md ("Adding a front-end") walks through one.

Registering a front-end is one line of ``REGISTERED``: the schema, the encodings, the rule
catalog, the engine, the settings, explain, diff, the command line, the server and the API reach
it through the functions below and name no ecosystem. A front-end's modules import no other
front-end's: one that needs another's kind of document (a Keras-RS layer's spec, linted as its
backend's library would) asks the engine to run that kind.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

from tpuemb_cli.model.records import Record

if TYPE_CHECKING:
    from tpuemb_cli.model.message_type import MessageType

# The functions a front-end's modules define, called with the engine, documents and facts of the
# layers above (typed there; the registration sits below them and names none of their types).
Lint = Callable[..., None]  # lint_<kind>(engine, message, emit, expected, facts)
Settle = Callable[..., None]  # settle_<kind>(engine, message)
Memory = Callable[..., Any]  # memory_<kind>(document, facts, engine) -> MemoryReport
Explain = Callable[..., Any]  # explain_<kind>(document, facts) -> (its header, its lines)

# The front-ends' packages, each a literal string (the architecture guard reads them): the one
# line a new front-end adds. The order is the order their options are listed in (`--help`,
# `--show-settings`).
REGISTERED: tuple[str, ...] = (
    "tpuemb_cli.frontends.tensorflow",
    "tpuemb_cli.frontends.jax",
    "tpuemb_cli.frontends.keras",
    "tpuemb_cli.frontends.torchrec",
)


class Option(Record):
    """A front-end's option: one name for the command line (``--<name>``), the settings
    (``<name> = ...`` in ``[tool.tpuemb]``), the server (which reads the settings) and
    ``--show-settings``; one of ``choices``, ``default`` when nobody says."""

    name: str  # keras-backend
    choices: tuple[str, ...]
    default: str
    help: str  # the command line's help, which the settings' errors quote too

    @property
    def key(self) -> str:
        """The Python name: ``keras_backend``."""
        return self.name.replace("-", "_")


class FileFormat(Record):
    """A file format a front-end reads (load/encodings' row, from here): its name (``--to``,
    ``lint_string(format=...)``), its extensions, its codec module (``load(data, name,
    message_type) -> Document``, ``render(message) -> bytes``; see load/encodings)."""

    name: str
    extensions: tuple[str, ...]
    codec: str
    no_fixes: str = ""
    writable: bool = True
    archive: bool = False
    text: bool = True
    # The format it is listed (and sniffed, for a name that says nothing) before: "" for last.
    before: str = ""


class FrontEnd(Record):
    """One ecosystem's registration."""

    name: str  # its package's name under frontends/
    title: str  # how users name it: "Keras-RS"
    # The kinds of document it lints (the schema rows' `kind`, and kinds other front-ends hand it:
    # a spec's `jax` section), each by the function of its ``engine`` module named `lint_<kind>`.
    kinds: tuple[str, ...]
    engine: str  # its module beside the engine, a literal string, imported when a kind is linted
    # Its module beside the views: `explain_<kind>(document, facts)` -> (header, lines), what
    # `explain` shows of a document of the kind (tpuemb's own types name theirs on their rows),
    # and `memory_<kind>(document, facts, engine)` -> MemoryReport, what `explain --memory`
    # reports ("": none).
    views: str = ""
    options: tuple[Option, ...] = ()
    # What it adds to the layers below, each read by the layer it belongs to: its message types
    # (the schema's rows, after tpuemb's), its file formats (load/encodings' rows), its rules
    # (a module beside the rules whose `CATALOG` the catalog appends) and its checkpoint
    # comparison (a module beside compat: `layout_<kind>(document, facts)` -> its Layout,
    # `changes_<family>(name, old, new, engine)` -> the document changes are placed in, and
    # the placed changes; a family without one is compared by compat/compare;
    # `checkpoint_<family>(document, checkpoint, prefix, facts)` -> the placed changes against a
    # TensorFlow checkpoint, else compat/checkpoint compares).
    types: tuple[MessageType, ...] = ()
    formats: tuple[FileFormat, ...] = ()
    rules: str = ""
    compat: str = ""
    # Its module beside the API: what users import as ``tpuemb_cli.<name>`` to lint live objects
    # (``spec_from_<name>``, ``lint_<name>``); the package's import hook finds it there.
    api: str = ""
    # Its module beside the loaders that reads a format of checkpoint of its own (``diff
    # --against-checkpoint``): ``is_checkpoint(path) -> bool``, told by the files, and
    # ``read_checkpoint(path, step, prefix)`` -> the checkpoint read (its ``format``, which
    # names the comparison ``against_<format>_<kind>``, ``what``, ``path`` and ``notes``), or
    # ``UnreadableCheckpoint`` (load/checkpoint_state) saying why ("": none).
    checkpoints: str = ""
    # What its checkpoints are, for `diff --against-checkpoint`'s help ("a ... for a ...").
    checkpoints_help: str = ""
    # Its module beside the loaders that reads its library's statistics files (``check
    # --stats``) in CSV: ``SOURCE`` (the reading's source), ``HEADER`` (its header, as an error
    # names it), ``is_header(header) -> bool`` and ``Totals`` (``add(file, text)``, then
    # ``stacks()``: combined as the library's ``load()`` combines files) ("": none).
    statistics: str = ""


@cache
def front_ends() -> tuple[FrontEnd, ...]:
    """Every registered front-end's record (their packages' ``__init__``, which import nothing
    but this module and the records)."""
    # REGISTERED's rows are literal strings: the architecture guard reads the modules they name.
    return tuple(importlib.import_module(package).FRONT_END for package in REGISTERED)


@cache
def _lints() -> dict[str, FrontEnd]:
    owners: dict[str, FrontEnd] = {}
    for front_end in front_ends():
        for kind in front_end.kinds:
            if kind in owners:
                raise ValueError(
                    f"the {front_end.name} and {owners[kind].name} front-ends both lint {kind!r}"
                )
            owners[kind] = front_end
    return owners


def by_kind(kind: str) -> FrontEnd | None:
    """The front-end that lints documents of ``kind``, if one does."""
    return _lints().get(kind)


def _module(front_end: FrontEnd, part: str) -> ModuleType | None:
    """The front-end's module for ``part`` ("engine", "views", "compat"), imported; None when
    its record names none."""
    name: str = getattr(front_end, part)
    # Each of a record's modules is a literal string of that record.
    return importlib.import_module(name) if name else None


@cache
def function_of(kind: str, part: str, prefix: str) -> Any:
    """The function ``<prefix>_<kind>`` of the ``part`` module of the front-end that lints
    ``kind``, if it has one: ``lint_<kind>`` and ``settle_<kind>`` (engine), ``explain_<kind>``
    and ``memory_<kind>`` (views), ``layout_<kind>`` (compat)."""
    front_end = by_kind(kind)
    module = _module(front_end, part) if front_end is not None else None
    return getattr(module, f"{prefix}_{kind}", None) if module is not None else None


def lint_of(kind: str) -> Lint | None:
    """The function that lints a document of ``kind`` (its front-end's ``lint_<kind>``)."""
    function: Lint | None = function_of(kind, "engine", "lint")
    return function


def settle_of(kind: str) -> Settle | None:
    """The function that writes into a document of ``kind`` what the settings decide of how it
    is read (its front-end's ``settle_<kind>``, if it has one): a Keras-RS model's target."""
    function: Settle | None = function_of(kind, "engine", "settle")
    return function


def memory_of(kind: str) -> Memory | None:
    """The function that builds the memory report of a document of ``kind`` (its front-end's
    ``memory_<kind>``), if it has one."""
    function: Memory | None = function_of(kind, "views", "memory")
    return function


def explain_of(kind: str) -> Explain | None:
    """The function that explains a document of ``kind`` (its front-end's ``explain_<kind>``),
    if it has one; tpuemb's own types name theirs on their schema rows (views/explain)."""
    function: Explain | None = function_of(kind, "views", "explain")
    return function


def compat_of(kind: str, what: str) -> Any:
    """The checkpoint comparison's function ``<what>_<kind>`` of the front-end that lints
    ``kind`` (``layout_<kind>``), if any."""
    return function_of(kind, "compat", what)


@cache
def changes_of(family: str, what: str = "changes") -> Any:
    """The comparison of two documents of checkpoint ``family``: the ``changes_<family>`` of the
    front-end whose compat module defines one (None: the common comparison, compat/compare);
    with ``what="checkpoint"``, its ``checkpoint_<family>(document, checkpoint, prefix,
    facts)``, a document of the family against a TensorFlow checkpoint (None: compat/checkpoint's
    comparison)."""
    for front_end in front_ends():
        module = _module(front_end, "compat")
        found = getattr(module, f"{what}_{family}", None) if module is not None else None
        if found is not None:
            return found
    return None


def checkpoint_readers() -> tuple[ModuleType, ...]:
    """Every front-end's checkpoint reader (its ``checkpoints`` module), imported, in the order
    of ``REGISTERED``: ``diff --against-checkpoint`` asks each whether a path is its checkpoint
    before TensorFlow's and Orbax's readers."""
    found = (_module(front_end, "checkpoints") for front_end in front_ends())
    return tuple(module for module in found if module is not None)


def rule_rows() -> tuple[Any, ...]:
    """Every front-end's rules' catalog rows (their rules modules' ``CATALOG``), in the order of
    ``REGISTERED``: for the catalog to append to its own."""
    rows: list[Any] = []
    for front_end in front_ends():
        if front_end.rules:
            # The front-end's rules module is a literal string of its record.
            rows.extend(importlib.import_module(front_end.rules).CATALOG)
    return tuple(rows)


def formats() -> tuple[FileFormat, ...]:
    """Every front-end's file formats, for load/encodings' rows."""
    return tuple(row for front_end in front_ends() for row in front_end.formats)


@cache
def options() -> tuple[Option, ...]:
    """Every front-end's options, in the order of ``REGISTERED``; no two share a name."""
    found: dict[str, Option] = {}
    for front_end in front_ends():
        for option in front_end.options:
            if option.name in found:
                raise ValueError(f"two front-ends declare the option {option.name!r}")
            found[option.name] = option
    return tuple(found.values())


def facade(name: str) -> str:
    """The module of the registered front-end whose API users import as ``tpuemb_cli.<name>``
    ("": none)."""
    for front_end in front_ends():
        if front_end.name == name and front_end.api:
            return front_end.api
    return ""


def checkpoints_help() -> str:
    """The checkpoints the front-ends read, each as its record says, for a command's help."""
    return "".join(f"; {f.checkpoints_help}" for f in front_ends() if f.checkpoints_help)


def statistics_readers() -> tuple[ModuleType, ...]:
    """Every front-end's statistics reader (its ``statistics`` module), imported, in the order
    of ``REGISTERED``."""
    found = (_module(front_end, "statistics") for front_end in front_ends())
    return tuple(module for module in found if module is not None)
