"""The stacks torchrec 1.9.2 makes of a TorchRecSpec's tables, computed as its code computes them.

A port of ``torchrec/experimental/torch_tpu/modules/table_stacking.py`` (``stack_tables``,
``auto_stack_tables``, ``_group_tables_for_stacking``, ``prepare_tables_for_stacking``) and of the
fused collection's constructor (``_SparseCoreFusedEmbeddingBase.__init__`` in
``modules/fused_embedding_modules.py``): the calls a spec records (``stack_calls``), then the
collection's (``auto_stack``, then ``prepare_tables_for_stacking``), in that order, on the same
tables -- a table keeps the stack an earlier call put it in, as the library's
``_stacked_config`` does. What the library raises is kept as a ``Refusal`` (the call, its
exception and message, as the library words it) and stops the computation where the library
stops; what it only logs (excess padding) is a warning. The layout is the library's, number for
number: ``tests/test_torchrec_oracle.py`` compares it with torchrec's own on CPU.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from tpuemb_cli.model.records import Record

# The library's defaults (table_stacking.py, fused_embedding_modules.py, embedding_configs.py).
DEFAULT_DEVICES = 1
DEFAULT_SPARSECORES = 2
DEFAULT_BATCH = 1
DEFAULT_ACTIVATION_LIMIT = 6 * 1024 * 1024
DEFAULT_LIMIT = 256
# Rows are padded to a multiple of 8 on every SparseCore; dimensions to a multiple of 8.
ALIGNMENT = 8
# `_get_stack_name`'s shortening: names past 50 characters keep 50 and 12 hex digits of a sha256.
NAME_LENGTH = 50
HASH_LENGTH = 12
BAG = "bag"
SEQUENCE = "sequence"
BAG_COLLECTION = "SparseCoreFusedEmbeddingBagCollection"
SEQUENCE_COLLECTION = "SparseCoreFusedEmbeddingCollection"


class Refusal(Record):
    """What the library raises: in which call (``stack_calls[i]``'s, or the collection's:
    ``call_index`` -1), the exception's type and its message, as the library words them."""

    call: str  # stack_tables, auto_stack_tables, prepare_tables_for_stacking or the collection
    call_index: int  # the stack call's index; -1: the collection (or prepare)
    type: str
    message: str
    table: int = -1  # the table the refusal is about, when one is (its index)


class Placement(Record):
    """One table's place in its stack (the StackedSparseCoreEmbeddingConfig's maps)."""

    table: int  # its index in the spec's tables
    name: str
    padded_vocab_size: int
    padded_embedding_dim: int
    row_offset_in_shard: int
    shard_rotation: int


class Stack(Record):
    """A StackedSparseCoreEmbeddingConfig, as the library makes it."""

    name: str
    tables: tuple[Placement, ...]
    feature_names: tuple[str, ...]
    stack_num_embeddings: int
    stack_embedding_dim: int
    total_sample_count_multiplier: int
    num_sparsecores: int  # the SparseCores it was laid out for (devices x SparseCores a device)
    call_index: int  # the stack call that made it; -1: the collection's
    excess_padding: int  # values of padding the dimensions' differences add (0: none)

    def to_dict(self, spec: Any) -> dict[str, Any]:
        """As ``StackedSparseCoreEmbeddingConfig.to_dict()`` writes it (the checkpoint planner's
        ``stacked_configs`` hold this)."""
        tables = []
        for place in self.tables:
            table = spec.tables[place.table]
            bag = table.kind != SEQUENCE
            tables.append(
                {
                    "name": place.name,
                    "num_embeddings": table.num_embeddings,
                    "embedding_dim": table.embedding_dim,
                    "is_bag": bag,
                    "pooling": (table.pooling or "SUM") if bag else None,
                    "max_seq_len": None
                    if bag or not table.HasField("max_seq_len")
                    else table.max_seq_len,
                    "feature_names": list(table.feature_names),
                    "padded_vocab_size": place.padded_vocab_size,
                    "padded_embedding_dim": place.padded_embedding_dim,
                    "row_offset_in_shard": place.row_offset_in_shard,
                    "shard_rotation": place.shard_rotation,
                }
            )
        return {
            "stack_name": self.name,
            "stack_table_name": self.name,
            "feature_names": list(self.feature_names),
            "stack_num_embeddings": self.stack_num_embeddings,
            "stack_embedding_dim": self.stack_embedding_dim,
            "total_sample_count_multiplier": self.total_sample_count_multiplier,
            "row_offsets_in_shard": {p.name: p.row_offset_in_shard for p in self.tables},
            "shard_rotations": {p.name: p.shard_rotation for p in self.tables},
            "padded_vocab_sizes": {p.name: p.padded_vocab_size for p in self.tables},
            "padded_embedding_dims": {p.name: p.padded_embedding_dim for p in self.tables},
            "tables": tables,
        }


