"""What jax-tpu-embedding's host preprocessing needs to know of a stack before it reads an id:
its features' offsets, its limits, its COO buffer, and which sample rows each SparseCore reads.
Plain Python (no numpy): `stats.compute` does the counting.

Each rule follows the library's source at v0.1.0:

- **A stack's features** (``GetStackedTableMetadata`` in
  `lib/core/pybind_input_preprocessing.cc
  <https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/pybind_input_preprocessing.cc>`_):
  each feature's ``row_offset``, ``col_offset`` and ``col_shift`` (its ``FeatureIdTransformation``,
  what the EmbeddingSpecProto records), sorted by row offset; the stack's limits and suggested
  COO buffer are its first feature's ``StackedTableSpec``'s.
- **Which rows each SparseCore reads** (``ExtractCooTensorsForAllFeaturesPerLocalDevice`` in
  `lib/core/input_preprocessing.cc
  <https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/input_preprocessing.cc>`_):
  a device's batch is the sum over the stack's features of ``rows // local devices``, and must
  be a multiple of the SparseCores a device (``CHECK``: the process aborts) and at least the
  SparseCores x the features. Each feature is cut in ``local devices x SparseCores`` slices of
  ``rows // (local devices x SparseCores)`` rows: slice ``s`` of device ``d`` reads rows
  ``[(d x S + s) x n, (d x S + s + 1) x n)``, so the rows past the last whole slice are read by
  no SparseCore. A row's sample id is its place in its slice plus ``s x batch per SparseCore``
  plus ``row_offset // (global devices x S)``.
- **The COO buffer** (``ComputeCooBufferSizePerDevice`` in
  `lib/core/input_preprocessing_util.cc
  <https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/input_preprocessing_util.cc>`_):
  ``RoundUpTo(max_ids_per_partition, 8) x S x SparseCores``, or a suggested size rounded up to
  ``8 x S`` (``CHECK``: not above that maximum); a SparseCore gets an S-th.
- **Filling it** (``FillBufferSegment``, same file): a SparseCore's ids go in partition by
  partition, each partition's start aligned to 8; the ids past the SparseCore's share of the
  buffer are dropped, whatever ``allow_id_dropping`` says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

ALIGNMENT = 8  # TPU_VECTOR_REGISTER_ALIGNMENT_SIZE (input_preprocessing_util.h)
# A COO key keeps 26 bits of a sample id (coo_format.h: kDataBits = 32 - 6).
SAMPLE_ID_LIMIT = 1 << 26
INT_MAX = 2**31 - 1


class StatsError(ValueError):
    """What the library's preprocessing refuses or aborts on, or input tpuemb cannot use: the
    message names the stack or feature, the value and the fix."""


def round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


class FeaturePlan(NamedTuple):
    """A feature as the preprocessing sees it (``FeatureMetadataInStack``)."""

    name: str
    row_offset: int
    col_offset: int
    col_shift: int
    batch: int  # input_shape[0], what the spec says (the preprocessing counts the rows given)


class StackPlan(NamedTuple):
    name: str
    features: tuple[FeaturePlan, ...]  # sorted by row offset, as the library sorts them
    max_ids_per_partition: int
    max_unique_ids_per_partition: int
    suggested_coo_buffer_size_per_device: int | None = None


class Devices(NamedTuple):
    """The preprocessing's ``local_device_count``, ``global_device_count`` and
    ``num_sc_per_device``."""

    global_devices: int
    local_devices: int
    per_device: int

    @property
    def num_scs(self) -> int:
        """``GetNumScs``: every SparseCore of every device; the partitions an id goes to."""
        return self.global_devices * self.per_device

    @property
    def bits(self) -> int:
        return (self.num_scs - 1).bit_length()

    def refusal(self) -> str | None:
        """Why the preprocessing refuses these devices, or None."""
        if self.per_device not in (1, 2, 4):
            return f"{self.per_device} SparseCores a device: the library knows 1, 2 and 4"
        if self.local_devices < 1 or self.global_devices < 1:
            return "no devices"
        if self.local_devices > self.global_devices:
            return (
                f"{self.local_devices} local devices of {self.global_devices}: more than there are"
            )
        num_scs = self.num_scs
        if num_scs & (num_scs - 1):
            return (
                f"{num_scs} SparseCores in all ({self.global_devices} devices x "
                f"{self.per_device}): the preprocessing aborts unless it is a power of 2 "
                "(Check failed in PreprocessSparseDenseMatmulInput)"
            )
        return None


class StackResult(NamedTuple):
    """One stack's statistics, as the library returns them, and what they imply."""

    name: str
    max_ids: tuple[int, ...]  # local devices x partitions
    max_unique_ids: tuple[int, ...]
    required_buffer_size: tuple[int, ...]  # local devices x SparseCores a device
    id_drop_counters: int  # with allow_id_dropping, at the stack's limits
    over_limits: bool  # a partition past a limit: without allow_id_dropping, the process aborts
    coo_buffer_size_per_device: int
    ids: int  # the ids the SparseCores read
    unread_rows: int  # rows of its features no SparseCore reads
    limits: tuple[int, int]  # max_ids_per_partition, max_unique_ids_per_partition
    per_device: int  # SparseCores a device

    @property
    def required_buffer_per_device(self) -> int:
        """What ``get_required_buffer_size_per_device`` makes of it: the largest SparseCore's
        times the SparseCores a device (``update_preprocessing_parameters``' suggestion)."""
        return max(self.required_buffer_size, default=0) * self.per_device


