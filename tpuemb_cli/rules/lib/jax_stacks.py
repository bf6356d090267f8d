"""What the JAX rules share: how a message names a stack, a table and a feature of a jax-tpu-
embedding EmbeddingSpecProto, their field paths, and the library's padding arithmetic
(`jax_tpu_embedding/sparsecore/lib/nn/table_stacking.py`, `round_up_dim_and_vocab_size`)."""

from __future__ import annotations

from collections.abc import Iterator
from math import prod
from typing import Any

from tpuemb_cli.load.limits import shown
from tpuemb_cli.model.paths import FieldPath

# The library pads a table's rows to a multiple of this times the SparseCores in all, and its
# embedding dimension to a multiple of this (TPU_VECTOR_REGISTER_ALIGNMENT_SIZE in its C++).
ALIGNMENT = 8


def round_up(value: int, multiple: int) -> int:
    """``value`` rounded up to a multiple of ``multiple`` (the library's
    `_next_largest_multiple`)."""
    return -(-value // multiple) * multiple


def padded_vocab(vocab_size: int, num_sparsecores: int) -> int:
    """The rows the library pads a table of ``vocab_size`` rows to."""
    return round_up(vocab_size, ALIGNMENT * num_sparsecores)


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
    return prod(feature.output_shape[:-1])
