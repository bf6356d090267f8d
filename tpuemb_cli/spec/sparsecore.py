"""Compiling a SparseCore spec: the ``SparseCoreTableLayouts`` TensorFlow 2.21's ``TPUEmbeddingV2``
computes (``_stack_tables_with_same_table_dim_and_optimizer`` in
tensorflow/python/tpu/tpu_embedding_v3.py, then ``SparseCoreLayoutStacker``), byte for byte.

``plan(spec, context)`` returns a ``Plan``; ``SparseCoreError`` says why a spec cannot be laid out
(no ``sparse_core`` section, SparseCores per chip unknown, a feature without ``output_shape``,
two tables with one name, weight decay, no features). The API the rules and ``tpuemb explain``
use:

- ``Plan.layouts``: the ``SparseCoreTableLayouts`` as the stacker's ``GetLayouts`` returns them
  (stack by stack; the order of stacks of one width depends on the hash ``context``), made when
  first read (each member holds its stack's name: the rules and ``explain`` need none of it).
- ``Plan.checkpoint_layouts``: the same layouts as TensorFlow writes them into checkpoints
  (``_track_restore_info_for_cpu``: ``table_to_layout`` in table-name order, whatever the hashes;
  ``tpuemb compile --target sparsecore``'s default).
- ``Plan.stacks``: one ``Stack`` per stacked table, in the layouts' order: ``name`` (what limit keys
  such as ``max_ids_per_table`` must use), ``tables`` (member names, in stacking order),
  ``padded_width``, ``rows_per_sparse_core``, ``group`` (the optimizer/quantization key) and
  ``members`` (``TableLayout``\\ s).
- ``Plan.tables``: by table name, a ``TableLayout``: ``spec_index`` (in ``spec.tables``),
  ``stack``, ``shape`` and ``padded_shape`` ([rows, dim]), ``padding_rows``,
  ``padding_columns``, ``row_offset``, ``rotation``, ``recorded_batch_size`` /
  ``recorded_features`` (what the layout records) and ``samples`` / ``features`` (what the
  features really look up).
- ``Plan.quirk``: ``Quirk`` -- TensorFlow's early ``return`` inside its per-feature loop adds the
  tables once, after the first feature only, so only ``quirk.recorded_table`` (the first flattened
  feature's table, counted with that feature alone) gets a batch size and a feature count;
  ``quirk.zeroed_tables`` are the tables other features use that the layouts record as 0.
- ``Plan.num_partitions`` (the replicas: ``strategy.num_replicas_in_sync``),
  ``sparse_cores_per_partition`` (SparseCores per chip), ``num_sparse_cores``,
  ``reproducible_order`` (False when a learning-rate schedule's hash was stood in for).

The tables are TensorFlow's ``table_config``: the tables the features use, in order of first use
(unnamed ones named ``table_<i>``), added to the stacker sorted by name. The order of stacks of one
padded width follows their group keys, which digest ``hash(optimizer)``: ``context``
(``model.pyhash.HashContext``: ``PYTHONHASHSEED`` and ``hash(None)``) says which process to match.
"""

from __future__ import annotations

from functools import cached_property
from math import prod
from typing import NamedTuple

from tpuemb_cli.model import optimizers
from tpuemb_cli.model.accelerators import UnknownTpu, parse
from tpuemb_cli.model.pyhash import HashContext
from tpuemb_cli.model.sparsecore_stacker import Limits, Stacker, StackLayout, complete_layouts
from tpuemb_cli.model.words import count
from tpuemb_cli.pb.layouts import SparseCoreTableLayouts
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec, Feature, Optimizer
from tpuemb_cli.spec.compiler import (
    effective_optimizer,
    flatten_order,
    resolve_table,
    table_indexes,
)
from tpuemb_cli.spec.sparsecore_groups import GroupKey, group_key


class SparseCoreError(Exception):
    """Why a spec cannot be laid out on SparseCores (the message says what to change)."""