def stacks_of(
    proto: Any, suggested: Mapping[str, int] | None = None
) -> tuple[list[StackPlan], int]:
    """The stacks of an ``EmbeddingSpecProto`` and its SparseCores in all (each stack's
    ``num_sparsecores``; `StatsError` when they differ or are none); ``suggested``: a stack's
    ``suggested_coo_buffer_size_per_device``, which the proto does not record."""
    plans: list[StackPlan] = []
    cores: set[int] = set()
    for stack in proto.stacked_table_specs:
        cores.add(stack.num_sparsecores)
        features = [
            FeaturePlan(
                feature.feature_name,
                feature.row_offset,
                feature.col_offset,
                feature.col_shift,
                feature.input_shape[0] if feature.input_shape else 0,
            )
            for table in stack.table_specs
            for feature in table.feature_specs
        ]
        if not features:
            continue  # a stack no feature looks up: the preprocessing never sees it
        features.sort(key=lambda f: f.row_offset)
        plans.append(
            StackPlan(
                stack.stack_name,
                tuple(features),
                stack.max_ids_per_partition,
                stack.max_unique_ids_per_partition,
                (suggested or {}).get(stack.stack_name),
            )
        )
    if len(cores) > 1:
        raise StatsError(
            f"the stacks have {' and '.join(str(c) for c in sorted(cores))} SparseCores: one "
            "preprocessing runs on one count"
        )
    num_scs = next(iter(cores), 0)
    if num_scs <= 0:
        raise StatsError("the spec's stacks have no SparseCores (num_sparsecores)")
    return plans, num_scs


class Slicing(NamedTuple):
    """How a stack's features are cut among one host's SparseCores."""

    per_slice: tuple[int, ...]  # rows a SparseCore reads of each feature
    batch_per_device: int
    batch_per_sparse_core: int
    sample_bases: tuple[int, ...]  # each feature's row_offset // (global devices x S)


