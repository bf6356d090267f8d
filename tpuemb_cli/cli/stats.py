"""``tpuemb stats IDS... SPEC``: the statistics jax-tpu-embedding's host preprocessing computes
per stack from a sample of input ids (frontends/jax/spec/stats), printed, and written in the
library's FDO file format (load/fdo). numpy, its one extra, is imported only here."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from tpuemb_cli.cli import inputs
from tpuemb_cli.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    Streams,
    error,
    linted_document,
    max_size_option,
    named_input,
    note,
    read_input,
    run,
    tpu_option_saying,
    type_option,
    write_output,
)
from tpuemb_cli.cli.main import Command
from tpuemb_cli.frontends.jax.views.stats import formats
from tpuemb_cli.model.findings import Severity

if TYPE_CHECKING:
    from tpuemb_cli.frontends.jax.spec.stats.plan import StackPlan

NEEDS_NUMPY = "tpuemb stats needs numpy: pip install 'tpuemb[stats]'"
DEFAULT_MAX_IDS_BYTES = 4 * 2**30


class StatsOptions(NamedTuple):
    ids: tuple[str, ...]
    spec: str
    output_format: str = "text"
    output: str | None = None
    fdo_format: str = "npz"
    tpu: str | None = None
    per_device: int | None = None
    local_devices: int | None = None
    message_type: str | None = None
    max_bytes: int = inputs.DEFAULT_MAX_BYTES
    max_ids_bytes: int = DEFAULT_MAX_IDS_BYTES
    process_index: int = 0


class Spec(NamedTuple):
    """The stacks of the spec named, with what it says of the devices."""

    stacks: list[StackPlan]
    num_scs: int
    per_device: int | None  # a tpuemb spec's num_sc_per_device; None for a proto


def execute(options: StatsOptions, streams: Streams) -> int:
    try:
        import numpy  # noqa: F401  -- the extra this command needs, and no other
    except ImportError:
        error(streams, NEEDS_NUMPY)
        return EXIT_ERROR
    from tpuemb_cli.frontends.jax.load.ids import IdsError, read_ids
    from tpuemb_cli.frontends.jax.spec.stats.compute import measure
    from tpuemb_cli.frontends.jax.spec.stats.plan import StatsError, row_notes, unmatched
    from tpuemb_cli.frontends.jax.views.stats import RENDERERS, StatsReport
    from tpuemb_cli.model.words import listed

    if options.output is not None:
        refused = _output_refusal(options)
        if refused is not None:
            error(streams, refused)
            return EXIT_ERROR
    spec = _spec(options, streams)
    if isinstance(spec, int):
        return spec
    devices = _devices(options, spec, streams)
    if devices is None:
        return EXIT_ERROR
    try:
        read = read_ids([Path(p) for p in options.ids], options.max_ids_bytes)
    except IdsError as problem:
        error(streams, str(problem))
        return EXIT_ERROR
    missing, unknown = unmatched(spec.stacks, list(read))
    if unknown:
        note(streams, f"ignored: {listed(unknown)}, not features of {options.spec}")
    if missing:
        error(
            streams,
            f"no ids for {listed(missing)} of {options.spec}: the preprocessing takes every "
            "feature of the spec; give a .npy, .npz member or CSV for each",
        )
        return EXIT_ERROR
    features = {name: ids for name, (ids, _) in read.items()}
    try:
        results = measure(spec.stacks, features, devices)
    except StatsError as problem:
        error(streams, f"{options.spec}: {problem}")
        return EXIT_ERROR
    notes = row_notes(spec.stacks, {name: ids.rows for name, ids in features.items()})
    report = StatsReport(options.spec, devices, tuple(results), tuple(notes))
    status = write_output(RENDERERS[options.output_format](report).encode(), None, streams)
    if status != EXIT_OK or options.output is None:
        return status
    return _write_fdo(options, results, streams)


def _output_refusal(options: StatsOptions) -> str | None:
    """Why ``-o`` may not be written, said before any id is read: not stdout or the current
    folder, never one of the inputs (as ``check --output-file`` refuses), nor a file in a folder
    of ids (the next run would read it as ids), nor a target ``write_fdo_stats`` refuses."""
    from tpuemb_cli.load.fdo import FdoError
    from tpuemb_cli.load.fdo.write import check_target

    output = options.output
    assert output is not None
    if output in ("", "-"):
        return (
            f"-o {output!r}: the statistics are written to a folder or a file, not to stdout "
            "or the current folder: name one (-o fdo/)"
        )
    inputs = [options.spec, *options.ids]
    name = named_input(output, inputs, folders=True)
    if name is not None:
        if Path(name).is_dir():
            return (
                f"-o {output} is an ids folder: the next run would read the statistics as ids; "
                "write them elsewhere"
            )
        return f"-o {output} is an input: the statistics would replace it"
    parent = Path(output).absolute().parent
    if not Path(output).is_dir() and named_input(str(parent), options.ids, True) is not None:
        return (
            f"-o {output} is in an ids folder: the next run would read the statistics as ids; "
            "write them elsewhere"
        )
    try:
        check_target(Path(output), "csv" if options.fdo_format == "csv" else "npz")
    except FdoError as problem:
        return f"-o {problem}"
    return None


def _write_fdo(options: StatsOptions, results: list[Any], streams: Streams) -> int:
    """``-o``: the statistics in the library's FDO file format, one recorded batch."""
    from tpuemb_cli.load.fdo import FdoError, StackStats, write_fdo_stats

    assert options.output is not None
    stacks = {
        r.name: StackStats(
            max_ids=(r.max_ids,),
            max_unique_ids=(r.max_unique_ids,),
            required_buffer_size=(r.required_buffer_size,),
            id_drop_counters=(r.id_drop_counters,),
        )
        for r in results
    }
    try:
        write_fdo_stats(
            Path(options.output),
            stacks,
            kind="csv" if options.fdo_format == "csv" else "npz",
            process=options.process_index,
        )
    except FdoError as problem:
        error(streams, str(problem))
        return EXIT_ERROR
    return EXIT_OK