class Stacking(Record):
    """What the calls make: the stacks (the collection's ``stacked_configs``, in its order; every
    stack made when there is no collection), each table's stack (by index; None: in none), the
    refusal that stopped it (None: none), and the warnings the library logs."""

    stacks: tuple[Stack, ...]
    stack_of: tuple[Stack | None, ...]
    refusal: Refusal | None
    warnings: tuple[str, ...]
    # Stacks made and then lost: a later stack of the same name took their place in the
    # collection's list (`prepare_tables_for_stacking` keeps one stack a name).
    shadowed: tuple[Stack, ...] = ()


class Refused(Exception):
    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


def round_up(value: int, multiple: int) -> int:
    """``_round_up_to_multiple``: ZeroDivisionError for a multiple of 0, as the library's."""
    return ((value + multiple - 1) // multiple) * multiple


def stack_name(names: Sequence[str], use_short_names: bool = True) -> str:
    """``_get_stack_name``: the names joined by ``_``, past 50 characters cut to 50 and followed by
    ``_`` and 12 hex digits of the whole name's sha256."""
    name = "_".join(names)
    if not use_short_names or len(name) <= NAME_LENGTH:
        return name
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:HASH_LENGTH]
    return f"{name[:NAME_LENGTH]}_{digest}"


def value(message: Any, field: str, default: int) -> int:
    """An optional field's value, or the library's default when it is not set."""
    return int(getattr(message, field)) if message.HasField(field) else default


def _pooling(table: Any) -> str:
    return str(table.pooling or "SUM")