def slicing(stack: StackPlan, rows: Sequence[int], devices: Devices) -> Slicing:
    """The preprocessing's cut of ``stack`` with ``rows`` rows of each of its features (in
    ``stack.features``' order); `StatsError` where the library aborts."""
    local, per_device = devices.local_devices, devices.per_device
    batch_per_device = sum(count // local for count in rows)
    if batch_per_device % per_device:
        raise StatsError(
            f"stack {stack.name!r}: a device's batch is {batch_per_device} samples "
            f"(the sum over its features of their rows // {local} local devices), not a "
            f"multiple of its {per_device} SparseCores: the preprocessing aborts "
            "(Check failed: batch_size_for_device ... must be divisible by num_sc_per_device); "
            "give each feature a batch the devices and SparseCores divide"
        )
    if batch_per_device < per_device * len(stack.features):
        raise StatsError(
            f"stack {stack.name!r}: a device's batch is {batch_per_device} samples, fewer than "
            f"its {per_device} SparseCores x {len(stack.features)} features: the preprocessing "
            "aborts (Batch size must be greater or equal to the number of features stacked "
            "together); give each feature more samples"
        )
    batch_per_sc = batch_per_device // per_device
    if (
        batch_per_sc * per_device
        + max((f.row_offset for f in stack.features), default=0) // (devices.num_scs)
        >= SAMPLE_ID_LIMIT
    ):
        raise StatsError(
            f"stack {stack.name!r}: sample ids reach 2^26, past what a COO key holds "
            "(coo_format.h): the library's results are undefined; use a smaller batch"
        )
    return Slicing(
        tuple(count // (local * per_device) for count in rows),
        batch_per_device,
        batch_per_sc,
        tuple(f.row_offset // devices.num_scs for f in stack.features),
    )


def coo_buffer_per_device(stack: StackPlan, devices: Devices) -> int:
    """``ComputeCooBufferSizePerDevice`` (minibatching off); `StatsError` where it aborts."""
    theoretical = (
        round_up(stack.max_ids_per_partition, ALIGNMENT) * devices.per_device * devices.num_scs
    )
    size = theoretical
    if stack.suggested_coo_buffer_size_per_device is not None:
        size = round_up(stack.suggested_coo_buffer_size_per_device, ALIGNMENT * devices.per_device)
        if size > theoretical:
            raise StatsError(
                f"stack {stack.name!r}: its suggested COO buffer, {size} rounded up, is above "
                f"the most its limits allow ({theoretical}): the preprocessing aborts (Check "
                "failed: Suggested Coo Buffer Size is larger than the theoretical max)"
            )
    if not 0 < size < INT_MAX:
        raise StatsError(
            f"stack {stack.name!r}: a COO buffer of {size} elements, outside (0, INT_MAX): the "
            "preprocessing aborts; lower max_ids_per_partition"
        )
    return size


def fill_drops(kept: Sequence[int], capacity: int) -> int:
    """The ids ``FillBufferSegment`` drops of one SparseCore's partitions (``kept``: ids kept in
    each, in partition order) in a share of ``capacity`` elements: each partition starts aligned
    to 8, and every id from the first that does not fit is dropped."""
    start = 0
    dropped = 0
    for count in kept:
        fits = min(max(capacity - start, 0), count)
        dropped += count - fits
        start += round_up(count, ALIGNMENT)
    return dropped


def unmatched(stacks: Sequence[StackPlan], given: Sequence[str]) -> tuple[list[str], list[str]]:
    """The spec's features without ids (the preprocessing needs every one: its features and
    their specs must have one structure) and the ids' features the spec does not have."""
    wanted = [f.name for stack in stacks for f in stack.features]
    known = set(wanted)
    have = set(given)
    return [name for name in wanted if name not in have], sorted(set(given) - known)


def row_notes(stacks: Sequence[StackPlan], rows: Mapping[str, int]) -> list[str]:
    """What the rows given say against the spec: a feature whose sample has another batch than
    its ``input_shape[0]`` (the preprocessing counts the rows it is given)."""
    notes = []
    for stack in stacks:
        for feature in stack.features:
            given = rows.get(feature.name)
            if given is not None and feature.batch and given != feature.batch:
                notes.append(
                    f"feature {feature.name!r}: {given} sample rows, its input_shape says "
                    f"{feature.batch}: counted as given, as the preprocessing counts them"
                )
    return notes