def _spec(options: StatsOptions, streams: Streams) -> Spec | int:
    """The stacks of a spec with a ``jax`` section (as ``compile --target jax`` lays them out)
    or of an EmbeddingSpecProto; an exit code after saying why not."""
    from tpuemb_cli.frontends.jax.spec.stats.plan import StatsError, stacks_of
    from tpuemb_cli.model.schema import kind_of
    from tpuemb_cli.workspace import Workspace

    read = read_input(options.spec, options.max_bytes, streams)
    if read is None:
        return EXIT_ERROR
    item, data = read
    linted = Workspace().lint_document(
        data, item.name, message_type=options.message_type, exclude=False
    )
    document = linted_document(linted, streams)
    if document is None:
        return EXIT_ERROR
    message = document.message
    kind = kind_of(message) if message is not None else None
    if kind not in ("jax", "spec") or message is None:
        error(
            streams,
            f"{item.name}: not a jax-tpu-embedding spec: tpuemb stats takes an "
            "EmbeddingSpecProto or a spec with a `jax` section",
        )
        return EXIT_ERROR
    suggested: dict[str, int] = {}
    per_device = None
    if kind == "spec":
        compiled = _compiled(item.name, linted, streams)
        if isinstance(compiled, int):
            return compiled
        message, suggested = compiled
        per_device = linted.facts.spec.jax.num_sc_per_device if linted.facts else None
    try:
        stacks, num_scs = stacks_of(message, suggested)
    except StatsError as problem:
        error(streams, f"{item.name}: {problem}")
        return EXIT_ERROR
    return Spec(stacks, num_scs, per_device)


def _compiled(name: str, linted: Any, streams: Streams) -> tuple[Any, dict[str, int]] | int:
    """A tpuemb spec's EmbeddingSpecProto, and the suggested COO buffers of its tables alone
    (``prepare_feature_specs_for_training`` keeps a table's; stacking drops it)."""
    from tpuemb_cli.cli.specs import jax_target_refusal
    from tpuemb_cli.frontends.jax.spec.compiler import compile_jax_spec
    from tpuemb_cli.frontends.jax.spec.layout import layout
    from tpuemb_cli.frontends.jax.spec.stacking import JaxStackingError

    facts = linted.facts
    refusal = jax_target_refusal(facts.spec) if facts is not None else "it does not parse"
    if refusal is not None:
        error(streams, f"{name}: {refusal}")
        return EXIT_ERROR
    errors = [f for f in linted.findings if f.severity is Severity.ERROR]
    if errors:
        from tpuemb_cli import formatters

        streams.err.write(formatters.get("concise")(formatters.Report(errors, 1), False))
        error(streams, f"{name}: no statistics: the spec has errors")
        return EXIT_FINDINGS
    try:
        proto = compile_jax_spec(facts.spec, layout(facts.spec, facts.jax_stacking))
    except JaxStackingError as refused:
        error(streams, f"{name}: no statistics: {refused.message}")
        return EXIT_FINDINGS
    stacked = {index for members in facts.jax_stacking.groups.values() for index in members}
    suggested = {
        table.name: int(table.jax.suggested_coo_buffer_size_per_device)
        for index, table in enumerate(facts.spec.tables)
        if index not in stacked and table.jax.HasField("suggested_coo_buffer_size_per_device")
    }
    return proto, suggested