NOT_SPARSECORE = "the spec has no sparse_core section: it is not a SparseCore spec"


class TableLayout(NamedTuple):
    name: str
    spec_index: int
    stack: str
    shape: tuple[int, int]
    padded_shape: tuple[int, int]
    row_offset: int
    rotation: int
    recorded_batch_size: int  # per_sparse_core_batch_size as the layouts record it
    recorded_features: int  # num_features as the layouts record it
    samples: int  # output samples of all features on the table (per replica)
    features: int  # features on the table

    @property
    def padding_rows(self) -> int:
        return self.padded_shape[0] - self.shape[0]

    @property
    def padding_columns(self) -> int:
        return self.padded_shape[1] - self.shape[1]


class Stack(NamedTuple):
    name: str
    tables: tuple[str, ...]
    padded_width: int
    rows_per_sparse_core: int
    group: str
    members: tuple[TableLayout, ...]


class Quirk(NamedTuple):
    first_feature: int  # spec index of the first feature in flatten order
    recorded_table: str
    zeroed_tables: tuple[str, ...]  # used by features, recorded with 0 samples and 0 features


class Plan:
    """A spec's SparseCore layout (see the module's docstring). ``layouts`` and
    ``checkpoint_layouts`` are made when first read: they write each stack's name into every
    member (TensorFlow's format), which at a thousand tables a stack is most of their bytes, and
    the rules and ``explain`` read only ``stacks`` and ``tables``."""

    def __init__(
        self,
        stacker_stacks: list[StackLayout],
        stacks: tuple[Stack, ...],
        tables: dict[str, TableLayout],
        quirk: Quirk,
        num_partitions: int,
        sparse_cores_per_partition: int,
        reproducible_order: bool,
    ) -> None:
        self._stacker_stacks = stacker_stacks
        self.stacks = stacks
        self.tables = tables
        self.quirk = quirk
        self.num_partitions = num_partitions
        self.sparse_cores_per_partition = sparse_cores_per_partition
        self.reproducible_order = reproducible_order

    @property
    def num_sparse_cores(self) -> int:
        return self.num_partitions * self.sparse_cores_per_partition

    @cached_property
    def layouts(self) -> SparseCoreTableLayouts:
        """The layouts as the stacker's ``GetLayouts`` returns them, stack by stack."""
        return complete_layouts(
            (stack, layout) for stack in self._stacker_stacks for layout in stack.tables
        )

    @cached_property
    def checkpoint_layouts(self) -> SparseCoreTableLayouts:
        """The layouts as TensorFlow saves them in checkpoints: by table name."""
        members = [(stack, layout) for stack in self._stacker_stacks for layout in stack.tables]
        members.sort(key=lambda member: member[1].table_name)  # table_to_layout's order
        return complete_layouts(members)


def num_partitions(spec: EmbeddingSpec) -> int:
    """The replicas (``strategy.num_replicas_in_sync``): hosts x cores / cores per replica."""
    topology = spec.topology
    cores = topology.num_hosts * topology.cores_per_host
    per_replica = topology.num_cores_per_replica or 1
    if cores < 1:
        raise SparseCoreError(
            "topology: num_hosts and cores_per_host must be set: the replicas are the partitions"
        )
    if per_replica < 1 or cores % per_replica:
        raise SparseCoreError(
            f"topology: {count(cores)} cores do not split into replicas of {count(per_replica)} "
            "cores"
        )
    return cores // per_replica


def samples(feature: Feature) -> int:
    """A feature's samples on a replica: the product of its output_shape (TensorFlow's
    ``functools.reduce(operator.mul, feature.output_shape)``)."""
    return prod(feature.output_shape)


