"""The memory jax-tpu-embedding allocates on each TPU device for an ``EmbeddingSpecProto``: its
stacked tables, their optimizer's slot variables and the input buffers the stacks' limits imply.

Each figure follows the library's source at v0.1.0 (``docs/memory.md`` links each file):

- **Variables** (``lib/nn/embedding.py``, ``init_embedding_variables``): one
  ``EmbeddingVariables(table, slot)`` per stack. On each device, ``_init_stacked_embedding_table_
  shard`` concatenates, for each of the device's SparseCores and each table of the stack, a shard
  of ``padded_vocab_size // num_sparsecores`` rows x ``padded_embedding_dim`` (the table
  initializer's, and each slot initializer's, with that shape): a device holds
  ``SparseCores per device x sum(padded_vocab_size // num_sparsecores)`` rows of the stack, and
  the stack's global variable is ``stack_vocab_size x stack_embedding_dim``. The initializers give
  float32 (4 bytes) by default; another dtype is not in the proto and is not modelled.
- **Slot variables** (``lib/nn/embedding_spec.py``, each ``OptimizerSpec``'s
  ``slot_variables_initializers``): SGD none, Adagrad ``accumulator``, Adam ``momentum,
  velocity``, FTRL ``accumulator, linear``, F2A ``accumulator, local_step``, Adagrad-momentum
  ``accumulator, momentum``. Only the 0.2.0 proto records a table's optimizer
  (``TableSpecProto.optimizer``); a 0.1.0 proto, or a CUSTOM optimizer, has parameters only and
  the report says so.
- **Input buffers** (``lib/core/input_preprocessing_util.cc``,
  ``ComputeTheoreticalMaxCooBufferSize``: ``RoundUpTo(max_ids_per_partition, 8) x
  num_sc_per_device x num_scs``, times 64 buckets with minibatching, which this model leaves
  off): the COO buffer a device gets per stack when no ``suggested_coo_buffer_size`` is given --
  ``lhs_embedding_ids`` and ``lhs_sample_ids`` (int32) and ``lhs_gains`` (float32) of that many
  elements (``eval_preprocess_sparse_dense_matmul_input_shape``), and ``lhs_row_pointers``
  (int32) of ``max(num_scs, 8) x num_sc_per_device`` (``GetRowPointersSizePerDevice``). The
  library refuses (``CHECK``) a COO buffer size of ``INT_MAX`` or more.

Per SparseCore, every figure is independent of how the SparseCores are grouped into devices; per
device, it is that times the chip's SparseCores per device (``NUM_SC_PER_DEVICE_MAP``), which
only a named TPU gives.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tpuemb_cli.frontends.jax.spec.stacking import ALIGNMENT, FLOAT_BYTES, round_up
from tpuemb_cli.model import optimizers

INT_MAX = 2**31 - 1
COO_ARRAYS = ("embedding_ids", "sample_ids", "gains")  # each of the COO buffer's size
PARAMETERS = "parameters"

# OptimizerSpecProto.OptimizerType's names -> the slot variables the library's OptimizerSpec
# creates (None: CUSTOM, whose slots the proto does not say): the optimizer table's JAX column.
SLOTS = optimizers.JAX_SLOTS


def theoretical_max_coo_buffer_size(
    max_ids_per_partition: int, global_device_count: int, num_sc_per_device: int
) -> int:
    """The library's ``compute_theoretical_max_coo_buffer_size`` (minibatching off): elements of
    a device's COO buffer for one stack."""
    num_scs = global_device_count * num_sc_per_device
    return round_up(max_ids_per_partition, ALIGNMENT) * num_sc_per_device * num_scs


class JaxStackMemory(NamedTuple):
    """One stack's variables and input buffers."""

    name: str
    tables: tuple[str, ...]
    rows: int  # stack_vocab_size: the global variable's rows
    width: int  # stack_embedding_dim
    rows_per_sparse_core: int  # sum over its tables of padded_vocab_size // num_sparsecores
    arrays: tuple[str, ...]  # "parameters", then the slot variables known
    optimizer: str  # the optimizer's name, "" when the proto records none
    max_ids_per_partition: int
    num_sparsecores: int
    # What statistics measured for the stack (``--stats``): the most ids in a partition, and
    # the largest buffer one SparseCore required (None: not measured).
    measured_ids: int | None = None
    measured_buffer_per_sc: int | None = None

    @property
    def measured(self) -> bool:
        return self.measured_ids is not None or self.measured_buffer_per_sc is not None

    def measured_coo_size(self, per_device: int) -> int | None:
        """Elements of a device's COO buffer at the measured sizes: what the library allocates
        once ``update_preprocessing_parameters`` set the stack's limits and
        ``suggested_coo_buffer_size_per_device`` from the statistics (the required size of the
        fullest SparseCore times the SparseCores a device, rounded up to 8 a SparseCore:
        ``MayBeUpdateBufferSize``), or, without a measured buffer, the theoretical maximum at
        the measured ids; None when nothing was measured."""
        if self.measured_buffer_per_sc is not None:
            return round_up(self.measured_buffer_per_sc * per_device, ALIGNMENT * per_device)
        if self.measured_ids is not None:
            return round_up(self.measured_ids, ALIGNMENT) * per_device * self.num_sparsecores
        return None

    def measured_buffers(self, per_device: int) -> int:
        """Bytes of a device's input buffers at the measured sizes (the limits' where nothing
        was measured)."""
        coo = self.measured_coo_size(per_device)
        if coo is None:
            return self.buffers(per_device)
        row_pointers = max(self.num_sparsecores, ALIGNMENT) * per_device
        return (len(COO_ARRAYS) * coo + row_pointers) * FLOAT_BYTES

    @property
    def variables_per_sparse_core(self) -> int:
        """Bytes of its parameters and slots one SparseCore's shard holds."""
        return self.rows_per_sparse_core * self.width * FLOAT_BYTES * len(self.arrays)

    @property
    def coo_per_sparse_core(self) -> int:
        """Elements of the COO buffer per SparseCore: the device's over its SparseCores."""
        return round_up(self.max_ids_per_partition, ALIGNMENT) * self.num_sparsecores

    def coo_size(self, per_device: int) -> int:
        """``compute_theoretical_max_coo_buffer_size`` for ``per_device`` SparseCores a device."""
        return self.coo_per_sparse_core * per_device

    def refused(self, per_device: int) -> bool:
        """Whether the library refuses this stack's COO buffer (a limit past 32 bits raises
        TypeError, a buffer of ``INT_MAX`` elements or more aborts): it allocates nothing."""
        return self.max_ids_per_partition > INT_MAX or self.coo_size(per_device) >= INT_MAX

    def buffers(self, per_device: int) -> int:
        """Bytes of a device's input buffers for this stack: the COO arrays and row pointers;
        none for a buffer the library refuses (TE671 says so: a size it never allocates would
        only hide what the rest takes)."""
        if self.refused(per_device):
            return 0
        row_pointers = max(self.num_sparsecores, ALIGNMENT) * per_device
        return (len(COO_ARRAYS) * self.coo_size(per_device) + row_pointers) * FLOAT_BYTES

    def variables(self, per_device: int) -> int:
        return self.variables_per_sparse_core * per_device