class _Run:
    """The library's state as the calls run: each table's stack (its `_stacked_config`)."""

    def __init__(self, spec: Any) -> None:
        self.spec = spec
        self.tables = list(spec.tables)
        self.stack_of: list[Stack | None] = [None] * len(self.tables)
        self.by_name: dict[str, list[int]] = {}
        for i, table in enumerate(self.tables):
            self.by_name.setdefault(table.name, []).append(i)
        self.warnings: list[str] = []
        self.made: list[Stack] = []

    def refuse(
        self, call: str, index: int, message: str, kind: str = "ValueError", table: int = -1
    ) -> Refused:
        return Refused(Refusal(call, index, kind, message, table))

    def stack_tables(
        self,
        names: Sequence[str] | str,
        devices: int,
        per_device: int,
        name: str,
        rotation: int | None,
        fail_on_excess_padding: bool,
        call: str,
        index: int,
    ) -> Stack:
        # `t.name in table_names`, in table order: for a string, a substring test (a bare
        # string is no list); for a list, the tables of those names, found by name (a scan of
        # every table for every group made stacking thousands of tables quadratic).
        if isinstance(names, str):
            group = [i for i, t in enumerate(self.tables) if t.name in names]
        else:
            group = sorted(i for name in set(names) for i in self.by_name.get(name, ()))
        if len(group) != len(names):
            found = {self.tables[i].name for i in group}
            missing = set(names) - found
            raise self.refuse(call, index, f"Table names not found in tables list: {missing}")
        if not group:  # `group[0]` of an empty list
            raise self.refuse(call, index, "list index out of range", "IndexError")
        first = self.tables[group[0]]
        first_bag = first.kind != SEQUENCE
        for i in group:
            table = self.tables[i]
            bag = table.kind != SEQUENCE
            if bag != first_bag:
                raise self.refuse(
                    call,
                    index,
                    "Cannot stack EmbeddingBagConfig and EmbeddingConfig tables together",
                    table=i,
                )
            if bag and _pooling(table) != _pooling(first):
                raise self.refuse(
                    call,
                    index,
                    "Cannot stack EmbeddingBagConfig tables with different pooling types: "
                    f"PoolingType.{_pooling(first)} vs PoolingType.{_pooling(table)}",
                    table=i,
                )
        if not name:
            name = stack_name([self.tables[i].name for i in group])
        shards = devices * per_device
        # Keyed by name, as the library keys them: two tables of one name share the later's.
        padded_vocab: dict[str, int] = {}
        padded_dim: dict[str, int] = {}
        widest = 0
        for i in group:
            table = self.tables[i]
            try:
                padded_vocab[table.name] = round_up(table.num_embeddings, ALIGNMENT * shards)
            except ZeroDivisionError:
                raise self.refuse(
                    call, index, "integer division or modulo by zero", "ZeroDivisionError", i
                ) from None
            padded_dim[table.name] = round_up(table.embedding_dim, ALIGNMENT)
            widest = max(widest, padded_dim[table.name])
        excess = 0
        if any(dim != widest for dim in padded_dim.values()):
            names = [self.tables[i].name for i in group]
            excess = sum((widest - padded_dim[n]) * padded_vocab[n] for n in names)
            message = f"Excess padding detected for stacked table {name}: {excess} values."
            if fail_on_excess_padding:
                raise self.refuse(call, index, message)
            self.warnings.append(f"WARNING during stack_tables: {message}")
        step = rotation if rotation is not None else per_device
        offsets: dict[str, int] = {}
        turns: dict[str, int] = {}
        offset = 0
        turn = 0
        multiplier = 0
        total = 0
        features: list[str] = []
        for i in group:
            table = self.tables[i]
            vocab = padded_vocab[table.name]
            offsets[table.name] = offset
            turns[table.name] = turn
            features.extend(table.feature_names)
            if table.kind != SEQUENCE:
                multiplier += len(table.feature_names)
            else:
                if not table.HasField("max_seq_len"):
                    raise self.refuse(
                        call,
                        index,
                        f"Table '{table.name}' is an unpooled EmbeddingConfig but has "
                        "max_seq_len=None. `max_seq_len` must be specified for all unpooled "
                        "tables to stack tables.",
                        table=i,
                    )
                multiplier += len(table.feature_names) * table.max_seq_len
            offset += vocab // shards
            turn = (turn + step) % shards
            total += vocab
        places = tuple(
            Placement(
                i,
                self.tables[i].name,
                padded_vocab[self.tables[i].name],
                widest,
                offsets[self.tables[i].name],
                turns[self.tables[i].name],
            )
            for i in group
        )
        stack = Stack(
            name, places, tuple(features), total, widest, multiplier, shards, index, excess
        )
        for i in group:
            self.stack_of[i] = stack
        self.made.append(stack)
        return stack

    def auto_stack_tables(
        self,
        devices: int,
        per_device: int,
        batch: int,
        limit: int,
        short: bool,
        call: str,
        index: int,
    ) -> None:
        if not self.tables:
            return
        unstacked = [i for i in range(len(self.tables)) if self.stack_of[i] is None]
        for group in self._groups(unstacked, per_device, batch, limit, call, index):
            names = [self.tables[i].name for i in group]
            self.stack_tables(
                names, devices, per_device, stack_name(names, short), None, False, call, index
            )

    def _groups(
        self, indices: list[int], per_device: int, batch: int, limit: int, call: str, index: int
    ) -> list[list[int]]:
        """``_group_tables_for_stacking``: by kind, padded dimension and pooling (bags) or
        max_seq_len (sequences), in name order; each group split first-fit under the activation
        memory limit."""
        keyed: dict[tuple[Any, ...], list[int]] = {}
        for i in sorted(indices, key=lambda i: self.tables[i].name):
            table = self.tables[i]
            dim = round_up(table.embedding_dim, ALIGNMENT)
            if table.kind != SEQUENCE:
                key: tuple[Any, ...] = ("EBC", dim, _pooling(table))
            else:
                seq = table.max_seq_len if table.HasField("max_seq_len") else None
                key = ("EC", dim, seq)
            keyed.setdefault(key, []).append(i)
        activation: dict[str, int] = {}
        for i in indices:
            table = self.tables[i]
            dim = round_up(table.embedding_dim, ALIGNMENT)
            features = len(table.feature_names)
            if table.kind != SEQUENCE:
                samples = (features * batch) // max(1, per_device)
            else:
                if not table.HasField("max_seq_len"):
                    raise self.refuse(
                        call,
                        index,
                        f"Table '{table.name}' is an unpooled EmbeddingConfig but has "
                        "max_seq_len=None. `max_seq_len` must be specified for all unpooled "
                        "tables to compute activation memory requirements for table stacking.",
                        table=i,
                    )
                samples = (features * table.max_seq_len * batch) // max(1, per_device)
            # By name, as the library keys it: two tables of one name share the later's.
            activation[table.name] = dim * samples * 4
        groups: list[list[int]] = []
        for group in keyed.values():
            # First fit, as `_split_groups_by_memory_limit`: each group's bytes kept as it grows
            # (the library sums them again for every table: quadratic in thousands of tables).
            split: list[list[int]] = []
            held: list[int] = []
            for i in group:
                need = activation[self.tables[i].name]
                for k, candidate in enumerate(split):
                    if held[k] + need <= limit:
                        candidate.append(i)
                        held[k] += need
                        break
                else:
                    split.append([i])
                    held.append(need)
            groups.extend(split)
        return groups

    def prepare(self, devices: int, per_device: int, call: str) -> tuple[list[Stack], list[Stack]]:
        """``prepare_tables_for_stacking``: the tables in no stack yet, grouped by
        ``stack_table_name`` (or their own name), each group stacked; then every table's stack,
        one a name, in table order (and the stacks a same-named one hid)."""
        groups: dict[str, list[int]] = {}
        for i, table in enumerate(self.tables):
            if self.stack_of[i] is None:
                groups.setdefault(table.stack_table_name or table.name, []).append(i)
        for name, group in groups.items():
            names = [self.tables[i].name for i in group]
            self.stack_tables(names, devices, per_device, name, None, False, call, -1)
        seen: dict[str, Stack] = {}
        stacks: list[Stack] = []
        shadowed: list[Stack] = []
        for i in range(len(self.tables)):
            stack = self.stack_of[i]
            assert stack is not None  # every table was stacked just above
            if stack.name not in seen:
                seen[stack.name] = stack
                stacks.append(stack)
            elif seen[stack.name] is not stack and stack not in shadowed:
                shadowed.append(stack)
        return stacks, shadowed