def sparse_cores_per_chip(spec: EmbeddingSpec) -> int:
    """SparseCores per partition: ``topology.sparse_cores_per_chip`` (TensorFlow's name: on the
    chips TensorFlow runs on a partition is a chip), else the accelerator's SparseCores per
    *device* -- a partition is a replica, one TPU device -- from the chip table."""
    topology = spec.topology
    if topology.HasField("sparse_cores_per_chip"):
        if topology.sparse_cores_per_chip < 1:
            raise SparseCoreError("topology.sparse_cores_per_chip must be at least 1")
        return topology.sparse_cores_per_chip
    chip = None
    if topology.accelerator:
        try:
            chip = parse(topology.accelerator).chip
        except UnknownTpu:
            chip = None
    known = chip.sparse_cores_per_device.value if chip is not None else None
    if known:
        return known
    which = f"for {topology.accelerator!r} " if topology.accelerator else ""
    raise SparseCoreError(
        f"the number of SparseCores per chip {which}is not known: "
        "set topology.sparse_cores_per_chip (TensorFlow reads it from the TPU: "
        "num_embedding_devices_per_chip)"
    )


def _check_optimizer(optimizer: Optimizer | None, table: str) -> None:
    if optimizer is None:
        raise SparseCoreError(f"table {table!r} has no optimizer and the spec has none")
    # TPUEmbeddingV2 has a SparseCore update for the classes ``model.optimizers`` marks (a
    # CustomOptimizer or another class fails at the first step).
    algorithm = optimizer.WhichOneof("algorithm")
    row = optimizers.of_spec(algorithm)
    if row is None or not row.sparsecore:
        raise SparseCoreError(
            f"table {table!r}: TPUEmbeddingV2 has no SparseCore update for a "
            f"{row.spec if row is not None else algorithm} "
            'optimizer ("Unsupported optimizer in minibatching mode.")'
        )
    if optimizer.HasField("weight_decay_factor") or optimizer.HasField(
        "multiply_weight_decay_factor_by_learning_rate"
    ):
        raise SparseCoreError(
            f"table {table!r}: TPUEmbeddingV2 raises NotImplementedError for weight_decay_factor "
            "and multiply_weight_decay_factor_by_learning_rate"
        )


def plan(
    spec: EmbeddingSpec,
    context: HashContext = HashContext(),  # noqa: B008 -- an immutable NamedTuple
    limits: Limits = Limits(),  # noqa: B008
) -> Plan:
    if not spec.HasField("sparse_core"):
        raise SparseCoreError(NOT_SPARSECORE)
    partitions = num_partitions(spec)
    per_chip = sparse_cores_per_chip(spec)
    order = flatten_order(spec)
    if not order:
        raise SparseCoreError("the spec has no features: TensorFlow lays out no tables")
    names_to_indexes = table_indexes(spec)
    table_order: dict[int, None] = {}  # the tables in order of first use (an ordered set)
    feature_tables: list[int] = []
    for index in order:
        feature = spec.features[index]
        used = resolve_table(spec, feature, names_to_indexes)
        if used is None:
            raise SparseCoreError(f"features[{index}] names no table: {feature.table!r}")
        if not feature.output_shape:
            raise SparseCoreError(
                f"features[{index}] has no output_shape: TPUEmbeddingV2 fails with "
                '"Cannot iterate over a shape with unknown rank." (set the per-replica shape)'
            )
        feature_tables.append(used)
        table_order.setdefault(used)
    names: dict[int, str] = {}
    taken: set[str] = set()
    for position, index in enumerate(table_order):
        name = spec.tables[index].name or f"table_{position}"
        if name in taken:
            raise SparseCoreError(
                f"Tables must have a unique name. Multiple tables with name {name} found."
            )
        taken.add(name)
        names[index] = name
    for index in table_order:
        table = spec.tables[index]
        if table.vocabulary_size < 1 or table.dim < 1:
            raise SparseCoreError(
                f"table {names[index]!r} is {count(table.vocabulary_size)} x {count(table.dim)}: "
                "TableConfig needs a vocabulary_size and a dim of at least 1"
            )
    try:
        return _laid_out(
            spec,
            limits,
            context,
            partitions,
            per_chip,
            order,
            list(table_order),
            names,
            feature_tables,
        )
    except (ValueError, OverflowError):
        # A count the layout proto cannot hold (int32 SparseCores and partitions, int64 rows);
        # protobuf's own words for it vary between its versions.
        raise SparseCoreError(
            "the layout does not fit SparseCoreTableLayout's fields: a padded table or a stack "
            "has more rows than an int64 holds, or the slice more SparseCores than an int32"
        ) from None


