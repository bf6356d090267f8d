"""How jax-tpu-embedding lays out the stacks `jax_stacking.stacking` makes: each table's padding,
row offset and rotation, each stack's size, samples and limits, each feature's offsets -- what
``create_proto_from_feature_specs`` then writes (`jax_compiler`).

It follows the library's source at v0.1.0:

- **A stack** (``table_stacking.stack_tables``, ``_stack_feature_specs``): each table's rows
  padded to a multiple of 8 x the SparseCores and its dimension to a multiple of 8, the stack as
  wide as its widest table; a table's row offset in a shard is the padded rows per shard of the
  tables before it, its shard rotation `rotation` (default: SparseCores per device) more than the
  previous table's, modulo the SparseCores; a feature's row offset is the samples of the stack's
  features before it (in flatten order), its column offset its table's row offset x the
  SparseCores, its column shift the rotation. A stack of one table takes that table's limits; a
  stack of several, the stack's (256 unless `jax.stack_max_ids_per_partition` names it:
  ``_get_limits_for_stack``).
- **A table alone** (``prepare_feature_specs_for_training``): a stack of its name, without
  rotation; its features' row offsets in the order of their names.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tpuemb_cli.frontends.jax.spec.stacking import (
    DEFAULT_LIMIT,
    INT64_MAX,
    JaxStackingError,
    Stacking,
    padded_dim,
    padded_vocab,
    problems,
    samples,
    stacking,
    table_of,
    used_tables,
)
from tpuemb_cli.model.words import count


class TableInStack(NamedTuple):
    """A table's place in its stack (its ``TableSettingInStack``)."""

    table: int  # its index in the spec
    padded_vocab_size: int
    padded_embedding_dim: int  # the stack's
    row_offset_in_shard: int
    shard_rotation: int


class Stack(NamedTuple):
    """One stacked table (its ``StackedTableSpec``); ``tables`` in stacking order."""

    name: str
    tables: tuple[TableInStack, ...]
    vocab_size: int
    embedding_dim: int
    total_sample_count: int
    max_ids_per_partition: int
    max_unique_ids_per_partition: int


class FeatureInStack(NamedTuple):
    """A feature's ``FeatureIdTransformation`` and its stack's name."""

    stack: str
    row_offset: int
    col_offset: int
    col_shift: int


class Layout(NamedTuple):
    """The stacks (by name, in the order they were made) and each feature's place."""

    stacks: dict[str, Stack]
    features: tuple[FeatureInStack, ...]  # by the spec's feature index
    num_sparsecores: int


def _stack(
    spec: Any, name: str, members: list[int], features: dict[int, list[int]], stacked: bool
) -> tuple[Stack, dict[int, FeatureInStack]]:
    """``stack_tables`` (``stacked``) or ``prepare_feature_specs_for_training`` on one stack."""
    jax = spec.jax
    num_sc = jax.global_device_count * jax.num_sc_per_device
    rotation = jax.rotation if jax.HasField("rotation") else jax.num_sc_per_device
    width = max(padded_dim(spec.tables[index].dim) for index in members)
    tables: list[TableInStack] = []
    row = shift = 0
    for index in members:
        rows = padded_vocab(spec.tables[index].vocabulary_size, num_sc)
        tables.append(TableInStack(index, rows, width, row, shift))
        row += rows // num_sc
        shift = (shift + rotation) % num_sc if stacked else 0
    in_stack = {placed.table: placed for placed in tables}
    stack_features = [f for index in members for f in features[index]]
    if stacked:
        stack_features.sort()  # flatten order
    else:
        stack_features.sort(key=lambda f: spec.features[f].name)
    offsets: dict[int, int] = {}
    count = 0
    for f in stack_features:
        offsets[f] = count
        count += samples(spec.features[f].output_shape)
    if len(members) == 1:
        own = spec.tables[members[0]].jax
        ids = own.max_ids_per_partition if own.HasField("max_ids_per_partition") else DEFAULT_LIMIT
        unique = (
            own.max_unique_ids_per_partition
            if own.HasField("max_unique_ids_per_partition")
            else DEFAULT_LIMIT
        )
    else:
        ids = jax.stack_max_ids_per_partition.get(name, DEFAULT_LIMIT)
        unique = jax.stack_max_unique_ids_per_partition.get(name, DEFAULT_LIMIT)
    stack = Stack(
        name,
        tuple(tables),
        sum(placed.padded_vocab_size for placed in tables),
        width,
        count,
        ids,
        unique,
    )
    placed_features: dict[int, FeatureInStack] = {}
    for f in stack_features:
        table = table_of(spec, spec.features[f])
        assert table is not None
        placed = in_stack[table[0]]
        placed_features[f] = FeatureInStack(
            name, offsets[f], placed.row_offset_in_shard * num_sc, placed.shard_rotation
        )
    return stack, placed_features


def _fits(stack: Stack, members: list[int]) -> None:
    """Refuses a stack whose figures the proto's int64 fields cannot hold (the library's
    ``create_proto_from_feature_specs`` raises ValueError writing them)."""
    for what, value in (
        ("vocabulary", stack.vocab_size),
        ("sample count", stack.total_sample_count),
    ):
        if value > INT64_MAX:
            raise JaxStackingError(
                ("tables", members[0]),
                f'stack "{stack.name}" has a {what} of {count(value)}, past what the proto\'s '
                "int64 holds: create_proto_from_feature_specs raises ValueError",
                "make the tables or the batches smaller",
            )


def layout(spec: Any, stacked: Stacking | None = None) -> Layout:
    """The library's stacking of ``spec`` (``stacked``: its `Stacking`, when already worked out);
    `JaxStackingError` for what it would refuse."""
    stacked = stacking(spec) if stacked is None else stacked
    for problem in problems(spec, stacked):
        raise problem
    num_sc = spec.jax.global_device_count * spec.jax.num_sc_per_device
    order, features = used_tables(spec)
    used = set(order)
    stacks: dict[str, Stack] = {}
    placed: dict[int, FeatureInStack] = {}
    in_a_stack: set[int] = set()
    for name, members in stacked.groups.items():
        members = [index for index in members if index in used]
        if not members:
            continue
        stack, found = _stack(spec, name, members, features, stacked=True)
        _fits(stack, members)
        stacks[name] = stack
        placed.update(found)
        in_a_stack.update(members)
    for index in order:
        if index in in_a_stack:
            continue
        name = spec.tables[index].name
        stack, found = _stack(spec, name, [index], features, stacked=False)
        _fits(stack, [index])
        stacks[name] = stack
        placed.update(found)
    return Layout(stacks, tuple(placed[f] for f in sorted(placed)), num_sc)
