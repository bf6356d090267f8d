"""What a TorchRec fused collection's state dict holds, as a PyTorch distributed checkpoint saves
it (torchrec 1.9.2, ``_SparseCoreFusedEmbeddingBase.__init__`` in
``experimental/torch_tpu/modules/fused_embedding_modules.py``):

- ``<weights>.<stack>.weight`` for each stack (``weights``: ``embedding_bags`` for a
  SparseCoreFusedEmbeddingBagCollection, ``embeddings`` for a SparseCoreFusedEmbeddingCollection),
  the stacked table, global shape ``(stack_num_embeddings, stack_embedding_dim)`` (a ``DTensor``
  sharded by rows over the devices);
- ``accumulators.<stack>`` (Adagrad), ``momentums.<stack>`` and ``velocities.<stack>`` (Adam),
  the optimizer's state, of the stack's shape (SGD: none);
- ``learning_rates.<stack>``, a 0-d float32 tensor: the learning rate, restored with the rest.

Each stack's layout -- its tables' padded sizes, row offsets and rotations -- is
``table_stacking``'s (spec/stacking), for ``global_device_count x num_sc_per_device``
SparseCores; ``SparseCoreSavePlanner`` may save it (``stacked_configs``, as ``to_dict()``
writes it), which ``from_dicts`` reads back.
"""

from __future__ import annotations

from typing import Any

from tpuemb_cli.compat.layouts import CannotCompare
from tpuemb_cli.frontends.torchrec.spec.stacking import (
    BAG_COLLECTION,
    DEFAULT_DEVICES,
    DEFAULT_SPARSECORES,
    SEQUENCE_COLLECTION,
    stack,
    value,
)
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.records import Record
from tpuemb_cli.model.words import printable, ticked

# Each optimizer the fused collection takes, and the state it keeps per stack.
SLOTS: dict[str, tuple[str, ...]] = {
    "SGD": (),
    "Adagrad": ("accumulators",),
    "Adam": ("momentums", "velocities"),
}
WEIGHTS = {BAG_COLLECTION: "embedding_bags", SEQUENCE_COLLECTION: "embeddings"}
LEARNING_RATES = "learning_rates"
_SRC = "https://github.com/meta-pytorch/torchrec/blob/v1.9.2/torchrec/experimental/torch_tpu"
MODULES = f"{_SRC}/modules/fused_embedding_modules.py"
PLANNERS = f"{_SRC}/checkpoint/planners.py"
UTILS = f"{_SRC}/checkpoint/utils.py"
STACKING = f"{_SRC}/modules/table_stacking.py"


class TableLayout(Record):
    """A table's place in its stack (a StackedSparseCoreEmbeddingConfig's maps)."""

    name: str
    num_embeddings: int
    embedding_dim: int
    padded_vocab_size: int
    padded_embedding_dim: int
    row_offset_in_shard: int
    shard_rotation: int


class StackState(Record):
    """A stack as its checkpoint entries know it: its name, global shape and tables' layout;
    ``path``: where the spec makes it (its stack call, or its first table)."""

    name: str
    rows: int
    dim: int
    tables: tuple[TableLayout, ...]
    path: FieldPath = ()

    @property
    def shape(self) -> tuple[int, int]:
        return (self.rows, self.dim)

    @property
    def table_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tables)


class CollectionState(Record):
    """The state dict of a spec's fused collection: its stacks, its optimizer's state names
    and settings, and the topology it is laid out for."""

    weights: str  # embedding_bags or embeddings
    stacks: tuple[StackState, ...]
    optimizer: str
    kwargs: dict[str, float]
    devices: int
    per_device: int
    table_paths: dict[str, FieldPath]

    @property
    def slots(self) -> tuple[str, ...]:
        return SLOTS.get(self.optimizer, ())

    @property
    def shards(self) -> int:
        return self.devices * self.per_device

    def stack_named(self, name: str) -> StackState | None:
        return next((s for s in self.stacks if s.name == name), None)

    def stack_of_table(self, table: str) -> StackState | None:
        return next((s for s in self.stacks if table in s.table_names), None)

    def weight_key(self, stack: str) -> str:
        return f"{self.weights}.{stack}.weight"

    def keys(self, stack: StackState) -> dict[str, tuple[int, ...]]:
        """The state dict's keys of ``stack`` (below the collection's own path), and their
        global shapes."""
        found: dict[str, tuple[int, ...]] = {self.weight_key(stack.name): stack.shape}
        for slot in self.slots:
            found[f"{slot}.{stack.name}"] = stack.shape
        found[f"{LEARNING_RATES}.{stack.name}"] = ()
        return found


