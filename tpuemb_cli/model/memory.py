"""The memory a config's embedding tables take on each core: exactly TensorFlow's shapes.

TensorFlow 2.21 computes, on CPU, the shape of every table's shard and how many state arrays it
has -- ``RetrieveAllTPUEmbeddingParameters``' shape function (and the check in
``LoadAllTPUEmbeddingParameters``'), in ``tensorflow/core/tpu/ops/tpu_embedding_ops.cc``. This
module is the same arithmetic, and ``tests/test_tf_memory.py`` compares it with those ops:

- **rows of a shard** (``TpuEmbeddingShapeUtil::ComputeNumEmbeddingIdsPerShard``,
  ``tensorflow/core/tpu/ops/tpu_embedding_shape_util.cc``): ``vocabulary_size // shards``, plus
  one on the first ``vocabulary_size % shards`` shards. Both sharding strategies give these
  counts (MOD puts id *i* on shard *i mod n*; DIV gives each shard a contiguous range), so shard
  0 always holds the most rows, ``ceil(vocabulary_size / shards)``. A shard with no row is an
  error ("All embedding shards must be non-empty").
- **state arrays** (``GetOptimizationAlgorithmStateVariables``,
  ``tensorflow/core/tpu/tpu_embedding_optimization_parameters_utils.cc``): the parameters, the
  algorithm's slots (its row in ``model.optimizers``), and one gradient accumulator when
  accumulation is used -- when ``gradient_accumulation_status`` is UNSPECIFIED or ENABLED and
  the algorithm has room for it (at most 8 arrays in all).
- **bytes**: every array is ``float`` in those ops (``FLOAT_BYTES``, 4), ``rows x dimension``
  each.

TensorFlow's load and retrieve ops shard per host (``num_shards=len(hosts)`` in
``tpu_embedding_v2.py``), so a table with fewer rows than ``num_hosts`` is refused there (the
Python API pads such a table to one row a host when it writes the config; a config file is taken
as written): the model gives it no memory and says why (``empty_shards``). On the chip, the
embedding engine spreads a host's rows over its cores. tpuemb's per-core figure applies the same
split with one shard per TensorFlow core (``num_tensor_cores``): the first core holds
``ceil(vocabulary_size / cores)`` rows of every table, the most -- one row of a table with fewer
rows than cores (but not than hosts), while the last cores hold none of it. The per-core figure
is the sum over tables of those shards. The model is one pass over the tables.
"""

from __future__ import annotations

from typing import NamedTuple

from tpuemb_cli.model import optimizers
from tpuemb_cli.model.optimizers import FLOAT_BYTES
from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import OptimizationParameters
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

MAX_STATE_ARRAYS = 8  # tpu::kMaxAuxiliaryParameterCount (7) + the parameters

# Each algorithm's state variables after "parameters" (user_defined_program's depend on its
# program): a view of the optimizer table, for readers and tests; the model reads the table.
SLOTS: dict[str, tuple[str, ...]] = {
    row.field: row.slots for row in optimizers.TABLE if row.slots is not None
}
GRADIENT_ACCUMULATOR = "gradient_accumulators"


class NotAllocated(ValueError):
    """TensorFlow refuses the table (its shape functions fail): why, in a sentence."""


def _slots(params: OptimizationParameters, algorithm: str) -> tuple[str, ...]:
    row = optimizers.algorithm(algorithm)
    if row is None:  # a oneof field without a row: tests/test_memory.py keeps the table whole
        raise KeyError(algorithm)
    if row.slots is not None:
        return row.slots
    from tpuemb_cli.model.program_shape import Malformed, inputs_and_outputs

    try:
        inputs, outputs = inputs_and_outputs(
            params.user_defined_program.program.SerializeToString()
        )
    except Malformed as error:
        raise NotAllocated(f"its user-defined program does not parse ({error})") from None
    if inputs < 2 or inputs not in (outputs + 1, outputs + 2):
        raise NotAllocated(
            f"its user-defined program has {inputs} inputs and {outputs} outputs; TensorFlow "
            "needs at least two inputs and one or two outputs fewer than inputs"
        )
    return tuple(f"Slot_{index}" for index in range(outputs - 1))


def state_arrays(params: OptimizationParameters) -> tuple[str, ...]:
    """The names of a table's state arrays, parameters first, as TensorFlow lists them; raises
    NotAllocated where TensorFlow's GetOptimizationAlgorithmStateVariables fails."""
    algorithm = params.WhichOneof("parameters")
    if algorithm is None:
        raise NotAllocated("it has no optimization algorithm")
    slots = _slots(params, algorithm)
    status = params.gradient_accumulation_status
    if status not in (0, 1, 2):  # UNSPECIFIED and ENABLED use it, DISABLED does not
        raise NotAllocated(f"gradient_accumulation_status {status} is not one TensorFlow handles")
    accumulate = status != 2
    if accumulate and len(slots) + 1 > MAX_STATE_ARRAYS - 1:
        raise NotAllocated(
            f"{algorithm} with {len(slots)} slots has no room for gradient accumulation, which "
            "is on (set gradient_accumulation_status: DISABLED)"
        )
    arrays = ("parameters", *slots, *((GRADIENT_ACCUMULATOR,) if accumulate else ()))
    if len(arrays) > MAX_STATE_ARRAYS:
        raise NotAllocated(f"{len(arrays)} state arrays; TensorFlow allows {MAX_STATE_ARRAYS}")
    return arrays


