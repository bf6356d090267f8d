"""``tpuemb explain`` of a Keras-RS model: each DistributedEmbedding layer, by its path in the
model -- its tables, where each goes and why, its features -- then what the backend's library
builds from the tables on SparseCores: the JAX stacks (frontends/jax/views/spec) or TPUEmbeddingV2's
stacking (views/sparsecore) -- or, with TensorFlow on a chip of embedding feature V1, the
tables of TPUEmbedding's compiled config (views/explain); with ``--memory`` the memory report
of that library (the JAX, SparseCore or TensorCore memory model, with the fits / near /
does-not-fit verdict), layer by layer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpuemb_cli.model.memory_report import MemoryReport
from tpuemb_cli.model.words import count, plural, printable
from tpuemb_cli.views.memory_json import render_json
from tpuemb_cli.views.memory_text import render_text
from tpuemb_cli.views.text import grid

if TYPE_CHECKING:
    from tpuemb_cli.frontends.keras.spec.conversion import Topology
    from tpuemb_cli.frontends.keras.spec.plan import LayerPlan, TablePlacement
    from tpuemb_cli.model.chips import Chip


def _target(topology: Topology) -> str:
    library = topology.library()
    tensorflow = topology.backend == "tensorflow"
    if tensorflow and not topology.accelerator:
        library += ", assumed: no chip named"
    head = f"backend {topology.backend} ({library})"
    chip = topology.accelerator or "an unnamed chip"
    if tensorflow and topology.accelerator:
        feature = f"TPU embedding feature {topology.embedding_feature() or 'not known'}"
        if topology.global_device_count < 1:
            return f"{head}, {chip}, devices not known, {feature}"
        return f"{head}, {plural(topology.global_device_count, 'device')} of {chip}, {feature}"
    if topology.global_device_count < 1:
        said = (
            f"{topology.accelerator} named without a slice" if topology.accelerator else "no --tpu"
        )
        return f"{head}, devices not known ({said})"
    cores = topology.num_sc_per_device
    return (
        f"{head}, {plural(topology.global_device_count, 'device')}"
        f" of {chip}, {plural(cores, 'SparseCore') if cores else 'no SparseCore'} each"
    )


def _goes_to(table: TablePlacement, engine: str) -> str:
    if table.refused:
        return "nowhere: refused"
    if table.replaced_by >= 0:
        return "nowhere: merged"
    return engine if table.on_sparsecore else "default device"


def _placements(plan: LayerPlan) -> list[str]:
    rows = [["table", "rows x dim", "goes to", "why", "features"]]
    engine = plan.topology.engine()
    engine = "SparseCores" if engine == "the SparseCores" else engine  # the column's old word
    for table in plan.tables:
        rows.append(
            [
                table.name,
                f"{count(table.vocabulary_size)} x {count(table.embedding_dim)}",
                _goes_to(table, engine),
                table.why,
                ", ".join(table.features) or "-",
            ]
        )
    return grid(rows)


def _indented(lines: list[str]) -> list[str]:
    return ["  " + line if line else line for line in lines]


def _library(name: str, plan: LayerPlan) -> list[str]:
    """What the library builds from the layer's SparseCore tables."""
    if plan.unknown:
        return [f"  stacks: {printable(plan.unknown)}"]
    if plan.jax is not None:
        from tpuemb_cli.frontends.jax.views.spec import explain_jax_spec
        from tpuemb_cli.load import Document

        document = Document(name, "binary", "EmbeddingSpecProto", plan.jax, None)
        header, lines = explain_jax_spec(document)
        head = header.removeprefix(name).strip(" ()")
        return [f"  what jax-tpu-embedding builds ({head}):", *_indented(lines)]
    assert plan.facts is not None
    if not plan.facts.sparsecore:  # TPUEmbedding (v1): the config it compiles
        from tpuemb_cli.views.config_table import compiled_tables

        return ["  what TPUEmbedding builds:", *_indented(compiled_tables(plan.facts))]
    from tpuemb_cli.views.sparsecore import explain_stacking

    lines = explain_stacking(plan.spec, plan.facts.layout, plan.facts.sparsecore_memory)
    return ["  what TPUEmbeddingV2 builds:", *_indented(lines)]


def layer_name(name: str, plan: LayerPlan) -> str:
    """A layer's name in a report: the file and the layer's path in the model."""
    return f"{name} layer {plan.path}"


def explain_keras(name: str, plans: list[LayerPlan], topology: Topology) -> tuple[str, list[str]]:
    """The header and lines of a Keras model's explanation: each DistributedEmbedding layer."""
    header = (
        f"{name} (Keras-RS model: {plural(len(plans), 'DistributedEmbedding layer')}; "
        f"{_target(topology)})"
    )
    lines: list[str] = []
    for plan in plans:
        if lines:
            lines.append("")
        lines += [printable(f"layer {plan.path}"), *_placements(plan), ""]
        lines += _library(layer_name(name, plan), plan)
    return header, lines


def explain_keras_memory(
    name: str, plans: list[LayerPlan], topology: Topology, chip: Chip | None
) -> str:
    """``--memory``: each layer's tables on the default device named, then the memory its
    SparseCore tables take, as its library's memory model says."""
    return render_text(memory_report(name, plans, topology, chip))


