"""``tpuemb compile``: an embedding spec to the TPUEmbeddingConfiguration TensorFlow would build."""

from __future__ import annotations

from typing import NamedTuple

import click

from tpuemb_cli import formatters
from tpuemb_cli.cli import choices, inputs
from tpuemb_cli.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    Streams,
    error,
    max_size_option,
    run,
    write_output,
)
from tpuemb_cli.model.findings import Severity


class CompileOptions(NamedTuple):
    path: str
    to: str = "text"  # an encoding's name
    output: str | None = None
    max_bytes: int = inputs.DEFAULT_MAX_BYTES


def execute(options: CompileOptions, streams: Streams) -> int:
    from tpuemb_cli.cli.specs import compiled, load_spec
    from tpuemb_cli.load import encodings

    loaded = load_spec(options.path, options.max_bytes, streams)
    if loaded is None:
        return EXIT_ERROR
    document, found = loaded
    if found:
        streams.err.write(formatters.get("concise")(formatters.Report(found, 1), False))
    if any(f.name == "internal-error" for f in found):
        error(streams, f"{document.name}: not compiled: tpuemb failed on it (a bug)")
        return EXIT_ERROR
    expected = compiled(document)
    if expected is None or any(f.severity is Severity.ERROR for f in found):
        error(streams, f"{document.name}: not compiled: the spec has errors")
        return EXIT_FINDINGS
    output = encodings.get(options.to).render(expected.compiled.config)
    return write_output(output, options.output, streams)


@click.command("compile")
@click.argument("spec")
@click.option("-o", "--output", metavar="OUT", help="Write here (atomically) instead of stdout.")
@click.option(
    "--to", "to", type=choices.encodings(), default="text", show_default=True, help="Output format."
)
@max_size_option
def command(spec: str, output: str | None, to: str, max_bytes: int) -> None:
    """Compile an embedding spec to the TPUEmbeddingConfiguration TensorFlow would build.

    The spec is linted first; a spec with errors is not compiled (exit 1).
    """
    run(execute, CompileOptions(spec, to, output, max_bytes), Streams.standard())
