"""What the rules on a Keras-RS model share: how a message names its layers, tables and
features, their field paths, and the tables each backend converts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.keras.spec.conversion import Topology, replaced_tables

# The tables a layer builds, which the conversion reads too: the rules take it from here.
from tpuemb_cli.frontends.keras.spec.conversion import used_tables as used_tables
from tpuemb_cli.model.paths import FieldPath

# keras-rs 0.4.0's sources, at its tag: every Keras rule's References link them.
SOURCE = "https://github.com/keras-team/keras-rs/blob/v0.4.0/keras_rs/src/layers/embedding"


def layer_label(layer: Any) -> str:
    return f"layer {layer.path or layer.name or '?'!r}"


def table_label(layer: Any, index: int) -> str:
    name = layer.tables[index].name
    return f"table {name!r}" if name else f"table {index}"


def feature_label(feature: Any) -> str:
    return f"feature {feature.name!r}"


def table_path(layer: int, table: int) -> FieldPath:
    return ("layers", layer, "tables", table)


def feature_path(layer: int, feature: int) -> FieldPath:
    return ("layers", layer, "features", feature)


def converted_tables(model: Any, topology: Topology) -> Iterator[tuple[int, Any, int, Any]]:
    """Each (layer index, layer, table index, table) that the backend's SparseCore conversion
    reads: used tables placed on the SparseCores, but those the JAX conversion replaces by an
    earlier table of their name (it never reads them: TE771)."""
    for li, layer in enumerate(model.layers):
        replaced = replaced_tables(layer, topology)
        for t in used_tables(layer):
            table = layer.tables[t]
            if topology.sparsecore_placement(table.placement) and t not in replaced:
                yield li, layer, t, table
