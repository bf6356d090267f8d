"""`tpuemb explain` of a JAX SparseCore EmbeddingSpecProto: each stack, its tables (sizes as given
and as padded, where their rows sit in each shard, combiner and optimizer) and the features that
look them up (shapes and offsets in the stack)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tpuemb_cli.load import Document
from tpuemb_cli.model.words import number, plural
from tpuemb_cli.views.text import grid

TABLE_COLUMNS = (
    "table",
    "rows x dim",
    "padded",
    "row offset",
    "rotation",
    "combiner",
    "optimizer",
    "features",
)
FEATURE_COLUMNS = ("feature", "table", "input shape", "output shape", "row", "col", "shift")


def _optimizer(table: Any) -> str:
    """``adagrad, lr 0.1``: the optimizer 0.2.0 records (0.1.0 records none: "-")."""
    if not table.HasField("optimizer"):
        return "-"
    optimizer = table.optimizer
    types = type(optimizer).OptimizerType
    # A number the mirror does not name (a newer library's, in binary) is shown as the number.
    known = optimizer.type in types.values()
    name = str(types.Name(optimizer.type)).lower() if known else f"type {optimizer.type}"
    which = optimizer.WhichOneof("learning_rate_spec")
    if which == "learning_rate":
        return f"{name}, lr {number(optimizer.learning_rate)}"
    if which == "learning_rate_tag":
        return f"{name}, lr {optimizer.learning_rate_tag}"
    return name


def _shape(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(size) for size in shape) + "]"


def _stack(index: int, stack: Any) -> list[str]:
    name = stack.stack_name or f"#{index}"
    limit = (
        f", activation limit {stack.activation_mem_bytes_limit:,} bytes"
        if stack.HasField("activation_mem_bytes_limit")
        else ""
    )
    lines = [
        f'stack "{name}": {stack.stack_vocab_size:,} rows x {stack.stack_embedding_dim} on '
        f"{plural(stack.num_sparsecores, 'SparseCore')}, "
        f"{plural(stack.total_sample_count, 'sample')}; at most {stack.max_ids_per_partition} ids "
        f"({stack.max_unique_ids_per_partition} unique) per partition{limit}"
    ]
    tables = [list(TABLE_COLUMNS)]
    features = [list(FEATURE_COLUMNS)]
    for number_, table in enumerate(stack.table_specs):
        table_name = table.table_name or f"#{number_}"
        tables.append(
            [
                table_name,
                f"{table.vocab_size} x {table.embedding_dim}",
                f"{table.padded_vocab_size} x {table.padded_embedding_dim}",
                str(table.row_offset_in_shard),
                str(table.shard_rotation),
                table.combiner or "-",
                _optimizer(table),
                ", ".join(f.feature_name or "-" for f in table.feature_specs) or "-",
            ]
        )
        for feature in table.feature_specs:
            features.append(
                [
                    feature.feature_name or "-",
                    table_name,
                    _shape(feature.input_shape),
                    _shape(feature.output_shape),
                    str(feature.row_offset),
                    str(feature.col_offset),
                    str(feature.col_shift),
                ]
            )
    lines += ["", *grid(tables)]
    if len(features) > 1:
        lines += ["", *grid(features)]
    return lines


def explain_jax_spec(document: Document) -> tuple[str, list[str]]:
    """A JAX EmbeddingSpecProto: a header counting stacks, tables and features; then each stack."""
    message: Any = document.message
    stacks = list(message.stacked_table_specs)
    tables = sum(len(stack.table_specs) for stack in stacks)
    features = sum(len(t.feature_specs) for stack in stacks for t in stack.table_specs)
    header = (
        f"{document.name} (JAX SparseCore stacks: {plural(len(stacks), 'stack')}, "
        f"{plural(tables, 'table')}, {plural(features, 'feature')})"
    )
    lines: list[str] = []
    for index, stack in enumerate(stacks):
        if lines:
            lines.append("")
        lines += _stack(index, stack)
    return header, lines or ["no stacks"]
