"""TensorFlow 2.21's ``SparseCoreLayoutStacker``, step for step, in Python.

The C++ class (tensorflow/core/tpu/kernels/sparse_core_layout.cc at v2.21.0, behind the pybind
``_pywrap_sparse_core_layout``) decides which tables share a stack and where each table's rows go:

- ``AddTable``: the width is padded to a multiple of 8, the height to a multiple of
  8 x the SparseCores in all. Stacks are kept per (padded width, group); the table joins the first
  stack of its key that stays under every limit (activation bytes:
  4 x padded width x output samples / SparseCores per partition; variable shard bytes:
  4 x padded width x padded height / partitions; rows; tables -- "under" is strict: a sum that
  reaches a limit starts a new stack), or a new stack. With stacking disabled each table is a
  stack of its own. The table's row offset is the stack's height so far / SparseCores, its
  rotation (its index in the stack x SparseCores / partitions) mod SparseCores.
- ``GetLayouts``: the keys in order (a ``btree_map`` of (padded width, group): numbers, then the
  group string byte by byte), each key's stacks in the order they were made, each stack's tables
  in the order they were added; the stacked name is the member names joined with ``_`` and every
  member gets the stack's rows per SparseCore.

The limits are TensorFlow's defaults (``sparse_core_xla_flags_defaults.h``); ``TF_XLA_FLAGS``
can change the byte limits in a TensorFlow process, ``Limits`` here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from tpuemb_cli.model.optimizers import FLOAT_BYTES  # the stacker sizes every table as float32
from tpuemb_cli.pb.layouts import SparseCoreTableLayout, SparseCoreTableLayouts


class Limits(NamedTuple):
    """When a table may not join a stack (0 for a byte limit: no limit)."""

    # kDefaultXlaSparseCoreStackingMemLimit / kDefaultXlaSparseCoreStackingTableShardLimit
    activation_mem_bytes: int = 2_097_152
    variable_shard_bytes: int = 2_147_483_648
    rows: int = (1 << 31) - 1  # SparseCore ops number rows with a signed int
    tables: int = (1 << 31) - 1  # std::numeric_limits<int>::max()


def next_multiple(n: int, factor: int) -> int:
    """The smallest multiple of ``factor`` that is >= ``n`` (NextLargestMultiple)."""
    extra = n % factor
    return n if extra == 0 else n + factor - extra


class _Stack:
    def __init__(self) -> None:
        self.height = 0  # padded rows of all tables so far
        self.activation_bytes = 0
        self.variable_shard_bytes = 0
        self.tables: list[SparseCoreTableLayout] = []


class Stacker:
    """Add tables in TensorFlow's order, then read ``layouts()``."""

    def __init__(
        self,
        num_partitions: int,
        sparse_cores_per_partition: int,
        stacking_enabled: bool = True,
        limits: Limits = Limits(),  # noqa: B008 -- an immutable NamedTuple
    ) -> None:
        if num_partitions < 1 or sparse_cores_per_partition < 1:
            raise ValueError("the stacker needs at least one partition and one SparseCore")
        self.num_partitions = num_partitions
        self.sparse_cores_per_partition = sparse_cores_per_partition
        self.num_sparse_cores = num_partitions * sparse_cores_per_partition
        self.stacking_enabled = stacking_enabled
        self.limits = limits
        self._stacks: dict[tuple[int, str], list[_Stack]] = {}

    def add_table(
        self,
        name: str,
        height: int,
        width: int,
        group: str,
        output_samples: int,
        num_features: int = 0,
    ) -> SparseCoreTableLayout:
        """``AddTable``; returns the table's layout (its stacked name and total rows come later)."""
        samples_per_sparse_core = output_samples // self.sparse_cores_per_partition
        padded_width = next_multiple(width, 8)
        padded_height = next_multiple(height, self.num_sparse_cores * 8)
        activation_bytes = FLOAT_BYTES * padded_width * samples_per_sparse_core
        variable_shard_bytes = FLOAT_BYTES * padded_width * padded_height // self.num_partitions
        candidates = self._stacks.setdefault((padded_width, group), [])
        stack = None
        if self.stacking_enabled:
            stack = next(
                (
                    candidate
                    for candidate in candidates
                    if self._fits(candidate, activation_bytes, variable_shard_bytes, padded_height)
                ),
                None,
            )
        if stack is None:
            stack = _Stack()
            candidates.append(stack)
        layout = SparseCoreTableLayout(
            table_name=name,
            num_sparse_cores=self.num_sparse_cores,
            num_partitions=self.num_partitions,
            unsharded_shape=[height, width],
            unsharded_padded_shape=[padded_height, padded_width],
            sparse_core_shard_row_offset=stack.height // self.num_sparse_cores,
            sparse_core_shard_rotation=(
                len(stack.tables) * self.num_sparse_cores // self.num_partitions
            )
            % self.num_sparse_cores,
            per_sparse_core_batch_size=samples_per_sparse_core,
            num_features=num_features,
        )
        stack.tables.append(layout)
        stack.height += padded_height
        stack.variable_shard_bytes += variable_shard_bytes
        stack.activation_bytes += activation_bytes
        return layout

    def _fits(self, stack: _Stack, activation: int, shard: int, rows: int) -> bool:
        limits = self.limits
        if len(stack.tables) >= limits.tables:
            return False
        if limits.activation_mem_bytes and (
            stack.activation_bytes + activation >= limits.activation_mem_bytes
        ):
            return False
        if limits.variable_shard_bytes and (
            stack.variable_shard_bytes + shard >= limits.variable_shard_bytes
        ):
            return False
        return not (limits.rows and stack.height + rows >= limits.rows)

    def stack_sizes(self) -> list[int]:
        """How many tables each stack has, in the order ``layouts`` lists the stacks."""
        return [len(stack.tables) for stack in self._ordered()]

    def _ordered(self) -> list[_Stack]:
        return [
            stack for key in sorted(self._stacks, key=_btree_key) for stack in self._stacks[key]
        ]

    def stacks(self) -> list[StackLayout]:
        """The stacks in the order ``layouts`` lists them, each with its members' layouts as
        ``add_table`` returned them: the stacked name and the rows per SparseCore are the
        stack's, written into every member only by ``layouts`` (a stack of a thousand tables
        would hold its thousand-name string a thousand times)."""
        return [
            StackLayout(
                "_".join(layout.table_name for layout in stack.tables),
                stack.height // self.num_sparse_cores,
                tuple(stack.tables),
            )
            for stack in self._ordered()
        ]

    def layouts(self) -> SparseCoreTableLayouts:
        """``GetLayouts``: every table's complete layout, stack by stack."""
        return complete_layouts(
            (stack, layout) for stack in self.stacks() for layout in stack.tables
        )


class StackLayout(NamedTuple):
    """A stack as ``GetLayouts`` names and sizes it, and its members in the order they joined."""

    name: str
    rows_per_sparse_core: int
    tables: tuple[SparseCoreTableLayout, ...]


def complete_layouts(
    members: Iterable[tuple[StackLayout, SparseCoreTableLayout]],
) -> SparseCoreTableLayouts:
    """The layouts of ``members`` (each with its stack), in their order, each completed with its
    stack's name and rows per SparseCore, as ``GetLayouts`` returns them."""
    result = SparseCoreTableLayouts()
    for stack, layout in members:
        out = result.tables.add()
        out.CopyFrom(layout)
        out.stacked_table_name = stack.name
        out.total_rows_per_sparse_core_shard = stack.rows_per_sparse_core
    return result


def _btree_key(key: tuple[int, str]) -> tuple[int, bytes]:
    # std::pair<int64_t, std::string>'s order: the width, then the group's bytes.
    return key[0], key[1].encode()
