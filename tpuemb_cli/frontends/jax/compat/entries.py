"""What a jax-tpu-embedding checkpoint holds for an ``EmbeddingSpecProto``: one entry per stack.

The library's variables are ``{stack_name: EmbeddingVariables(table, slot)}``
(``init_embedding_variables`` in ``lib/nn/embedding.py``, v0.1.0): per stack, one array of
``stack_vocab_size x stack_embedding_dim`` rows sharded over the devices (a device holds its
SparseCores' shards, ``stack_vocab_size / num_sparsecores`` rows each), and a tuple of slot
arrays of the same shape, one per slot of the stack's optimizer. Orbax saves that tree and
restores it by key and shape, strictly by default (a missing or extra key, another number of
slots, another shape: ``ValueError``; tests/test_jax_diff_oracle.py shows each).

Inside a stack's array, a table's row ``r`` sits on SparseCore shard ``(r mod N + rotation) mod
N`` at row ``row_offset_in_shard + r div N`` of that shard (``N = num_sparsecores``,
``_stack_and_shard_table`` in ``lib/nn/table_stacking.py``): the same array under another
SparseCore count, offset or rotation holds the same values for other rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Protocol, TypeVar

from tpuemb_cli.frontends.jax.spec.memory import SLOTS
from tpuemb_cli.load import Document
from tpuemb_cli.model.findings import Position
from tpuemb_cli.model.paths import FieldPath


class TablePlace(NamedTuple):
    """A table of a stack, and where its rows sit in the stack's array."""

    stack: int  # index in stacked_table_specs
    position: int  # in the stack's table_specs
    name: str
    vocab: int
    dim: int
    padded_vocab: int
    padded_dim: int
    row_offset_in_shard: int
    shard_rotation: int
    optimizer: Any  # its OptimizerSpecProto (0.2.0), or None
    combiner: str

    @property
    def path(self) -> FieldPath:
        return ("stacked_table_specs", self.stack, "table_specs", self.position)

    @property
    def placement(self) -> tuple[int, int, int]:
        """What decides where its rows go, with the stack's SparseCore count and shape."""
        return (self.padded_vocab, self.row_offset_in_shard, self.shard_rotation)


class StackVariables(NamedTuple):
    """A stack as its checkpoint entry knows it."""

    position: int  # in stacked_table_specs
    name: str
    rows: int  # stack_vocab_size
    width: int  # stack_embedding_dim
    num_sparsecores: int
    optimizer: str  # OptimizerSpecProto.OptimizerType's name, "" when not recorded (0.1.0)
    max_ids_per_partition: int
    max_unique_ids_per_partition: int
    total_sample_count: int
    tables: tuple[TablePlace, ...]
    # The slot arrays where the document knows them and the proto does not say (a spec names
    # its optimizer's class; the proto records LaProp as CUSTOM).
    known_slots: tuple[str, ...] | None = None

    @property
    def path(self) -> FieldPath:
        return ("stacked_table_specs", self.position)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.rows, self.width)

    @property
    def slots(self) -> tuple[str, ...] | None:
        """The slot arrays of ``EmbeddingVariables.slot``, in order; None when the proto does
        not say (no optimizer recorded, or a CUSTOM one) and the document does not either."""
        if self.known_slots is not None:
            return self.known_slots
        return SLOTS.get(self.optimizer) if self.optimizer else None

    @property
    def table_names(self) -> tuple[str, ...]:
        return tuple(table.name for table in self.tables)

    @property
    def layout(self) -> tuple[object, ...]:
        """Everything that decides which value of the array is which row of which table (the
        order the proto lists a stack's tables in is not: each table's offset and rotation
        place it)."""
        return (
            self.shape,
            self.num_sparsecores,
            tuple(sorted((t.name, *t.placement) for t in self.tables)),
        )


def _optimizer_name(table: Any) -> str:
    if not table.HasField("optimizer"):
        return ""
    types = type(table.optimizer).OptimizerType
    kind = table.optimizer.type
    return str(types.Name(kind)) if kind in types.values() else "CUSTOM"


def stacks_of(proto: Any) -> list[StackVariables]:
    """The checkpoint entries of ``proto`` (an EmbeddingSpecProto), in its order."""
    stacks = []
    for s, stack in enumerate(proto.stacked_table_specs):
        tables = tuple(
            TablePlace(
                s,
                t,
                table.table_name,
                table.vocab_size,
                table.embedding_dim,
                table.padded_vocab_size,
                table.padded_embedding_dim,
                table.row_offset_in_shard,
                table.shard_rotation,
                table.optimizer if table.HasField("optimizer") else None,
                table.combiner,
            )
            for t, table in enumerate(stack.table_specs)
        )
        optimizer = next((_optimizer_name(t) for t in stack.table_specs), "")
        stacks.append(
            StackVariables(
                s,
                stack.stack_name,
                stack.stack_vocab_size,
                stack.stack_embedding_dim,
                stack.num_sparsecores,
                optimizer,
                stack.max_ids_per_partition,
                stack.max_unique_ids_per_partition,
                stack.total_sample_count,
                tables,
            )
        )
    return stacks


Key = tuple[str, int]


class _Named(Protocol):
    @property
    def name(self) -> str: ...


N = TypeVar("N", bound=_Named)


def keyed(items: Iterable[N]) -> dict[Key, N]:
    """Stacks (a checkpoint's keys) or a stack's tables by name. (A name twice is no layout the
    library writes; the n-th of a name is matched with the n-th, so that a layout against
    itself is no change.)"""
    seen: dict[str, int] = {}
    keyed = {}
    for item in items:
        nth = seen[item.name] = seen.get(item.name, -1) + 1
        keyed[item.name, nth] = item
    return keyed


class JaxSide(NamedTuple):
    """One side of a comparison of stacked layouts: the document, its EmbeddingSpecProto (the
    document's own, or what a spec with a ``jax`` section compiles to), and its stacks.

    ``to_file`` turns a path in the proto into the document's own terms (a spec's table), or is
    None when the document is the proto."""

    document: Document
    proto: Any
    stacks: list[StackVariables]
    to_file: Callable[[FieldPath], FieldPath] | None = None
    # Each table by name, the first of a name (TE697 reports the others): looked up once a table,
    # which a scan of every stack made quadratic (10,000 tables took 10 s).
    by_name: dict[str, TablePlace] | None = None

    @property
    def file(self) -> str:
        return self.document.name

    def file_path(self, path: FieldPath) -> FieldPath:
        return self.to_file(path) if self.to_file is not None else path

    def place(self, path: FieldPath) -> tuple[FieldPath, Position | None]:
        return self.document.located(self.file_path(path))

    def table_named(self, name: str) -> TablePlace | None:
        return self.by_name.get(name) if self.by_name is not None else None


def jax_side(
    document: Document, proto: Any, to_file: Callable[[FieldPath], FieldPath] | None = None
) -> JaxSide:
    stacks = stacks_of(proto)
    by_name: dict[str, TablePlace] = {}
    for stack in stacks:
        for table in stack.tables:
            by_name.setdefault(table.name, table)
    return JaxSide(document, proto, stacks, to_file, by_name)
