"""``tpuemb convert``: a config (or spec, or graph) from one encoding to another, losslessly."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import click

from tpuemb_cli import formatters
from tpuemb_cli.cli import choices, inputs
from tpuemb_cli.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    Streams,
    error,
    max_size_option,
    read_input,
    run,
    stdin_option,
    type_option,
    write_output,
)
from tpuemb_cli.cli.main import Command
from tpuemb_cli.model.findings import Finding, Severity

if TYPE_CHECKING:
    from tpuemb_cli.load import Document


class ConvertOptions(NamedTuple):
    path: str
    to: str  # an encoding's name
    output: str | None = None
    message_type: str | None = None
    max_bytes: int = inputs.DEFAULT_MAX_BYTES
    stdin_filename: str | None = None


def execute(options: ConvertOptions, streams: Streams) -> int:
    from tpuemb_cli.load import encodings, load_bytes
    from tpuemb_cli.model.schema import DEFAULT_TYPE, header_name

    read = read_input(options.path, options.max_bytes, streams, options.stdin_filename)
    if read is None:
        return EXIT_ERROR
    item, data = read
    message_type = options.message_type or _mapping_type(data, item.name)
    document = load_bytes(data, item.name, None, message_type)
    if document.problems or document.message is None:
        # A file that does not parse cleanly would convert with fields missing.
        parse_findings = [f for f in _lint(document) if f.severity is Severity.ERROR]
        report = formatters.Report(parse_findings, 1)
        streams.err.write(formatters.get("concise")(report, False))
        error(streams, f"{item.name}: not converted: the input does not parse cleanly")
        return EXIT_FINDINGS
    try:
        output = encodings.get(options.to).render(document.message)
    except encodings.ConversionError as problem:
        error(streams, f"{item.name}: {problem}")
        return EXIT_ERROR
    if options.to == "text" and document.message_type != DEFAULT_TYPE:
        # Text says nothing of its type: the header does, so that the file reads back as what
        # it holds (TensorFlow's own textprotos carry one).
        header = f"# proto-message: {header_name(document.message_type)}\n"
        output = header.encode("utf-8") + output
    return write_output(output, options.output, streams, not encodings.get(options.to).text)


def _lint(document: Document) -> list[Finding]:
    """The findings of a document that did not parse cleanly, through the workspace's engine
    step: every rule with tpuemb's defaults (no configuration: ``convert`` reports why it
    refuses, and a configuration's selection would hide it)."""
    from tpuemb_cli.workspace import Workspace

    return Workspace(isolated=True).lint_loaded(document, on_disk=False).findings


def _mapping_type(data: bytes, name: str) -> str | None:
    """The type JSON or YAML holds, told by its fields as `check` tells it (a JAX
    EmbeddingSpecProto's `stackedTableSpecs`): they carry no `# proto-message:` header, and
    the loader's default would read them as a config (JSON) or a spec (YAML). None for text and
    binary (their header and bytes say), and for what is no document (the default's parse
    problems then say why)."""
    from tpuemb_cli.load import encodings
    from tpuemb_cli.load.identify import identify

    if encodings.detect(name, data).name not in ("json", "yaml"):
        return None  # not judged: a binary's judging parses it as every type
    identity = identify(data, name)
    return identity.message_type if identity.outcome == "load" else None


@click.command("convert", cls=Command)
@click.argument("path")
@click.option("--to", "to", type=choices.encodings(), required=True, help="Output format.")
@click.option("-o", "--output", metavar="OUT", help="Write here (atomically) instead of stdout.")
@type_option
@stdin_option
@max_size_option
def command(
    path: str,
    to: str,
    output: str | None,
    message_type: str | None,
    stdin_filename: str | None,
    max_bytes: int,
) -> None:
    """Convert a config between text format, JSON, binary and YAML, losslessly."""
    options = ConvertOptions(path, to, output, message_type, max_bytes, stdin_filename)
    run(execute, options, Streams.standard())