def collection_state(name: str, spec: Any) -> CollectionState:
    """What ``spec``'s fused collection saves; CannotCompare when the spec has no collection
    or the library refuses it."""
    if not spec.HasField("collection"):
        raise CannotCompare(
            f"{name}: cannot compare: the spec has no fused collection (`collection`), whose "
            "state dict is what a checkpoint holds"
        )
    collection = spec.collection
    kind = collection.type or BAG_COLLECTION
    weights = WEIGHTS.get(kind)
    if weights is None:
        raise CannotCompare(
            f"{name}: cannot compare: `collection.type` {printable(kind)!r} is no fused "
            f"collection of torchrec 1.9.2 ({', '.join(WEIGHTS)})"
        )
    optimizer = collection.optimizer.type or "SGD"
    if optimizer not in SLOTS:
        raise CannotCompare(
            f"{name}: cannot compare: the fused collection takes SGD, Adagrad or Adam, not "
            f"{printable(optimizer)!r} (it raises ValueError)"
        )
    stacking = stack(spec)
    if stacking.refusal is not None:
        raise CannotCompare(
            f"{name}: cannot compare: torchrec refuses it ({stacking.refusal.call} raises "
            f"{stacking.refusal.type}: {printable(stacking.refusal.message)})"
        )
    stacks = []
    for made in stacking.stacks:
        tables = tuple(
            TableLayout(
                place.name,
                spec.tables[place.table].num_embeddings,
                spec.tables[place.table].embedding_dim,
                place.padded_vocab_size,
                place.padded_embedding_dim,
                place.row_offset_in_shard,
                place.shard_rotation,
            )
            for place in made.tables
        )
        first = made.tables[0].table if made.tables else 0
        path: FieldPath = (
            ("stack_calls", made.call_index) if made.call_index >= 0 else ("tables", first)
        )
        stacks.append(
            StackState(made.name, made.stack_num_embeddings, made.stack_embedding_dim, tables, path)
        )
    return CollectionState(
        weights,
        tuple(stacks),
        optimizer,
        dict(collection.optimizer.kwargs),
        value(collection, "global_device_count", DEFAULT_DEVICES),
        value(collection, "num_sc_per_device", DEFAULT_SPARSECORES),
        {table.name: ("tables", i) for i, table in enumerate(spec.tables)},
    )


class BadConfigs(Exception):
    """Stacked configs that are not what ``to_dict()`` writes; the message says where."""


def from_dicts(configs: object) -> dict[str, StackState]:
    """The stacks of a checkpoint's ``stacked_configs`` (a dict of stack name -> ``to_dict()``,
    or a list of them, as ``SparseCoreLoadPlanner.set_up_planner`` reads both), by name."""
    items = list(configs.values()) if isinstance(configs, dict) else configs
    if not isinstance(items, list):
        raise BadConfigs(f"a {type(configs).__name__}, not a dict or a list")
    stacks: dict[str, StackState] = {}
    for config in items:
        if not isinstance(config, dict):
            continue  # the planner skips what is no dict
        name = config.get("stack_name")
        if not isinstance(name, str):
            raise BadConfigs("a stack without a `stack_name`")
        tables = []
        for table in _list(config.get("tables"), name, "tables"):
            table_name = table.get("name") if isinstance(table, dict) else None
            if not isinstance(table_name, str):
                raise BadConfigs(f"stack `{printable(name)}`: a table without a `name`")
            tables.append(
                TableLayout(
                    table_name,
                    _int(table.get("num_embeddings"), name, "num_embeddings"),
                    _int(table.get("embedding_dim"), name, "embedding_dim"),
                    _int(_in(config, "padded_vocab_sizes", table_name), name, "padded_vocab_sizes"),
                    _int(
                        _in(config, "padded_embedding_dims", table_name),
                        name,
                        "padded_embedding_dims",
                    ),
                    _int(
                        _in(config, "row_offsets_in_shard", table_name),
                        name,
                        "row_offsets_in_shard",
                    ),
                    _int(_in(config, "shard_rotations", table_name), name, "shard_rotations"),
                )
            )
        stacks[name] = StackState(
            name,
            _int(config.get("stack_num_embeddings"), name, "stack_num_embeddings"),
            _int(config.get("stack_embedding_dim"), name, "stack_embedding_dim"),
            tuple(tables),
        )
    return stacks


def _list(found: object, stack: str, field: str) -> list[Any]:
    if not isinstance(found, list):
        raise BadConfigs(f"stack `{printable(stack)}`: `{field}` is no list")
    return found


def _in(config: dict[Any, Any], field: str, table: str) -> object:
    found = config.get(field)
    return found.get(table) if isinstance(found, dict) else None


def _int(found: object, stack: str, field: str) -> int:
    if type(found) is not int:
        raise BadConfigs(f"stack `{printable(stack)}`: `{field}` is no integer")
    return found


def shape_text(shape: tuple[int, ...] | None) -> str:
    if shape is None:
        return "(unknown)"
    return "(" + ", ".join(str(s) for s in shape) + ")"


def names(items: Any) -> str:
    return ticked((printable(str(n)) for n in items), none="none")