def rows_per_shard(vocabulary_size: int, shard: int, shards: int) -> int:
    """Rows of ``shard`` (0-based) of a table split into ``shards``; raises NotAllocated as
    ComputeNumEmbeddingIdsPerShard does (C++ integer division: floor, remainder truncated)."""
    if shards <= 0:
        raise NotAllocated(f"{shards} shards; there must be at least one")
    rows = vocabulary_size // shards
    remainder = abs(vocabulary_size) % shards * (1 if vocabulary_size >= 0 else -1)
    if shard < remainder:
        rows += 1
    if rows == 0:
        raise NotAllocated(
            f"vocabulary_size {vocabulary_size} leaves shard {shard} of {shards} empty"
        )
    if rows < 0:
        raise NotAllocated(f"vocabulary_size {vocabulary_size} is negative")
    return rows


def empty_shards(vocabulary_size: int, shards: int) -> str | None:
    """The error of TensorFlow's load and retrieve ops on a table of ``vocabulary_size`` rows
    split into ``shards`` (the hosts), in their words (for the first empty shard); None when
    every shard has a row (or the vocabulary or the shard count is not positive: other checks
    say so)."""
    if not 1 <= vocabulary_size < shards:
        return None
    return (
        "InvalidArgumentError: All embedding shards must be non-empty, shard ID: "
        f"{vocabulary_size} is empty, vocabulary size: {vocabulary_size}, number of shards: "
        f"{shards}"
    )


class TableMemory(NamedTuple):
    """One table on one core: the largest shard (shard 0) and what it holds."""

    table_index: int
    name: str
    rows: int  # rows of the largest shard
    dimension: int
    arrays: tuple[str, ...]  # state arrays, parameters first
    shard_bytes: int  # rows x dimension x arrays x 4


class Refused(NamedTuple):
    """A table TensorFlow would not allocate, and why."""

    table_index: int
    name: str
    reason: str


class Memory(NamedTuple):
    shards: int  # one per core
    tables: tuple[TableMemory, ...]
    refused: tuple[Refused, ...]

    @property
    def per_core(self) -> int:
        """Bytes on the fullest core (core 0 holds every table's largest shard)."""
        return sum(table.shard_bytes for table in self.tables)


def _refusal(arrays: tuple[str, ...] | str, vocabulary: int, dimension: int, cores: int) -> str:
    """Why a table gets no memory: its optimizer's reason, else its size's, else the cores'."""
    if isinstance(arrays, str):
        return arrays
    if dimension < 0:
        return f"dimension {dimension} is negative"
    if vocabulary < 1:
        return f"vocabulary_size {vocabulary} has no rows"
    return f"{cores} cores; there must be at least one"


def model(config: TPUEmbeddingConfiguration, shards: int | None = None) -> Memory:
    """The memory of every table of ``config`` on ``shards`` cores (its ``num_tensor_cores``
    when None)."""
    count = config.num_tensor_cores if shards is None else shards
    hosts = config.num_hosts
    tables: list[TableMemory] = []
    refused: list[Refused] = []
    # The state arrays depend on the algorithm and the accumulation status alone (and a
    # user-defined program's shape): worked out once for each.
    known: dict[tuple[str | None, int, bytes], tuple[str, ...] | str] = {}
    for index, table in enumerate(config.table_descriptor):
        params = table.optimization_parameters
        algorithm = params.WhichOneof("parameters")
        program = (
            params.user_defined_program.program.SerializeToString()
            if algorithm == "user_defined_program"
            else b""
        )
        key = (algorithm, params.gradient_accumulation_status, program)
        arrays = known.get(key)
        if arrays is None:
            try:
                arrays = state_arrays(params)
            except NotAllocated as error:
                arrays = str(error)
            known[key] = arrays
        vocabulary, dimension = table.vocabulary_size, table.dimension
        empty = empty_shards(vocabulary, hosts)
        if empty is not None and not isinstance(arrays, str):
            refused.append(
                Refused(
                    index,
                    table.name,
                    f"{vocabulary} rows for {hosts} hosts leave {hosts - vocabulary} hosts "
                    f"without a row; its load and retrieve ops fail ({empty})",
                )
            )
            continue
        if isinstance(arrays, str) or vocabulary < 1 or dimension < 0 or count < 1:
            refused.append(
                Refused(index, table.name, _refusal(arrays, vocabulary, dimension, count))
            )
            continue
        # The first core's rows. A table with fewer rows than cores (at least one a host) has
        # one row on each of the first cores.
        rows = -(-vocabulary // count)
        shard_bytes = rows * dimension * len(arrays) * FLOAT_BYTES
        tables.append(TableMemory(index, table.name, rows, dimension, arrays, shard_bytes))
    return Memory(count, tuple(tables), tuple(refused))


# Above this share of a core's HBM, the tables' state alone leaves the rest of the program too
# little: TE602's threshold (its docstring says why), and where `explain --memory` gives advice.
WARNING_PERCENT = 80


def size(count: int) -> str:
    """Bytes as a user reads them: ``812 B``, ``1.5 KiB``, ``244.1 MiB``, ``95.0 GiB``."""
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{count} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def sizes(count: int, other: int) -> tuple[str, str]:
    """Two sizes to compare: in bytes when rounding would show them equal."""
    shown = size(count), size(other)
    if shown[0] == shown[1] and count != other:
        return f"{count:,} bytes", f"{other:,} bytes"
    return shown


def cheaper(memory: Memory) -> tuple[int, int]:
    """Bytes on the fullest core (without gradient accumulation anywhere, with SGD and no
    accumulation everywhere): what cheaper optimizer state would give."""
    without, sgd = 0, 0
    for table in memory.tables:
        arrays = len(table.arrays) - (GRADIENT_ACCUMULATOR in table.arrays)
        without += table.rows * table.dimension * arrays * FLOAT_BYTES
        sgd += table.rows * table.dimension * FLOAT_BYTES
    return without, sgd