def _said(plan: LayerPlan) -> tuple[str, ...]:
    """A layer's lines before its library's report: its path, the tables not counted."""
    lines = [printable(f"layer {plan.path}")]
    # A table whose placement the layer refuses goes nowhere: the layer raises.
    off = [table.name for table in plan.tables if not table.on_sparsecore and not table.refused]
    if off:
        shown = ", ".join(off)
        lines.append(printable(f"  on the default device, not counted here: {shown}"))
    return tuple(lines)


def _unknown(name: str, plan: LayerPlan) -> MemoryReport:
    """The report of a layer whose memory is not computed: why, in one line."""
    prose = f"{printable(layer_name(name, plan))}: memory not computed: {printable(plan.unknown)}\n"
    if plan.refused:  # it cannot run there at all
        return MemoryReport("keras", layer_name(name, plan), prose=prose, cannot_run=plan.refused)
    return MemoryReport("keras", layer_name(name, plan), prose=prose, unsized=plan.unknown)


def _memory_record(
    name: str, plan: LayerPlan, chip: Chip | None, stats: Any = None
) -> MemoryReport | None:
    """A layer's memory report, in the model of its backend's library (None: unknown)."""
    if plan.unknown:
        return None
    if plan.jax is not None:
        from tpuemb_cli.frontends.jax.spec.memory import model
        from tpuemb_cli.frontends.jax.spec.memory_record import memory_report as jax_report

        memory = model(plan.jax, plan.topology.num_sc_per_device, stats)
        return jax_report(layer_name(name, plan), memory, chip)
    assert plan.facts is not None
    facts = plan.facts
    if not facts.sparsecore:  # TPUEmbedding (v1): the TensorCore memory model
        from tpuemb_cli.model.memory import model as tensorcore_model
        from tpuemb_cli.model.memory_record import memory_report as tensorcore_report

        config = facts.compiled.config
        header = " (TPUEmbedding, compiled as TensorFlow would)"  # in the text only
        tables = tensorcore_model(config)
        return tensorcore_report(layer_name(name, plan), config, tables, chip, header=header)
    from tpuemb_cli.spec.sparsecore_memory_record import memory_report as sparsecore_report

    return sparsecore_report(layer_name(name, plan), facts.layout, facts.sparsecore_memory, chip)


def memory_report(
    name: str,
    plans: list[LayerPlan],
    topology: Topology,
    chip: Chip | None,
    stats: Any = None,
    accelerator: str = "",
) -> MemoryReport:
    """The Keras-RS adapter: each layer's tables and placements, and the memory document of its
    library's report (what ``explain --memory --format json`` of a spec writes), or null with
    ``unknown`` saying why. It composes the other adapters' reports, so it stays beside the view
    until the Keras front-end may import the JAX one's (the guard's FRONTENDS)."""
    records = [_memory_record(name, plan, chip, stats) for plan in plans]
    fields: dict[str, Any] = {
        "backend": topology.backend,
        "devices": topology.global_device_count or None,
        "sparse_cores_per_device": topology.num_sc_per_device or None,
        "chip": topology.accelerator or None,
        "library": topology.library(),
        "layers": [
            {
                "path": plan.path,
                "tables": [
                    {
                        "name": table.name,
                        "vocabulary_size": table.vocabulary_size,
                        "embedding_dim": table.embedding_dim,
                        "placement": table.placement,
                        "on_sparsecore": table.on_sparsecore,
                        "refused": table.refused,
                        "why": table.why,
                        "features": table.features,
                        "replaced_by": None if table.replaced_by < 0 else table.replaced_by,
                    }
                    for table in plan.tables
                ],
                "memory": record.document() if (record := records[index]) is not None else None,
                "unknown": plan.unknown or None,
            }
            for index, plan in enumerate(plans)
        ],
    }
    sized = [
        record
        for record in records
        if record is not None and record.used is not None and record.status != "not-sized"
    ]
    units = {record.unit for record in sized}
    # A layer that cannot run on the TPU makes the model unable to (its construction raises).
    refused = [f"layer {plan.path}: {plan.refused}" for plan in plans if plan.refused]
    return MemoryReport(
        "keras",
        name,
        fields,
        accelerator=accelerator,
        cannot_run="; ".join(refused),  # raw: each view escapes it
        # The layers' figures add up when they are of one unit (each layer's tables are on
        # every device): the model's own.
        unit=units.pop() if len(units) == 1 else "",
        used=sum(record.used or 0 for record in sized) if len(sized) and len(units) <= 1 else None,
        heading=printable(f"{name} (Keras-RS model; {_target(topology)})"),
        parts=tuple(
            (_said(plan), records[index] or _unknown(name, plan))
            for index, plan in enumerate(plans)
        ),
    )


def keras_memory_json(
    name: str, plans: list[LayerPlan], topology: Topology, chip: Chip | None
) -> str:
    """The same report as a JSON document (``memory_report``, rendered by views/memory_json)."""
    return render_json(memory_report(name, plans, topology, chip))
