"""``tpuemb explain``: what TensorFlow will do with each table of a spec or config, or with one
optimizer."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from tpuemb_cli import formatters
from tpuemb_cli.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    Streams,
    error,
    max_size_option,
    read_input,
    run,
    type_option,
)
from tpuemb_cli.model.findings import Severity

if TYPE_CHECKING:
    from tpuemb_cli.load import Document


def execute(path: str, message_type: str | None, max_bytes: int, streams: Streams) -> int:
    from tpuemb_cli.formatters.explain import explain_document
    from tpuemb_cli.load import Document, load_input
    from tpuemb_cli.model import schema

    read = read_input(path, max_bytes, streams)
    if read is None:
        return EXIT_ERROR
    item, data = read
    # Loaded as `check` loads a file it is given: one that is not a TPU embedding document is
    # told so, not explained as an empty config.
    document = load_input(data, item.name, message_type)
    assert isinstance(document, Document)  # only walked files are skipped
    if document.message is None:
        fatal = [p for p in document.problems if p.fatal]
        if fatal and fatal[0].rule == "not-an-embedding-document":
            error(streams, f"{item.name}: {fatal[0].message}; {fatal[0].fix}")
        else:
            error(streams, f"{item.name}: does not parse; run `tpuemb check` on it")
        return EXIT_FINDINGS
    kind = schema.kind_of(document.message)
    if kind in ("graph", "saved_model"):
        error(
            streams,
            f"{item.name}: a {document.message.DESCRIPTOR.name}: explain shows a config, a spec "
            "or an optimizer; `tpuemb check` lints a graph's TPU embedding ops and their configs",
        )
        return EXIT_ERROR
    if kind == "spec" and not _compiles(document, streams):
        error(streams, f"{item.name}: not explained: the spec has errors")
        return EXIT_FINDINGS
    streams.out.write(explain_document(document))
    return EXIT_OK


def _compiles(document: Document, streams: Streams) -> bool:
    """Whether a spec compiles (has no error), as `tpuemb compile` decides; its errors go to
    stderr. A spec with errors is one TensorFlow would refuse or `compile` would not build, so
    what it "compiles to" would be made up."""
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.engine.discovery import Resolver
    from tpuemb_cli.engine.settings import SettingsError

    try:
        settings = Resolver().for_file(document.name)
    except SettingsError as problem:
        error(streams, str(problem))
        return False
    errors = [f for f in Engine(settings).lint(document) if f.severity is Severity.ERROR]
    if errors:
        streams.err.write(formatters.get("concise")(formatters.Report(errors, 1), False))
    return not errors


@click.command("explain")
@click.argument("path")
@type_option
@max_size_option
def command(path: str, message_type: str | None, max_bytes: int) -> None:
    """Show what TensorFlow will do with each table of a spec or config, or with an optimizer."""
    run(execute, path, message_type, max_bytes, Streams.standard())