class JaxMemory(NamedTuple):
    """Every stack's memory; ``per_device``: SparseCores a device (None: no chip says)."""

    stacks: tuple[JaxStackMemory, ...]
    per_device: int | None

    @property
    def optimizers_known(self) -> bool:
        """Whether every stack's slot variables are known (the proto records its optimizer)."""
        return all(SLOTS.get(stack.optimizer) is not None for stack in self.stacks)

    @property
    def num_sparsecores(self) -> int:
        return max((stack.num_sparsecores for stack in self.stacks), default=0)

    @property
    def devices(self) -> int | None:
        if not self.per_device or self.num_sparsecores % self.per_device:
            return None
        return self.num_sparsecores // self.per_device

    @property
    def variables_per_device(self) -> int:
        assert self.per_device is not None
        return sum(stack.variables(self.per_device) for stack in self.stacks)

    @property
    def buffers_per_device(self) -> int:
        assert self.per_device is not None
        return sum(stack.buffers(self.per_device) for stack in self.stacks)

    @property
    def per_device_bytes(self) -> int:
        """What a device holds: every stack's variables and input buffers."""
        return self.variables_per_device + self.buffers_per_device

    @property
    def parameters_per_device(self) -> int:
        """A device's bytes without any slot variable: SGD on every table."""
        assert self.per_device is not None
        return self.per_device_bytes - sum(
            stack.rows_per_sparse_core * stack.width * FLOAT_BYTES * (len(stack.arrays) - 1)
            * self.per_device
            for stack in self.stacks
        )  # fmt: skip

    @property
    def measured(self) -> bool:
        """Whether statistics were measured for any stack."""
        return any(stack.measured for stack in self.stacks)

    @property
    def measured_buffers_per_device(self) -> int:
        assert self.per_device is not None
        return sum(stack.measured_buffers(self.per_device) for stack in self.stacks)

    @property
    def measured_per_device_bytes(self) -> int:
        """What a device holds with the input buffers at the measured sizes."""
        return self.variables_per_device + self.measured_buffers_per_device

    def too_large(self) -> list[JaxStackMemory]:
        """Stacks whose COO buffer the library refuses (``JaxStackMemory.refused``)."""
        if self.per_device is None:
            return []
        return [s for s in self.stacks if s.refused(self.per_device)]


def _optimizer(stack: Any) -> str:
    """The name of the optimizer of the stack's first table (a stack's tables share it), or ""
    when the proto records none (0.1.0)."""
    for table in stack.table_specs:
        if table.HasField("optimizer"):
            types = type(table.optimizer).OptimizerType
            kind = table.optimizer.type
            return str(types.Name(kind)) if kind in types.values() else "CUSTOM"
        return ""
    return ""


def model(spec: Any, per_device: int | None, stats: Any = None) -> JaxMemory:
    """The memory the library allocates for the stacks of ``spec`` (an EmbeddingSpecProto).
    A stack without SparseCores (TE681 says so) has no shard and counts nothing. ``stats``:
    statistics measured for the stacks (an FdoReading), matched by stack name."""
    measured = stats.stacks if stats is not None else {}
    stacks = []
    for stack in spec.stacked_table_specs:
        cores = stack.num_sparsecores
        optimizer = _optimizer(stack)
        slots = SLOTS.get(optimizer) or ()
        rows = (
            sum(max(table.padded_vocab_size, 0) // cores for table in stack.table_specs)
            if cores > 0
            else 0
        )
        stacks.append(
            JaxStackMemory(
                stack.stack_name,
                tuple(table.table_name for table in stack.table_specs),
                stack.stack_vocab_size,
                max(stack.stack_embedding_dim, 0),
                rows,
                (PARAMETERS, *slots),
                optimizer,
                max(stack.max_ids_per_partition, 0),
                max(cores, 0),
                *_measured(measured.get(stack.stack_name)),
            )
        )
    return JaxMemory(tuple(stacks), per_device)


def _measured(found: Any) -> tuple[int | None, int | None]:
    if found is None:
        return None, None
    return found.max_ids_max, found.required_buffer_size_max