def stack(spec: Any) -> Stacking:
    """The stacks torchrec makes of ``spec``: its stack calls, then its collection's (or
    ``prepare_tables_for_stacking`` with ``prepare``'s topology)."""
    run = _Run(spec)
    refusal: Refusal | None = None
    stacks: list[Stack] = []
    shadowed: list[Stack] = []
    try:
        _recorded(run, spec)
        for index, call in enumerate(spec.stack_calls):
            devices = value(call, "global_device_count", DEFAULT_DEVICES)
            per_device = value(call, "num_sc_per_device", DEFAULT_SPARSECORES)
            if call.call == "auto_stack_tables":
                run.auto_stack_tables(
                    devices,
                    per_device,
                    value(call, "batch_size", DEFAULT_BATCH),
                    value(call, "activation_mem_bytes_limit", DEFAULT_ACTIVATION_LIMIT),
                    call.use_short_names if call.HasField("use_short_names") else True,
                    call.call,
                    index,
                )
            else:
                names: Sequence[str] | str = (
                    "".join(call.tables) if call.tables_string else list(call.tables)
                )
                rotation = call.rotation if call.HasField("rotation") else None
                run.stack_tables(
                    names,
                    devices,
                    per_device,
                    call.name,
                    rotation,
                    call.fail_on_excess_padding,
                    "stack_tables",
                    index,
                )
        collection = spec.collection if spec.HasField("collection") else None
        if collection is not None:
            stacks, shadowed = _collection(run, collection)
        else:
            topology = spec.prepare
            stacks, shadowed = run.prepare(
                value(topology, "global_device_count", DEFAULT_DEVICES),
                value(topology, "num_sc_per_device", DEFAULT_SPARSECORES),
                "prepare_tables_for_stacking",
            )
    except Refused as refused:
        refusal = refused.refusal
        stacks = []
    return Stacking(
        tuple(stacks), tuple(run.stack_of), refusal, tuple(run.warnings), tuple(shadowed)
    )


