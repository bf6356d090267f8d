"""What ``tpuemb explain`` shows of a Keras-RS ``DistributedEmbedding`` layer: where each table
goes (SparseCores or the default device, and why), and what the backend's library builds from
the tables on SparseCores -- computed by ``keras_spec.convert`` (the same conversion ``check``
lints), then the library's own layout: for JAX the ``EmbeddingSpecProto`` ``compile --target
jax`` writes (its stacks, and the JAX memory model's input), for TensorFlow the spec's facts
(TPUEmbeddingV2's SparseCore layout and memory model; on a chip of embedding feature V1,
TPUEmbedding's compiled config and its memory model).

The devices come from ``--tpu``; without it the stacks depend on what is not known (the
SparseCores a device, the devices), and ``unknown`` says so instead of guessing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpuemb_cli.frontends.jax.spec.named_optimizers import with_optimizers
from tpuemb_cli.frontends.keras.spec.conversion import (
    JAX_SPARSECORE_CHIPS,
    Topology,
    convert,
    replaced_tables,
    shadowed_features,
    used_tables,
)
from tpuemb_cli.model.records import Record
from tpuemb_cli.model.words import count

if TYPE_CHECKING:
    from tpuemb_cli.pb.jax.embedding_spec_pb2 import EmbeddingSpecProto
    from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
    from tpuemb_cli.spec.facts import SpecFacts

# What no --tpu leaves unknown, said once for every layer it applies to.
NO_TPU = (
    "no --tpu: the devices and SparseCores a device are not known, so neither are the stacks "
    "the library makes nor their memory; pass --tpu (v5p-8: 4 devices of 4 SparseCores)"
)


def no_devices(accelerator: str) -> str:
    """Why a layer is not laid out when no slice gives its devices: no --tpu, or a chip named
    without a size (TPU7x and v2 have none tpuemb knows)."""
    if not accelerator:
        return NO_TPU
    from tpuemb_cli.model.accelerators import NAMING

    said = (
        f"--tpu {accelerator} names a chip, not a slice: the devices are not known, so neither "
        "are the stacks the library makes nor their memory"
    )
    if accelerator not in NAMING:
        return f"{said} (tpuemb knows no {accelerator} slice sizes to name)"
    return f"{said}; name a slice (v5p-8: 4 devices of 4 SparseCores)"


def unknown_feature(chip: str) -> str:
    """Why a TensorFlow layer on ``chip`` is not laid out: which library it builds is not known."""
    return (
        f"which TPU embedding feature {chip} reports is not known (no public source says): "
        "TPUEmbedding (V1), TPUEmbeddingV2 (V2) or none (UNSUPPORTED: the layer refuses "
        "placement sparsecore, and puts auto on the default device); not linted"
    )


class TablePlacement(Record):
    """One table of a layer: its sizes, where it goes and why, and the features reading it."""

    name: str
    vocabulary_size: int
    embedding_dim: int
    placement: str
    on_sparsecore: bool
    refused: bool  # a placement the layer refuses: it is not built
    why: str
    features: list[str]
    # The table whose rows this one's features read instead (the JAX conversion keeps one table
    # a name: TE771), or -1.
    replaced_by: int = -1


class LayerPlan(Record):
    """One DistributedEmbedding layer, converted for ``topology``.

    ``spec``: what the conversion hands the library (the tables on SparseCores); ``jax``: the
    library's stacks for the JAX backend (``compile --target jax``'s, each table's optimizer
    named); ``facts``: the TensorFlow spec's layout and memory;
    ``unknown``: why neither is computed (no TPU named, or the library refuses the layout);
    ``refused``: why the layer cannot run on ``topology`` at all, when it cannot (it raises
    when it is constructed, or its library refuses the layout): then ``unknown`` too."""

    path: str
    topology: Topology
    tables: list[TablePlacement]
    spec: EmbeddingSpec
    jax: EmbeddingSpecProto | None = None
    facts: SpecFacts | None = None
    unknown: str = ""
    refused: str = ""


def refusal(layer: Any, topology: Topology) -> str:
    """Why the layer raises when it is constructed on ``topology`` ("" if it does not): a table
    some feature looks up placed where it refuses (TE764's cases: a placement it does not know,
    or "sparsecore" on a chip where the JAX layer finds none)."""
    for index in used_tables(layer):
        table = layer.tables[index]
        why = topology.refuses(table.placement)
        if why == "unknown":
            return (
                f"table {table.name!r} has placement {table.placement!r}, which the layer "
                "refuses with ValueError when it is constructed (TE764)"
            )
        if why == "no-sparsecore":
            return (
                f"table {table.name!r} is placed on 'sparsecore', and keras-rs 0.4.0's JAX "
                f"layer finds no SparseCores on {topology.accelerator}: it raises ValueError "
                "when it is constructed (TE764)"
            )
    return ""


def _why(placement: str, topology: Topology) -> str:
    """Why a table goes where it goes: its placement, and what "auto" is on this chip."""
    if placement == "sparsecore":
        return "placement sparsecore"
    if placement == "default_device":
        return "placement default_device: the TensorCores' embedding, no SparseCore"
    if placement != "auto":
        return f"placement {placement!r}: the layer refuses it (TE764)"
    chip = topology.accelerator
    if topology.backend == "jax" and chip:
        if chip in JAX_SPARSECORE_CHIPS:
            return f"auto on {chip}: the JAX layer finds SparseCores"
        return (
            f"auto on {chip}: the JAX layer finds no SparseCore it uses "
            "(it takes TPU v5p and v6e devices only), the default device"
        )
    if not chip:
        return (
            "auto: SparseCores on a TPU that has them (no --tpu: assumed; on CPU the default "
            "device)"
        )
    # The TensorFlow layer asks the TPU strategy for its embedding feature (`_has_sparsecore`).
    feature = topology.embedding_feature()
    if feature == "V1":
        return f"auto on {chip}: embedding feature V1, the TPU embedding engine (TPUEmbedding)"
    if feature == "V2":
        return f"auto on {chip}: embedding feature V2, the SparseCores (TPUEmbeddingV2)"
    return (
        f"auto on {chip}: the TPU's embedding if it reports one, else the default device "
        f"(which embedding feature {chip} reports is not known)"
    )


def _tables(layer: Any, topology: Topology) -> list[TablePlacement]:
    features: dict[int, list[str]] = {}
    shadowed = shadowed_features(layer, topology)
    for index, feature in enumerate(layer.features):
        label = feature.name or feature.key
        features.setdefault(feature.table, []).append(
            f"{label} (dropped: TE772)" if index in shadowed else label
        )
    # The tables only dropped features look up: the layer never builds them.
    unbuilt = {f.table for f in layer.features} - {
        f.table for i, f in enumerate(layer.features) if i not in shadowed
    }
    replaced = replaced_tables(layer, topology)
    found = []
    for index, table in enumerate(layer.tables):
        why = _why(table.placement, topology)
        kept = replaced.get(index, -1)
        if index in unbuilt:
            why += "; never built: its features' paths are later features' (TE772)"
        if kept >= 0:
            first = layer.tables[kept]
            why += (
                f"; named like the {first.name} table of {count(first.vocabulary_size)} x "
                f"{count(first.embedding_dim)} above, which the JAX conversion hands its "
                "features instead (TE771)"
            )
        found.append(
            TablePlacement(
                table.name,
                table.vocabulary_size,
                table.embedding_dim,
                table.placement,
                topology.sparsecore_placement(table.placement),
                topology.refuses(table.placement) == "unknown",
                why,
                features.get(index, []),
                kept,
            )
        )
    return found


def plan_layer(layer: Any, topology: Topology) -> LayerPlan:
    """The plan of one KerasModel layer on ``topology``."""
    converted = convert(layer, topology)
    plan = LayerPlan(layer.path, topology, _tables(layer, topology), converted.spec)
    refused = refusal(layer, topology)
    if not refused and topology.backend == "tensorflow":
        from tpuemb_cli.model.chips import BY_NAME

        chip = BY_NAME.get(topology.accelerator)
        refused = chip.tensorflow_refusal if chip is not None else ""  # TPU7x's
    if refused:
        return plan._replace(unknown=refused, refused=refused)
    if not converted.spec.features:
        return plan._replace(unknown="no table goes to the SparseCores")
    if topology.backend == "tensorflow" and not topology.embedding_feature():
        return plan._replace(unknown=unknown_feature(topology.accelerator))
    if topology.global_device_count < 1:
        return plan._replace(unknown=no_devices(topology.accelerator))
    if topology.backend == "jax":
        from tpuemb_cli.frontends.jax.spec.compiler import compile_jax_spec
        from tpuemb_cli.frontends.jax.spec.layout import layout
        from tpuemb_cli.frontends.jax.spec.stacking import JaxStackingError

        try:
            # Laid out from the stacking the conversion worked out.
            compiled = compile_jax_spec(converted.spec, layout(converted.spec, converted.stacking))
            return plan._replace(jax=with_optimizers(compiled, converted.spec))
        except JaxStackingError as error:
            why = f"jax-tpu-embedding refuses the layout: {error}"
            return plan._replace(unknown=why, refused=why)
    from tpuemb_cli.spec.facts import SpecFacts

    return plan._replace(facts=SpecFacts(converted.spec))


def topology_of(model: Any) -> Topology:
    """The topology a KerasModel's ``target`` names (``explain`` writes the one the engine
    resolved from the settings and ``--tpu`` there)."""
    target = model.target
    return Topology(
        target.backend or "jax",
        target.global_device_count,
        target.num_sc_per_device,
        target.accelerator,
    )


def plan_model(model: Any) -> list[LayerPlan]:
    """The plan of each DistributedEmbedding layer of a KerasModel, in the model's order, for
    its ``target``."""
    topology = topology_of(model)
    return [plan_layer(layer, topology) for layer in model.layers]
