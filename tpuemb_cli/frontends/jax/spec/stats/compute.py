"""The statistics jax-tpu-embedding's host preprocessing returns for a stack
(``SparseDenseMatmulInputStats``), computed from the ids with numpy: the only module of tpuemb
that needs it, imported by ``tpuemb stats`` alone.

What is counted follows the library's source at v0.1.0:

- **Where an id goes** (``ProcessCooTensors`` in `lib/core/process_coo_tensors_impl.h
  <https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/process_coo_tensors_impl.h>`_,
  ``CooFormat::GetColId`` in `lib/core/coo_format.h
  <https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/coo_format.h>`_):
  its column is ``((id + col_shift) & (N - 1)) + (id & ~(N - 1)) + col_offset`` (``N``: the
  SparseCores in all), and its partition -- the SparseCore that holds its row -- the column's
  low bits, ``column & (N - 1)``.
- **What counts once** (``GroupAndDeduplicateCooTensorsForLocalSparseCore`` in
  `lib/core/sort_and_group_coo_tensors_impl.h
  <https://github.com/jax-ml/jax-tpu-embedding/blob/v0.1.0/jax_tpu_embedding/sparsecore/lib/core/sort_and_group_coo_tensors_impl.h>`_):
  each SparseCore sorts its ids by (partition, column, sample) and merges an id repeated within
  one sample; ``ids`` of a partition count the (sample, column) pairs, ``unique ids`` the
  columns. Per device, the maximum over its SparseCores of each partition's counts:
  ``max_ids_per_partition`` and ``max_unique_ids_per_partition`` are ``local devices x N``
  long, device by device. ``required_buffer_size`` (``local devices x S``) is, per SparseCore,
  the sum over partitions of their ids rounded up to 8.
- **What is dropped** (same function, with ``allow_id_dropping``): in each partition, in sorted
  order, the pairs from the ``max_ids_per_partition + 1``-th on and every pair of the columns
  from the ``max_unique_ids_per_partition + 1``-th on, each repeat of a dropped pair counted
  again; then what does not fit the SparseCore's share of the COO buffer (`plan.fill_drops`).
  Without ``allow_id_dropping``, a partition past a limit aborts the process
  (``ValidateMaxIdsOrDie``: ``LOG(FATAL)``). The statistics are those of the ids before any is
  dropped, and minibatching does not change them: its first pass, which computes them, drops
  nothing (`input_preprocessing.cc`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np

from tpuemb_cli.frontends.jax.load.ids import FeatureIds
from tpuemb_cli.frontends.jax.spec.stats.plan import (
    ALIGNMENT,
    INT_MAX,
    Devices,
    Slicing,
    StackPlan,
    StackResult,
    StatsError,
    coo_buffer_per_device,
    fill_drops,
    slicing,
)

DATA_BITS = 26  # CooFormat::kDataBits: the key's low bits hold the sample id
MANY_PARTITIONS = 64  # past this, a SparseCore's counts take a pass each, not a call a partition


def _keys(
    ids: FeatureIds, feature: Any, slices: int, per_slice: int, base: int, cut: Slicing, d: Devices
) -> tuple[Any, Any]:
    """The COO keys (``CooFormat::GetGroupingKey``) of the rows the SparseCores read of one
    feature, and where each SparseCore's start in them (``slices + 1`` offsets).

    A key is ``[partition | column >> bits | sample]`` (``bits`` partition bits above 32 - bits
    of column and 26 of sample): the column rotated right by the partition bits, so that keys
    sort by partition, then column, then sample. With ``column = ((id + col_shift) & (N - 1))
    + (id & ~(N - 1)) + col_offset`` and ``col_offset`` a multiple of N, the partition is
    ``(id + col_shift) & (N - 1)`` and ``column >> bits`` is ``(id >> bits) + (col_offset >>
    bits)``: computed so, in place, without the column itself."""
    read_rows = slices * per_slice
    end = int(ids.row_splits[read_rows])
    values = ids.values[:end]
    mod, bits = d.num_scs - 1, d.bits
    if values.size:
        high = int(values.max())
        if (high | mod) + feature.col_offset > INT_MAX:
            raise StatsError(
                f"feature {feature.name!r}: id {high} has a column past int32 (its table's "
                f"offset in the stack is {feature.col_offset}): the library's results are "
                "undefined; check the ids against the table's vocabulary"
            )
    rows = np.arange(read_rows, dtype=np.uint64)
    slice_in_device = (rows // np.uint64(per_slice)) % np.uint64(d.per_device)
    sample = rows % np.uint64(per_slice)
    sample += slice_in_device * np.uint64(cut.batch_per_sparse_core) + np.uint64(base)
    lengths = np.diff(ids.row_splits[: read_rows + 1])
    width = int(lengths[0]) if lengths.size else 0
    uniform = bool((lengths == width).all())
    keys = values.astype(np.uint64)
    if bits:
        partition = keys + np.uint64(feature.col_shift)
        partition &= np.uint64(mod)
        partition <<= np.uint64(DATA_BITS + 32 - bits)
        keys >>= np.uint64(bits)
    keys += np.uint64(feature.col_offset >> bits)
    keys <<= np.uint64(DATA_BITS)
    if bits:
        keys |= partition
        del partition
    if uniform and width:
        keys.reshape(read_rows, width)[:] |= sample[:, None]
    elif not uniform:
        keys |= np.repeat(sample, lengths)
    bounds = ids.row_splits[np.arange(slices + 1, dtype=np.int64) * per_slice]
    return keys, bounds


class _Core(NamedTuple):
    """One SparseCore's counts: per partition, ids and unique ids seen, and ids kept."""

    ids: Any
    unique: Any
    dropped: int
    kept: Any