def _devices(options: StatsOptions, spec: Spec, streams: Streams) -> Any:
    """The preprocessing's devices: SparseCores a device from the spec, else ``--tpu`` or
    ``--sparsecores-per-device``; local devices ``--local-devices`` (default: every one, a
    single process feeding them all)."""
    from tpuemb_cli.frontends.jax.spec.stats.plan import Devices
    from tpuemb_cli.model.accelerators import parse

    chip = parse(options.tpu).chip.sparse_cores_per_device.value if options.tpu else None
    given = options.per_device or chip
    if options.per_device and chip and options.per_device != chip:
        error(streams, f"--tpu {options.tpu} has {chip} SparseCores a device, not {given}")
        return None
    per_device = spec.per_device or given
    if per_device is None:
        error(
            streams,
            f"{options.spec}: an EmbeddingSpecProto does not say how many SparseCores a device "
            "has: give --tpu (v5p, v6e, ...) or --sparsecores-per-device",
        )
        return None
    if spec.per_device and given and given != spec.per_device:
        error(
            streams,
            f"{options.spec}: its jax section says {spec.per_device} SparseCores a device, not "
            f"{given}",
        )
        return None
    if spec.num_scs % per_device:
        error(
            streams,
            f"{options.spec}: {spec.num_scs} SparseCores in all is no whole number of devices "
            f"of {per_device}",
        )
        return None
    global_devices = spec.num_scs // per_device
    return Devices(global_devices, options.local_devices or global_devices, per_device)


@click.command("stats", cls=Command)
@click.argument("ids", nargs=-1, required=True)
@click.argument("spec")
@click.option(
    "--format",
    "--output-format",
    "output_format",
    type=click.Choice(list(formats())),
    default="text",
    show_default=True,
    help="json: per stack, the library's statistics under its own key names.",
)
@click.option(
    "-o",
    "--output",
    metavar="PATH",
    help="Write the statistics in jax-tpu-embedding's FDO file format: into a directory (a new "
    "fdo_stats_<process>_<time> file, as its FDO client names them), or to this file. Never "
    "an input, a file in an ids folder, a link or a special file, nor a folder holding the "
    "other --fdo-format's files.",
)
@click.option(
    "--process-index",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="-o into a folder: the process the file is named for (jax.process_index()). The "
    "library reads the newest file of each process: give each host's sample its own index to "
    "measure several hosts into one folder.",
)
@click.option(
    "--fdo-format",
    type=click.Choice(["npz", "csv"]),
    default="npz",
    show_default=True,
    help="-o's format: the library's NPZ or CSV FDO client's.",
)
@tpu_option_saying(
    "The TPU the model trains on, for the SparseCores a device of an EmbeddingSpecProto (a "
    "spec's jax section says them)."
)
@click.option(
    "--sparsecores-per-device",
    "per_device",
    type=click.IntRange(1, 4),
    help="SparseCores a device, instead of --tpu.",
)
@click.option(
    "--local-devices",
    type=click.IntRange(min=1),
    help="The devices the process that reads these ids feeds (local_device_count). Default: "
    "every device: one process.",
)
@type_option
@max_size_option
@click.option(
    "--max-ids-size",
    "max_ids_bytes",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_IDS_BYTES,
    show_default=True,
    help="Refuse ids that would take more than this many bytes of memory in all: each id "
    "counted as the int64 it is read into (8 bytes, whatever the file's dtype: a uint8 .npy "
    "takes 8 times its size), a CSV file's text too; a .npz's members are checked decompressed "
    "before any is inflated.",
)
def command(
    ids: tuple[str, ...],
    spec: str,
    output_format: str,
    output: str | None,
    fdo_format: str,
    tpu: str | None,
    per_device: int | None,
    local_devices: int | None,
    message_type: str | None,
    max_bytes: int,
    max_ids_bytes: int,
    process_index: int,
) -> None:
    """Compute, from a sample of input ids, the statistics jax-tpu-embedding's preprocessing
    computes per stack -- max ids and max unique ids a partition, the COO buffer each SparseCore
    needs, the ids dropped at the spec's limits -- exactly as it partitions them.

    IDS: .npy files (one a feature, named for it), .npz archives (a member a feature), CSV files,
    or folders of them (docs/jax.md, "Measuring the limits"). SPEC: a spec with a `jax` section
    or an EmbeddingSpecProto. Needs numpy (pip install 'tpuemb[stats]').
    """
    options = StatsOptions(
        ids,
        spec,
        output_format,
        output,
        fdo_format,
        tpu,
        per_device,
        local_devices,
        message_type,
        max_bytes,
        max_ids_bytes,
        process_index,
    )
    run(execute, options, Streams.standard())
