"""``tpuemb explain``: what TensorFlow will do with each table of a spec or config, or with one
optimizer."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import click

from tpuemb_cli import formatters
from tpuemb_cli.cli.choices import memory_formats
from tpuemb_cli.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    FrontEndOptions,
    StatsOptions,
    Streams,
    error,
    front_end_options,
    linted_document,
    max_size_option,
    note,
    read_input,
    run,
    stats_options,
    type_option,
)
from tpuemb_cli.cli.main import Command
from tpuemb_cli.model.findings import Severity

if TYPE_CHECKING:
    from tpuemb_cli.engine import Engine
    from tpuemb_cli.engine.settings import Selection
    from tpuemb_cli.load import Document
    from tpuemb_cli.model.accelerators import Accelerator
    from tpuemb_cli.model.findings import Finding
    from tpuemb_cli.model.memory_report import MemoryReport
    from tpuemb_cli.spec.facts import SpecFacts


class MemoryOptions(NamedTuple):
    """``--memory`` and what goes with it."""

    memory: bool = False
    tpu: str | None = None  # --tpu, a known chip's name
    output_format: str = "text"
    front_end_options: FrontEndOptions = ()  # --keras-backend, for a Keras-RS model
    stats: StatsOptions | None = None  # --stats: the buffers at the measured sizes too
    sweep: tuple[Accelerator, ...] = ()  # --tpu v5p,v6e: each TPU's report, gathered


def execute(
    path: str,
    message_type: str | None,
    max_bytes: int,
    streams: Streams,
    options: MemoryOptions | None = None,
) -> int:
    from tpuemb_cli.engine.settings import Selection
    from tpuemb_cli.frontends import explain_of, function_of
    from tpuemb_cli.model import schema
    from tpuemb_cli.views.explain import explain_document
    from tpuemb_cli.workspace import Workspace

    options = options or MemoryOptions()
    if options.output_format != "text" and not options.memory:
        error(streams, f"--format {options.output_format} is for --memory; explain prints text")
        return EXIT_ERROR
    if options.sweep and not options.memory:
        error(streams, "a list of TPUs (--tpu v5p,v6e) is for --memory: which of them it fits")
        return EXIT_ERROR

    read = read_input(path, max_bytes, streams)
    if read is None:
        return EXIT_ERROR
    item, data = read
    # Linted as `check` lints a file it is given, with its configuration: one that is not a TPU
    # embedding document is told so, not explained as an empty config.
    stats = options.stats or StatsOptions()
    selection = Selection(
        tpu=options.tpu,
        options=options.front_end_options,
        stats=stats.reading,
        stats_path=stats.path,
        stats_headroom=stats.headroom,
    )
    workspace = Workspace(selection=selection)
    linted = workspace.lint_document(data, item.name, message_type=message_type, exclude=False)
    document = linted_document(linted, streams)
    if document is None:
        return EXIT_ERROR
    if document.message is None:
        fatal = [p for p in document.problems if p.fatal]
        if fatal and fatal[0].rule == "not-an-embedding-document":
            error(streams, f"{item.name}: {fatal[0].message}; {fatal[0].fix}")
        else:
            error(streams, f"{item.name}: does not parse; run `tpuemb check` on it")
        return EXIT_FINDINGS
    # What explain shows of each type, or why not, is on its schema row.
    row = schema.row_of(document.message)
    assert row is not None  # the loader reads tpuemb's types only
    if not row.explain and explain_of(row.kind) is None:
        error(streams, f"{item.name}: {row.explain_refusal}")
        return EXIT_ERROR
    if options.memory and row.memory_refusal:
        error(streams, f"{item.name}: {row.memory_refusal}")
        return EXIT_ERROR
    # Why its front-end does not show it (a spec written for another library), if it does not.
    refused = function_of(row.kind, "views", "explain_refusal")
    refusal = refused(document, linted.facts) if refused is not None else None
    if refusal is not None:
        error(streams, f"{item.name}: not explained: {refusal}")
        return EXIT_ERROR
    # A spec is explained as what it compiles to (its facts): it must compile.
    findings = linted.findings
    if options.sweep:
        findings = _with_each_slice(selection, options, data, item.name, message_type)
    if linted.facts is not None and not _compiles(findings, streams):
        error(streams, f"{item.name}: not explained: the spec has errors")
        return EXIT_FINDINGS
    # Any other document is explained as it was read, its errors said first (stderr) and the
    # exit code 1, as `check` would give: a misspelt `vocabulary_sise` is no 0-row table.
    errors = _errors(findings)
    if errors:
        streams.err.write(formatters.get("concise")(formatters.Report(errors, 1), False))
        note(streams, f"{item.name}: explained as read, with the errors above")
    # What the settings decide of how it is read (a Keras-RS model's layers convert for the
    # settings' backend and --tpu, as `check` resolves them): the views read it from the model.
    assert linted.engine is not None
    if not options.sweep:  # the sweep settles a copy for each TPU
        linted.engine.settle(document.message)
    if options.memory:
        assert linted.engine is not None
        status = _memory(document, options, linted.engine, linted.facts, streams)
    else:
        streams.out.write(explain_document(document, linted.facts))
        status = EXIT_OK
    return EXIT_FINDINGS if errors and status == EXIT_OK else status


def _with_each_slice(
    selection: Selection,
    options: MemoryOptions,
    data: bytes,
    name: str,
    message_type: str | None,
) -> list[Finding]:
    """What linting finds with each slice the sweep names (a Keras-RS layer that raises on one
    chip, a batch a slice's devices do not divide, a limit of another): the sweep hides no error
    a ``--tpu`` of its slices would show, each said once, and shows none that only the document
    linted without them has (a Keras-RS layer's TPUEmbeddingV2, assumed when no chip is named,
    is none of a v4's)."""
    from tpuemb_cli.workspace import Workspace

    found: dict[Finding, None] = {}
    for accelerator in options.sweep:
        workspace = Workspace(selection=selection._replace(tpu=accelerator.name))
        linted = workspace.lint_document(data, name, message_type=message_type, exclude=False)
        found.update(dict.fromkeys(linted.findings))
    from tpuemb_cli.model.findings import Finding

    return sorted(found, key=Finding.sort_key)


def _memory(
    document: Document,
    options: MemoryOptions,
    engine: Engine,
    facts: SpecFacts | None,
    streams: Streams,
) -> int:
    """``--memory``: what the document's tables take, in its front-end's memory model, against
    the chip when one is named (the chip the document's settings, a spec's accelerator or
    ``--tpu`` give ``engine``)."""
    from tpuemb_cli.frontends import memory_of
    from tpuemb_cli.model.schema import kind_of

    assert document.message is not None
    memory = memory_of(kind_of(document.message))
    assert memory is not None  # a kind without a memory report has a `memory_refusal` row
    if options.sweep:
        from tpuemb_cli.views.memory_formats import render_sweep
        from tpuemb_cli.views.memory_sweep import sweep

        found = sweep(document, facts, engine, memory, options.sweep)
        streams.out.write(render_sweep(found, options.output_format))
        return EXIT_OK
    return _render(memory(document, facts, engine), options, streams)


def _render(report: MemoryReport, options: MemoryOptions, streams: Streams) -> int:
    """Writes a model's report (its adapter's record) with the format's one renderer: the
    function ``render_<format>`` of ``views.memory_<format>``, which names no ecosystem."""
    from tpuemb_cli.views.memory_formats import render

    streams.out.write(render(report, options.output_format))
    return EXIT_OK


def _errors(findings: list[Finding]) -> list[Finding]:
    """The errors among ``findings``, but the memory rules': the tables not fitting the chip is
    what --memory explains, not a mistake in the document."""
    from tpuemb_cli.rules import find

    return [
        f
        for f in findings
        if f.severity is Severity.ERROR
        and not ((entry := find(f.rule)) is not None and entry.family == "memory")
    ]


def _compiles(findings: list[Finding], streams: Streams) -> bool:
    """Whether a spec compiles (has no error), as `tpuemb compile` decides; its errors go to
    stderr. A spec with errors is one TensorFlow would refuse or `compile` would not build, so
    what it "compiles to" would be made up."""
    errors = _errors(findings)
    if errors:
        streams.err.write(formatters.get("concise")(formatters.Report(errors, 1), False))
    return not errors


def _tpus(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> str | tuple[Accelerator, ...] | None:
    """One TPU (its name, as ``--tpu`` reads it), or the TPUs a list or ``all`` names: the
    slices to sweep. An unknown one is a usage error (exit 2)."""
    from tpuemb_cli.model.accelerators import UnknownTpu, parse, sweep

    if value is None:
        return None
    try:
        if "," in value or value.lower() == "all" or value.endswith("-*"):
            return sweep(value)
        return parse(value).name
    except UnknownTpu as error:
        raise click.BadParameter(str(error)) from None


@click.command("explain", cls=Command)
@click.argument("path")
@type_option
@max_size_option
@click.option(
    "--memory",
    is_flag=True,
    help="Show what each table takes on a core (TensorFlow's shard shapes, parameters and "
    "optimizer state), largest first, and with --tpu whether it fits and what would.",
)
@click.option(
    "--tpu",
    metavar="TPU[,TPU...]",
    callback=_tpus,
    help="The TPU the config runs on: a chip (v2, v3, v4, v5e, v5p, v6e, tpu7x) or an "
    "accelerator type (v4-32, v5p-128, v5litepod-16, v6e-256). With --memory, a list "
    "(v5p,v6e,tpu7x; `v5p-*` for one chip; `all` for every chip) sweeps every slice size of "
    "each chip named, and says which fits and the smallest that does. Overrides `tpu` in the "
    "settings and a spec's accelerator.",
)
@front_end_options
@stats_options
@click.option(
    "--format",
    "--output-format",
    "output_format",
    type=memory_formats(),
    default="text",
    show_default=True,
    help="json: the --memory report as a JSON document; markdown: as GitHub-flavoured Markdown; "
    "html: as one self-contained HTML page.",
)
def command(
    path: str,
    message_type: str | None,
    max_bytes: int,
    memory: bool,
    tpu: str | tuple[Accelerator, ...] | None,
    front_end_options: FrontEndOptions,
    stats: StatsOptions,
    output_format: str,
) -> None:
    """Show what TensorFlow will do with each table of a spec or config, or with an optimizer,
    or what a Keras-RS model's layers put on SparseCores; with --memory, what the tables take on
    each core."""
    single, swept = (None, tpu) if isinstance(tpu, tuple) else (tpu, ())
    options = MemoryOptions(memory, single, output_format, front_end_options, stats, swept)
    run(execute, path, message_type, max_bytes, Streams.standard(), options)
