"""The front-ends: one package per ecosystem, and the one place they are registered.

A front-end is everything one library's embedding configuration means to tpuemb: how its
documents are linted (``engine.py``: the kinds of document it owns, the rules it runs on them),
what ``explain --memory`` reports of them (``views.py``), its options (a Keras backend) and, as
they move in, its loading and its checkpoints. Its
package is ``frontends/<name>/``; its ``__init__.py`` holds its record (``FRONT_END``), and its
modules are named for the layer they sit in (``engine.py`` beside the engine, ``views.py`` beside
the views), so that the layers hold across it.

Registering a front-end is one line of ``REGISTERED``: the engine, the settings, the command
line and the server reach it through ``by_kind`` and ``options`` and name no ecosystem. A
front-end's modules import no other front-end's: one that needs another's kind of document (a
Keras-RS layer's spec, linted as its backend's library would) asks the engine to run that kind.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from tpuemb_cli.model.records import Record

if TYPE_CHECKING:
    from tpuemb_cli.engine.runner import Emit, Engine
    from tpuemb_cli.load import Document
    from tpuemb_cli.model.memory_report import MemoryReport
    from tpuemb_cli.spec.drift import Expected
    from tpuemb_cli.spec.facts import SpecFacts

    # (the engine, the message, where findings go, a compiled spec's expectations, a spec's facts)
    Lint = Callable[[Engine, Any, Emit, Expected | None, SpecFacts | None], None]
    Settle = Callable[[Engine, Any], None]
    Memory = Callable[[Document, SpecFacts | None, Engine], MemoryReport]

# The front-ends' packages, each a literal string (the architecture guard reads them): the one
# line a new front-end adds. The order is the order their options are listed in (`--help`,
# `--show-settings`).
REGISTERED: tuple[str, ...] = (
    "tpuemb_cli.frontends.tensorflow",
    "tpuemb_cli.frontends.jax",
    "tpuemb_cli.frontends.keras",
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


class FrontEnd(Record):
    """One ecosystem's registration."""

    name: str  # its package's name under frontends/
    title: str  # how users name it: "Keras-RS"
    # The kinds of document it lints (the schema rows' `kind`, and kinds other front-ends hand it:
    # a spec's `jax` section), each by the function of its ``engine`` module named `lint_<kind>`.
    kinds: tuple[str, ...]
    engine: str  # its module beside the engine, a literal string, imported when a kind is linted
    # Its module beside the views: `memory_<kind>(document, facts, engine) -> MemoryReport`, what
    # `explain --memory` reports of a document of the kind ("": none).
    views: str = ""
    options: tuple[Option, ...] = ()


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


@cache
def lint_of(kind: str) -> Lint | None:
    """The function that lints a document of ``kind`` (its front-end's ``lint_<kind>``)."""
    front_end = by_kind(kind)
    if front_end is None:
        return None
    # The front-end's engine module is a literal string of its record.
    module = importlib.import_module(front_end.engine)
    function: Lint = getattr(module, f"lint_{kind}")
    return function


@cache
def settle_of(kind: str) -> Settle | None:
    """The function that writes into a document of ``kind`` what the settings decide of how it
    is read (its front-end's ``settle_<kind>``, if it has one): a Keras-RS model's target."""
    front_end = by_kind(kind)
    if front_end is None:
        return None
    module = importlib.import_module(front_end.engine)
    function: Settle | None = getattr(module, f"settle_{kind}", None)
    return function


@cache
def memory_of(kind: str) -> Memory | None:
    """The function that builds the memory report of a document of ``kind`` (its front-end's
    ``memory_<kind>``), if it has one."""
    front_end = by_kind(kind)
    if front_end is None or not front_end.views:
        return None
    # The front-end's views module is a literal string of its record.
    module = importlib.import_module(front_end.views)
    function: Memory | None = getattr(module, f"memory_{kind}", None)
    return function


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
