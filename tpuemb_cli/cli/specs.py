"""Reading the spec a command names (``compile SPEC``, ``check --spec SPEC``): loaded, linted
(through the workspace, as ``check`` lints a file), and compiled."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tpuemb_cli.cli.common import Streams, error, read_input

if TYPE_CHECKING:
    from tpuemb_cli.load import Document
    from tpuemb_cli.model.findings import Finding
    from tpuemb_cli.spec.drift import Expected
    from tpuemb_cli.workspace import Workspace


def load_spec(
    path: str, max_bytes: int, streams: Streams, workspace: Workspace | None = None
) -> tuple[Document, list[Finding]] | None:
    """A spec document and its findings, with the settings that govern it in ``workspace``
    (a new one, discovering its configuration, by default); None (after saying why) when it
    cannot be read, is no spec, or its configuration cannot be used."""
    from tpuemb_cli.model import schema
    from tpuemb_cli.workspace import Workspace

    read = read_input(path, max_bytes, streams)
    if read is None:
        return None
    item, data = read
    workspace = workspace or Workspace()
    linted = workspace.lint_document(data, item.name, message_type="EmbeddingSpec", exclude=False)
    if linted.error is not None:
        error(streams, linted.error)
        return None
    document = linted.document
    if document is None:  # tpuemb failed on it: its internal-error finding says how
        error(streams, f"{item.name}: {linted.findings[0].message}")
        return None
    if document.message is not None and schema.kind_of(document.message) != "spec":
        error(streams, f"{item.name}: not an embedding spec")
        return None
    return document, linted.findings


def compiled(document: Document) -> Expected | None:
    """What the spec ``document`` compiles to; None when it does not parse."""
    from tpuemb_cli.spec.compiler import compile_spec
    from tpuemb_cli.spec.drift import Expected

    if document.message is None:
        return None
    return Expected(document, compile_spec(document.message))  # type: ignore[arg-type]