def _core(keys: Any, stack: StackPlan, d: Devices) -> _Core:
    """``GroupAndDeduplicateCooTensorsForLocalSparseCore`` on one SparseCore's keys."""
    partitions = d.num_scs
    zeros = np.zeros(partitions, np.int64)
    if not keys.size:
        return _Core(zeros, zeros, 0, zeros)
    keys.sort()
    columns = keys >> np.uint64(DATA_BITS)
    new_pair = np.empty(keys.size, bool)
    new_pair[0] = True
    np.not_equal(keys[1:], keys[:-1], out=new_pair[1:])
    new_col = np.empty(keys.size, bool)
    new_col[0] = True
    np.not_equal(columns[1:], columns[:-1], out=new_col[1:])
    # Each partition's keys: sorted, they run from its first possible key to the next's.
    firsts = np.arange(partitions + 1, dtype=np.uint64) << np.uint64(DATA_BITS + 32 - d.bits)
    bounds = np.searchsorted(keys, firsts)
    if partitions <= MANY_PARTITIONS:
        ids, unique = zeros.copy(), zeros.copy()
        pairs = zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)
        for p, (start, stop) in enumerate(pairs):
            if stop > start:
                ids[p] = np.count_nonzero(new_pair[start:stop])
                unique[p] = np.count_nonzero(new_col[start:stop])
    else:  # one pass each, rather than a call a partition
        ids = np.diff(np.concatenate(([0], np.cumsum(new_pair)))[bounds])
        unique = np.diff(np.concatenate(([0], np.cumsum(new_col)))[bounds])
    if ids.max() <= stack.max_ids_per_partition and unique.max() <= (
        stack.max_unique_ids_per_partition
    ):
        return _Core(ids, unique, 0, ids)
    return _dropping(keys, columns, new_pair, new_col, ids, unique, stack, d)


