"""Reading the spec a command names (``compile SPEC``, ``check --spec SPEC``): loaded, linted,
and compiled."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tpuemb_cli.cli.common import Streams, error, print_tracebacks, read_input

if TYPE_CHECKING:
    from tpuemb_cli.load import Document
    from tpuemb_cli.model.findings import Finding
    from tpuemb_cli.spec.drift import Expected


def load_spec(path: str, max_bytes: int, streams: Streams) -> tuple[Document, list[Finding]] | None:
    """A spec document and its findings; None (after saying why) when it cannot be read."""
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.engine.discovery import Resolver
    from tpuemb_cli.engine.settings import SettingsError
    from tpuemb_cli.load import load_bytes
    from tpuemb_cli.model import schema

    read = read_input(path, max_bytes, streams)
    if read is None:
        return None
    item, data = read
    try:
        settings = Resolver().for_file(item.name)
    except SettingsError as problem:
        error(streams, str(problem))
        return None
    document = load_bytes(data, item.name, None, "EmbeddingSpec")
    if document.message is not None and schema.kind_of(document.message) != "spec":
        error(streams, f"{item.name}: not an embedding spec")
        return None
    engine = Engine(settings)
    findings = engine.lint(document)
    print_tracebacks(engine.crashes)
    return document, findings


def compiled(document: Document) -> Expected | None:
    """What the spec ``document`` compiles to; None when it does not parse."""
    from tpuemb_cli.spec.compiler import compile_spec
    from tpuemb_cli.spec.drift import Expected

    if document.message is None:
        return None
    return Expected(document, compile_spec(document.message))  # type: ignore[arg-type]