def _laid_out(
    spec: EmbeddingSpec,
    limits: Limits,
    context: HashContext,
    partitions: int,
    per_chip: int,
    order: list[int],
    table_order: list[int],
    names: dict[int, str],
    feature_tables: list[int],
) -> Plan:
    table_samples: dict[int, int] = dict.fromkeys(table_order, 0)
    features: dict[int, int] = dict.fromkeys(table_order, 0)
    for index, used in zip(order, feature_tables, strict=True):
        table_samples[used] += samples(spec.features[index])
        features[used] += 1
    first = feature_tables[0]
    first_samples = samples(spec.features[order[0]])

    stacker = Stacker(partitions, per_chip, not spec.sparse_core.disable_table_stacking, limits)
    groups: dict[str, str] = {}
    reproducible = True
    # Most tables share an optimizer (the spec's, or one of a few overrides): each distinct
    # optimizer and quantization is checked and hashed once, by its wire bytes.
    keys: dict[tuple[bytes, bytes | None], GroupKey] = {}
    for index in sorted(table_order, key=lambda i: names[i]):
        table = spec.tables[index]
        optimizer = effective_optimizer(spec, table)
        quantization = table.quantization if table.HasField("quantization") else None
        wire = (
            optimizer.SerializeToString(deterministic=True) if optimizer is not None else b"",
            quantization.SerializeToString(deterministic=True) if quantization else None,
        )
        key = keys.get(wire)
        if key is None or optimizer is None:
            _check_optimizer(optimizer, names[index])
            assert optimizer is not None
            key = keys[wire] = group_key(optimizer, quantization, context)
        reproducible = reproducible and key.reproducible
        groups[names[index]] = key.key
        recorded = index == first
        stacker.add_table(
            names[index],
            table.vocabulary_size,
            table.dim,
            key.key,
            first_samples if recorded else 0,
            1 if recorded else 0,
        )
    by_name = {name: index for index, name in names.items()}
    tables: dict[str, TableLayout] = {}
    stacker_stacks = stacker.stacks()
    stack_list: list[Stack] = []
    for stacked in stacker_stacks:
        if stacked.rows_per_sparse_core >= 1 << 63:
            # What writing it into the layouts (when they are made) would raise, raised now.
            raise OverflowError("total_rows_per_sparse_core_shard is an int64")
        members: list[TableLayout] = []
        for layout in stacked.tables:
            index = by_name[layout.table_name]
            entry = TableLayout(
                layout.table_name,
                index,
                stacked.name,
                (layout.unsharded_shape[0], layout.unsharded_shape[1]),
                (layout.unsharded_padded_shape[0], layout.unsharded_padded_shape[1]),
                layout.sparse_core_shard_row_offset,
                layout.sparse_core_shard_rotation,
                layout.per_sparse_core_batch_size,
                layout.num_features,
                table_samples[index],
                features[index],
            )
            tables[entry.name] = entry
            members.append(entry)
        stack_list.append(
            Stack(
                stacked.name,
                tuple(member.name for member in members),
                members[0].padded_shape[1],
                stacked.rows_per_sparse_core,
                groups[members[0].name],
                tuple(members),
            )
        )
    zeroed = tuple(names[index] for index in table_order if index != first and features[index] > 0)
    quirk = Quirk(order[0], names[first], zeroed)
    return Plan(
        stacker_stacks,
        tuple(stack_list),
        tables,
        quirk,
        partitions,
        per_chip,
        reproducible,
    )