def _dropping(
    keys: Any, columns: Any, new_pair: Any, new_col: Any, ids: Any, unique: Any,
    stack: StackPlan, d: Devices,
) -> _Core:  # fmt: skip
    """With allow_id_dropping, what a SparseCore past a limit drops: in each partition, the
    pairs from the ``max_ids_per_partition``-th on and those of the columns from the
    ``max_unique_ids_per_partition``-th on, each repeat of a dropped pair counted."""
    partitions = d.num_scs
    starts = np.flatnonzero(new_pair)
    pair_columns = columns[starts]
    part = (
        (pair_columns >> np.uint64(32 - d.bits)).astype(np.int64)
        if d.bits
        else np.zeros(starts.size, np.int64)
    )
    first_pair = np.concatenate(([0], np.cumsum(ids)[:-1]))
    pair_rank = np.arange(starts.size) - first_pair[part]
    first_col = np.concatenate(([0], np.cumsum(unique)[:-1]))
    col_rank = np.cumsum(new_col[starts]) - 1 - first_col[part]
    dropped_pair = (pair_rank >= stack.max_ids_per_partition) | (
        col_rank >= stack.max_unique_ids_per_partition
    )
    repeats = np.diff(np.append(starts, keys.size))
    dropped = int(repeats[dropped_pair].sum())
    kept = ids - np.bincount(part[dropped_pair], minlength=partitions)
    return _Core(ids, unique, dropped, kept)


def stack_stats(
    stack: StackPlan,
    features: Mapping[str, FeatureIds],
    devices: Devices,
    pool: ThreadPoolExecutor | None = None,
) -> StackResult:
    """The preprocessing's statistics of ``stack`` for one host's ``features`` (every feature
    of the stack, by name); `StatsError` where the library aborts or its results are undefined."""
    given = [features[f.name] for f in stack.features]
    cut = slicing(stack, [ids.rows for ids in given], devices)
    buffer = coo_buffer_per_device(stack, devices)
    slices = devices.local_devices * devices.per_device
    parts: list[tuple[Any, Any]] = [
        _keys(ids, feature, slices, per_slice, base, cut, devices)
        for ids, feature, per_slice, base in zip(
            given, stack.features, cut.per_slice, cut.sample_bases, strict=True
        )
    ]

    def core(unit: int) -> _Core:
        keys = np.concatenate([k[int(b[unit]) : int(b[unit + 1])] for k, b in parts])
        return _core(keys, stack, devices)

    cores: Sequence[_Core] = (
        list(pool.map(core, range(slices))) if pool else [core(u) for u in range(slices)]
    )
    ids = np.stack([c.ids for c in cores]).reshape(devices.local_devices, devices.per_device, -1)
    unique = np.stack([c.unique for c in cores]).reshape(ids.shape)
    rounded = -(-ids // ALIGNMENT) * ALIGNMENT
    share = buffer // devices.per_device
    dropped = sum(c.dropped for c in cores)
    for c in cores:
        if int((-(-c.kept // ALIGNMENT) * ALIGNMENT).sum()) > share:
            dropped += fill_drops([int(v) for v in c.kept], share)
    return StackResult(
        stack.name,
        tuple(int(v) for v in ids.max(axis=1).reshape(-1)),
        tuple(int(v) for v in unique.max(axis=1).reshape(-1)),
        tuple(int(v) for v in rounded.sum(axis=2).reshape(-1)),
        dropped,
        bool(
            ids.max(initial=0) > stack.max_ids_per_partition
            or unique.max(initial=0) > stack.max_unique_ids_per_partition
        ),
        buffer,
        sum(int(k.size) for k, _ in parts),
        sum(ids.rows - slices * per for ids, per in zip(given, cut.per_slice, strict=True)),
        (stack.max_ids_per_partition, stack.max_unique_ids_per_partition),
        devices.per_device,
    )


def measure(
    stacks: Sequence[StackPlan], features: Mapping[str, FeatureIds], devices: Devices
) -> list[StackResult]:
    """Every stack's statistics, the SparseCores counted in parallel (numpy sorts without the
    GIL); `StatsError` for the first stack the library aborts on."""
    refusal = devices.refusal()
    if refusal is not None:
        raise StatsError(refusal)
    workers = min(os.cpu_count() or 1, devices.local_devices * devices.per_device, 16)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return [stack_stats(stack, features, devices, pool) for stack in stacks]
