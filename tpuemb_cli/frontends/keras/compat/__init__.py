"""``tpuemb diff`` of two Keras-RS models: what loading the old one's saved weights into the new
one does, on the backend and TPU the new one's settings and ``--tpu`` give
(frontends/keras/compat/weights)."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.compat.layouts import CannotCompare, Layout
from tpuemb_cli.load import Document

KERAS = "keras"


def layout_keras(document: Document, facts: Any) -> Layout:
    return Layout(
        KERAS,
        "a Keras-RS model",
        f"{document.name}: cannot compare: it is a Keras-RS model, whose saved weights "
        "compare with another saved model's (tpuemb diff OLD.keras NEW.keras); "
        "--against-checkpoint compares it with an Orbax checkpoint (the JAX backend's)",
        # A model with errors is one whose layer does not build where it trains (or builds other
        # tables than it says): refused as a spec with errors is.
        any_error_refuses=True,
    )


def changes_keras(
    name: str, old: Document | None, new: Document | None, engine: Any
) -> tuple[Document, list[Any]]:
    from tpuemb_cli.compat.compare import place
    from tpuemb_cli.frontends.keras.compat.weights import KerasSide, NotCompared, weight_changes
    from tpuemb_cli.frontends.keras.spec.plan import topology_of

    if old is None or new is None:
        (shown,) = [d for d in (old, new) if d is not None]
        raise CannotCompare(
            f"{shown.name}: cannot compare: a Keras-RS model's saved weights compare with "
            "another Keras-RS model's only (tpuemb diff OLD.keras NEW.keras)"
        )
    assert new.message is not None and old.message is not None
    engine.settle(new.message)  # the backend and TPU of the new side's settings: its target
    topology = topology_of(new.message)
    try:
        changes = weight_changes(old.message, new.message, topology)
    except NotCompared as problem:
        # Named with the file whose layer it is. Not a skipped pair (exit 0): a CI job that
        # gates on diff must not pass a pair whose weights nothing compared (exit 2).
        where = old.name if problem.side == "old" else new.name
        raise CannotCompare(f"{where}: {problem}") from None
    return new, place(changes, KerasSide(old), KerasSide(new))


def against_orbax_keras(document: Document, facts: Any, checkpoint: Any, engine: Any) -> list[Any]:
    """A Keras-RS model with the JAX backend against an Orbax checkpoint
    (``JaxKeras3CheckpointManager``'s): each DistributedEmbedding layer's stacks, as the JAX
    front-end lays them out for the TPU the settings and ``--tpu`` name, compared with the
    stacks the checkpoint holds (Keras-RS saves no EmbeddingSpecProto beside them); and its
    default-device tables, by key path and shape (frontends/keras/compat/default_tables); and the
    model optimizer's variables, by its name and slots (frontends/keras/compat/model_optimizer)."""
    from tpuemb_cli.compat.compare import place
    from tpuemb_cli.frontends import compat_of
    from tpuemb_cli.frontends.keras.compat.default_tables import (
        default_table_changes,
        removed_layers,
    )
    from tpuemb_cli.frontends.keras.compat.model_optimizer import optimizer_changes
    from tpuemb_cli.frontends.keras.compat.weights import KerasSide, layer_entries
    from tpuemb_cli.frontends.keras.spec.plan import NO_TPU, plan_model, topology_of

    model: Any = document.message
    engine.settle(model)  # the backend and TPU of the settings: the layer's target
    if model.target.backend and model.target.backend != "jax":
        raise CannotCompare(
            f"{document.name}: cannot compare: a Keras-RS model on the {model.target.backend} "
            "backend saves no Orbax checkpoint (the JAX backend does)"
        )
    topology = topology_of(model)
    placed: list[Any] = []
    side = KerasSide(document)
    defaults: dict[str, list[Any]] = {}
    for index, plan in enumerate(plan_model(model)):
        layer = model.layers[index]
        if topology.global_device_count < 1:
            raise CannotCompare(f"{document.name}: cannot compare layer `{plan.path}`: {NO_TPU}")
        default = layer_entries(layer, index, topology).default
        defaults[layer.name] = default
        if plan.jax is None and plan.spec.features:
            raise CannotCompare(
                f"{document.name}: cannot compare layer `{plan.path}`: {plan.unknown}"
            )
        if plan.jax is not None:
            # The stacks are jax-tpu-embedding's: its front-end compares them, placed in the model.
            compare = compat_of("jax", "stacks_against_orbax")
            assert compare is not None
            paths = _layer_paths(layer, index, plan.jax)
            placed.extend(compare(document, plan.jax, paths, checkpoint, layer.name))
        changes = list(default_table_changes(checkpoint, layer, index, default))
        placed.extend(place(changes, side, side))
    names = {layer.name for layer in model.layers}
    gone = list(removed_layers(checkpoint, names, ("layers", 0) if model.layers else ()))
    placed.extend(place(gone, side, side))
    placed.extend(place(list(optimizer_changes(checkpoint, model, defaults)), side, side))
    return placed


def _layer_paths(layer: Any, index: int, proto: Any) -> Any:
    """Paths in a layer's stacked layout, as the model's: a table's at that table of the
    layer, anything else at the layer."""
    tables = {table.name: t for t, table in enumerate(layer.tables)}

    def to_file(path: Any) -> Any:
        stacks = proto.stacked_table_specs
        if len(path) >= 2 and path[0] == "stacked_table_specs" and isinstance(path[1], int):
            specs = stacks[path[1]].table_specs if 0 <= path[1] < len(stacks) else []
            # A table's path, or a stack's: at its first table.
            which = path[3] if len(path) >= 4 and isinstance(path[3], int) else 0
            if 0 <= which < len(specs) and specs[which].table_name in tables:
                return ("layers", index, "tables", tables[specs[which].table_name])
        return ("layers", index)

    return to_file
