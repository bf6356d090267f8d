"""What the rules on a JAX spec share (an EmbeddingSpec with a `jax` section, made from
jax-tpu-embedding's FeatureSpecs by `tpuemb_cli.jax.spec_from_jax`): how a message names its
tables and features, their field paths, and which table a feature looks up."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.spec.stacking import DEFAULT_LIMIT, table_of
from tpuemb_cli.load.limits import shown
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.spec.facts import SpecFacts

__all__ = [
    "DEFAULT_LIMIT",
    "feature_label",
    "feature_path",
    "features_with_tables",
    "stacks",
    "table_label",
    "table_of",
    "table_path",
]


def table_label(index: int, table: Any) -> str:
    return f'table "{shown(table.name)}"' if table.name else f"table {index}"


def feature_label(index: int, feature: Any) -> str:
    return f'feature "{shown(feature.name)}"' if feature.name else f"feature {index}"


def table_path(index: int) -> FieldPath:
    return ("tables", index)


def feature_path(index: int) -> FieldPath:
    return ("features", index)


def features_with_tables(spec: Any) -> Iterator[tuple[int, Any, int, Any]]:
    """Each (feature index, feature, table index, table) whose table the spec has."""
    for f, feature in enumerate(spec.features):
        found = table_of(spec, feature)
        if found is not None:
            yield f, feature, found[0], found[1]


def stacks(facts: SpecFacts) -> dict[str, list[int]]:
    """Each stack the library would make of the spec's tables (indexes, in stacking order): the
    explicit stacks, or the automatic ones
    (`tpuemb_cli.frontends.jax.spec.stacking.Stacking.groups`,
    which ``compile --target jax`` stacks by), worked out once for every rule."""
    return facts.jax_stacking.groups
