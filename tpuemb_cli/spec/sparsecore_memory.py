"""The memory ``TPUEmbeddingV2`` allocates for a SparseCore spec: its stacked tables and their slot
variables, on each SparseCore and on each chip.

TensorFlow 2.21 (tensorflow/python/tpu/tpu_embedding_v3.py at v2.21.0) allocates no variable per
table on SparseCores: ``_create_variables_and_slots`` makes one set per *stack* of the layout
(``spec.sparsecore.plan``, which this module reads and never recomputes):

- ``_stack_tables_with_same_table_dim_and_optimizer`` rewrites each table's ``vocabulary_size``
  and ``dim`` to its padded shape (``unsharded_padded_shape``: rows to a multiple of 8 x the
  SparseCores of the slice, width to a multiple of 8);
- ``_create_variables`` then creates the stack's ``parameters`` with shape (sum of its members'
  padded rows, padded width) and dtype float32 (``variable_dtype = dtypes.float32``, whatever the
  table's dtype), and ``optimizer._create_slots`` one variable of that same shape per name of the
  ``_slot_names()`` of the optimizer of the stack's first table in name order -- the tables of a
  stack share their optimizer settings (``tensorflow/python/tpu/tpu_embedding_v2_utils.py``:
  SGD none, Adagrad ``accumulators``, AdagradMomentum ``accumulators, momenta``, Adam
  ``momenta, velocities``, FTRL ``accumulators, linears``); there is no gradient accumulator;
- ``make_sharded_variable_creator`` splits each variable evenly along its rows over the TPU
  devices, and the SparseCores of a device each hold ``total_rows_per_sparse_core_shard`` rows of
  it (``SparseCoreTableLayout``). TPUEmbeddingV2 counts ``num_embedding_devices_per_chip``
  SparseCores per replica (``_num_sc_shards = num_replicas_in_sync x num_sc_per_chip``): a
  replica is a chip, so a chip holds 1/replicas of every variable.

So a SparseCore holds, of every stack, rows per SparseCore x padded width x (1 + slots) x 4 bytes,
and a chip its SparseCores' worth; ``tests/test_tf_sparsecore_memory.py`` compares every
variable's shape and bytes with the variables TPUEmbeddingV2 creates. A custom combiner's
replicated weights (one small vector, not padded with the table) are not counted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from tpuemb_cli.model.optimizers import FLOAT_BYTES

if TYPE_CHECKING:
    from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
    from tpuemb_cli.spec.sparsecore import Plan

PARAMETERS = "parameters"  # tpu_embedding_v3's _PARAMETER_NAME
ENGINE = "SparseCore (TPUEmbeddingV2)"


class StackMemory(NamedTuple):
    """One stacked table's variables."""

    name: str  # the stacked table's name: its variables are <name> and <name>/<slot>
    tables: tuple[str, ...]  # its members, in stacking order
    rows: int  # the variables' rows: the members' padded rows, summed
    width: int  # the padded width
    arrays: tuple[str, ...]  # "parameters", then the optimizer's slot variables
    rows_per_sparse_core: int
    padding_values: int  # values padding adds to one array: rows and columns, all members

    @property
    def array_bytes(self) -> int:
        """Bytes of one of its variables (the parameters or a slot), over the whole slice."""
        return self.rows * self.width * FLOAT_BYTES

    @property
    def per_sparse_core_bytes(self) -> int:
        return self.rows_per_sparse_core * self.width * FLOAT_BYTES * len(self.arrays)


class SparseCoreMemory(NamedTuple):
    """Every stack's variables, and where they go: ``num_partitions`` chips of
    ``sparse_cores_per_chip`` SparseCores each."""

    stacks: tuple[StackMemory, ...]  # in the layouts' order
    num_partitions: int  # replicas, each a chip to TPUEmbeddingV2
    sparse_cores_per_chip: int

    @property
    def num_sparse_cores(self) -> int:
        return self.num_partitions * self.sparse_cores_per_chip

    @property
    def per_sparse_core(self) -> int:
        """Bytes every SparseCore holds (each holds as many rows of every stack)."""
        return sum(stack.per_sparse_core_bytes for stack in self.stacks)

    @property
    def per_chip(self) -> int:
        """Bytes on each chip: its SparseCores' shards of every stack."""
        return self.per_sparse_core * self.sparse_cores_per_chip

    @property
    def total(self) -> int:
        """Bytes of every variable over the whole slice."""
        return sum(stack.array_bytes * len(stack.arrays) for stack in self.stacks)

    @property
    def padding(self) -> int:
        """Bytes of ``total`` that padding adds."""
        return sum(stack.padding_values * FLOAT_BYTES * len(stack.arrays) for stack in self.stacks)

    @property
    def parameters_per_chip(self) -> int:
        """Bytes on each chip without any slot variable: what SGD everywhere would take."""
        return (
            sum(stack.rows_per_sparse_core * stack.width * FLOAT_BYTES for stack in self.stacks)
            * self.sparse_cores_per_chip
        )


def model(spec: EmbeddingSpec, plan: Plan) -> SparseCoreMemory:
    """The variables TPUEmbeddingV2 creates for ``spec`` laid out as ``plan``."""
    from tpuemb_cli.spec.compiler import effective_optimizer
    from tpuemb_cli.spec.sparsecore_state import slot_names

    stacks = []
    for stack in plan.stacks:
        first = stack.members[0]  # the stack's first table in name order: TensorFlow's source
        optimizer = effective_optimizer(spec, spec.tables[first.spec_index])
        assert optimizer is not None  # plan() refuses a table without one
        rows = sum(member.padded_shape[0] for member in stack.members)
        padding_values = sum(
            member.padded_shape[0] * member.padded_shape[1] - member.shape[0] * member.shape[1]
            for member in stack.members
        )
        stacks.append(
            StackMemory(
                stack.name,
                stack.tables,
                rows,
                stack.padded_width,
                (PARAMETERS, *slot_names(optimizer)),
                stack.rows_per_sparse_core,
                padding_values,
            )
        )
    return SparseCoreMemory(tuple(stacks), plan.num_partitions, plan.sparse_cores_per_partition)
