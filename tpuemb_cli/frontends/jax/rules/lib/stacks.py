"""What the JAX rules share: how a message names a stack, a table and a feature of a jax-tpu-
embedding EmbeddingSpecProto, their field paths, and the library's padding arithmetic
(`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`, `round_up_dim_and_vocab_size`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tpuemb_cli.frontends.jax.spec import stacking
from tpuemb_cli.frontends.jax.spec.stacking import ALIGNMENT, padded_vocab, round_up
from tpuemb_cli.load.limits import shown
from tpuemb_cli.model.paths import FieldPath

__all__ = [
    "ALIGNMENT",
    "feature_label",
    "feature_path",
    "features",
    "padded_vocab",
    "round_up",
    "samples",
    "stack_label",
    "stack_path",
    "table_label",
    "table_path",
    "tables",
]


def stack_label(index: int, stack: Any) -> str:
    """``stack "a_b"`` (``stack 2`` when it has no name)."""
    return f'stack "{shown(stack.stack_name)}"' if stack.stack_name else f"stack {index}"


def table_label(index: int, table: Any) -> str:
    return f'table "{shown(table.table_name)}"' if table.table_name else f"table {index}"


def feature_label(index: int, feature: Any) -> str:
    return (
        f'feature "{shown(feature.feature_name)}"' if feature.feature_name else f"feature {index}"
    )


def stack_path(index: int) -> FieldPath:
    return ("stacked_table_specs", index)


def table_path(stack: int, table: int) -> FieldPath:
    return (*stack_path(stack), "table_specs", table)


def feature_path(stack: int, table: int, feature: int) -> FieldPath:
    return (*table_path(stack, table), "feature_specs", feature)


def tables(spec: Any) -> Iterator[tuple[int, Any, int, Any]]:
    """Each (stack index, stack, table index, table)."""
    for s, stack in enumerate(spec.stacked_table_specs):
        for t, table in enumerate(stack.table_specs):
            yield s, stack, t, table


def features(spec: Any) -> Iterator[tuple[int, Any, int, Any, int, Any]]:
    """Each (stack index, stack, table index, table, feature index, feature)."""
    for s, stack, t, table in tables(spec):
        for f, feature in enumerate(table.feature_specs):
            yield s, stack, t, table, f, feature


def samples(feature: Any) -> int:
    """A feature's samples: its output shape without the last (embedding) dimension, as the
    library counts them (`np.prod(output_shape[:-1])`)."""
    return stacking.samples(feature.output_shape)