def _recorded(run: _Run, spec: Any) -> None:
    """The stacks a built collection holds (``stacks``, recorded by ``spec_from_torchrec``),
    made again as ``stack_tables`` calls for its own topology -- each stack's tables in its
    order, its name, the rotation its shard rotations step by -- before any other call: they
    were made first. A recorded stack that differs from what they make was laid out for another
    topology (the rules compare the two)."""
    topology = spec.collection if spec.HasField("collection") else spec.prepare
    devices = value(topology, "global_device_count", DEFAULT_DEVICES)
    per_device = value(topology, "num_sc_per_device", DEFAULT_SPARSECORES)
    shards = devices * per_device
    names = {table.name for table in spec.tables}
    for recorded in spec.stacks:
        if not recorded.tables or not set(recorded.tables) <= names:
            continue  # no stack of these tables: the rules say so (torchrec-stacks-not-as-computed)
        rotation = None
        if len(recorded.tables) > 1 and shards > 0:
            step = recorded.shard_rotations.get(recorded.tables[1], per_device) % shards
            rotation = None if step == per_device % shards else step
        run.stack_tables(
            list(recorded.tables),
            devices,
            per_device,
            recorded.stack_name,
            rotation,
            False,
            "stack_tables",
            -1,
        )


def _collection(run: _Run, collection: Any) -> tuple[list[Stack], list[Stack]]:
    """The fused collection's constructor up to its stacks: a sequence collection's
    max_seq_len check, the batch against the SparseCores, auto stacking, then
    ``prepare_tables_for_stacking``."""
    what = collection.type or BAG_COLLECTION
    devices = value(collection, "global_device_count", DEFAULT_DEVICES)
    per_device = value(collection, "num_sc_per_device", DEFAULT_SPARSECORES)
    batch = value(collection, "batch_size", DEFAULT_BATCH)
    if what == SEQUENCE_COLLECTION:
        for i, table in enumerate(run.tables):
            if table.kind == SEQUENCE and not table.HasField("max_seq_len"):
                raise run.refuse(
                    what,
                    -1,
                    f"max_seq_len must be provided for EmbeddingConfig table {table.name}",
                    table=i,
                )
    if per_device == 0:
        raise run.refuse(what, -1, "integer modulo by zero", "ZeroDivisionError")
    if batch % per_device != 0:
        raise run.refuse(
            what,
            -1,
            f"batch_size ({batch}) must be divisible by num_sc_per_device ({per_device}).",
        )
    if collection.auto_stack:
        run.auto_stack_tables(
            devices,
            per_device,
            batch,
            value(collection, "activation_mem_bytes_limit", DEFAULT_ACTIVATION_LIMIT),
            True,
            "auto_stack_tables",
            -1,
        )
    return run.prepare(devices, per_device, "prepare_tables_for_stacking")
