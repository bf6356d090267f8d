"""What the rules on a JAX spec share (an EmbeddingSpec with a `jax` section, made from
jax-tpu-embedding's FeatureSpecs by `tpuemb_cli.jax.spec_from_jax`): how a message names its
tables and features, their field paths, and which table a feature looks up."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.load.limits import shown
from tpuemb_cli.model.paths import FieldPath

# The library's default per-table limits (TableSpec's max_ids_per_partition and
# max_unique_ids_per_partition, `get_default_limits`).
DEFAULT_LIMIT = 256


def table_label(index: int, table: Any) -> str:
    return f'table "{shown(table.name)}"' if table.name else f"table {index}"


def feature_label(index: int, feature: Any) -> str:
    return f'feature "{shown(feature.name)}"' if feature.name else f"feature {index}"


def table_path(index: int) -> FieldPath:
    return ("tables", index)


def feature_path(index: int) -> FieldPath:
    return ("features", index)


def table_of(spec: Any, feature: Any) -> tuple[int, Any] | None:
    """The (index, table) a feature looks up: by name, or `#<i>` for one of two tables of one
    name; None when it names no table of the spec."""
    reference = feature.table
    if reference.startswith("#") and reference[1:].isdigit():
        index = int(reference[1:])
        return (index, spec.tables[index]) if index < len(spec.tables) else None
    for index, table in enumerate(spec.tables):
        if table.name == reference:
            return index, table
    return None


def features_with_tables(spec: Any) -> Iterator[tuple[int, Any, int, Any]]:
    """Each (feature index, feature, table index, table) whose table the spec has."""
    for f, feature in enumerate(spec.features):
        found = table_of(spec, feature)
        if found is not None:
            yield f, feature, found[0], found[1]


def stacks(spec: Any) -> dict[str, list[int]]:
    """Each named stack's tables (indexes, in table order)."""
    found: dict[str, list[int]] = {}
    for index, table in enumerate(spec.tables):
        if table.jax.stack:
            found.setdefault(table.jax.stack, []).append(index)
    return found
