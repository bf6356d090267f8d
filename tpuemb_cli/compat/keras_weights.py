"""What a Keras-RS model's saved weights hold for each ``DistributedEmbedding`` layer, and what
loading one model's weights into another does (``tpuemb diff old.keras new.keras``).

Keras 3 saves a layer's state by position, not by name (keras 3.15, ``saving/saving_lib.py`` and
``Layer.save_own_variables``): the layer's own variables as ``vars/0``, ``vars/1``, ... in the
order they were created, and each sub-layer kept in a dict or list under its class name and
place (``embed_reduce``, ``embed_reduce_1``, ...). Loading checks the number of a layer's
variables and each one's shape (``ValueError``, and ``load_weights`` / ``load_model`` fail) and
nothing else: a variable of the same shape at the same place loads whatever it holds, and a
saved object the new layer does not have is ignored. keras-rs 0.4.0's layer holds:

- the tables on the default device (``_default_device_init`` in
  ``layers/embedding/base_distributed_embedding.py``): one ``EmbedReduce`` a table, in a dict
  keyed by feature path (sorted, as ``keras.tree`` flattens), so saved by the place of the
  first feature using each table; a table's later features take a place and hold nothing. Each
  is one ``vocabulary_size x embedding_dim`` array: a renamed table keeps its rows; two tables
  of one shape that trade places trade rows.
- the tables on SparseCores with the JAX backend (``_sparsecore_build`` and
  ``_add_table_variable`` in ``layers/embedding/jax/distributed_embedding.py``): the layer's
  own variables, per stack of jax-tpu-embedding (stacks in the order of their first table by
  name) its
  ``stack_vocab_size x stack_embedding_dim`` table then one array a slot of its optimizer, then
  a scalar ``iteration``. A table's rows sit in the stack by its padded size, offset and
  rotation on ``num_sparsecores`` shards (compat/jax_entries): a stack of the same shape laid
  out otherwise loads other rows' values.

The default-device half is checked against keras-rs 0.4.0 itself on CPU
(tests/test_keras_diff_oracle.py, ``make test-keras``); the SparseCore half, which needs a TPU,
follows the sources above.
"""

from __future__ import annotations

from typing import Any

from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.load import Document
from tpuemb_cli.model.findings import Position
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.records import Record
from tpuemb_cli.spec.keras_spec import Topology

__all__ = ["KerasSide", "NotCompared", "TopologyNeeded", "layer_entries", "weight_changes"]


class KerasSide(Record):
    """A Keras model a change is placed in, at its KerasModel field paths (config.json's
    positions, as `check` places findings)."""

    document: Document

    @property
    def file(self) -> str:
        return self.document.name

    def file_path(self, path: FieldPath) -> FieldPath:
        return path

    def place(self, path: FieldPath) -> tuple[FieldPath, Position | None]:
        source = self.document.source_map
        return path, source.position(path) if source is not None else None


class NotCompared(Exception):
    """A layer whose saved weights tpuemb cannot tell (the message says why and what would)."""


class TopologyNeeded(NotCompared):
    """A layer whose saved weights follow the TPU, and none was named: a missing option (exit
    2), not a limit of diff's -- a CI job that forgot --tpu must not pass having compared
    nothing."""


class Entry(Record):
    """One saved object of a layer, at its place. ``shape`` None: a place that holds nothing (a
    table's later feature); ``rows``: what decides which rows its values are (a table's name
    and size; a stack's tables and their layout); ``path``: the KerasModel field it is placed
    at in a finding."""

    name: str
    shape: tuple[int, ...] | None
    rows: tuple[Any, ...]
    path: FieldPath
    tables: tuple[str, ...] = ()


class LayerEntries(Record):
    """A layer's saved objects: its own variables (the SparseCore stacks), and its default-device
    sub-layers."""

    own: list[Entry]
    default: list[Entry]


def _default(layer: Any, index: int, topology: Topology) -> list[Entry]:
    order = sorted(range(len(layer.features)), key=lambda i: layer.features[i].key)
    entries, seen = [], set()
    for position in order:
        table_index = layer.features[position].table
        if not 0 <= table_index < len(layer.tables):
            continue
        table = layer.tables[table_index]
        if topology.sparsecore_placement(table.placement):
            continue
        path: FieldPath = ("layers", index, "tables", table_index)
        if table_index in seen:  # the table's EmbedReduce again: its place holds nothing
            entries.append(Entry(table.name, None, (), path))
            continue
        seen.add(table_index)
        shape = (table.vocabulary_size, table.embedding_dim)
        entries.append(Entry(table.name, shape, (table.name, *shape), path, (table.name,)))
    return entries


def _own(layer: Any, index: int, topology: Topology) -> list[Entry]:
    """The layer's own variables: the JAX stacks of its SparseCore tables, then ``iteration``."""
    from tpuemb_cli.spec.keras_plan import plan_layer

    plan = plan_layer(layer, topology)
    if not plan.spec.features:
        return []
    where = f"layer {layer.path}"
    if topology.backend != "jax":
        raise NotCompared(
            f"{where}: tables on SparseCores with the TensorFlow backend (TPUEmbeddingV2's "
            "variables), whose saved weights diff does not compare yet"
        )
    if plan.jax is None:
        known = topology.global_device_count > 0 and topology.num_sc_per_device > 0
        raise (NotCompared if known else TopologyNeeded)(f"{where}: {plan.unknown}")
    from tpuemb_cli.spec.jax_memory import SLOTS

    by_name = {table.name: i for i, table in enumerate(layer.tables)}
    entries = []
    # The layer creates its stacks' variables in the order of jax-tpu-embedding's
    # get_table_stacks over its table specs, a dict by table name that jax.tree flattens in
    # sorted order: each stack where its first table by name comes.
    stacks = sorted(
        plan.jax.stacked_table_specs,
        key=lambda stack: min((t.table_name for t in stack.table_specs), default=""),
    )
    for stack in stacks:
        tables = tuple(table.table_name for table in stack.table_specs)
        # Where each table's rows sit in the stack (its padded size, offset, rotation on
        # num_sparsecores shards): not its vocabulary or dimension, which only padding follows.
        rows = (
            stack.num_sparsecores,
            tuple(
                (t.padded_vocab_size, t.padded_embedding_dim, t.row_offset_in_shard,
                 t.shard_rotation)
                for t in stack.table_specs
            ),
        )  # fmt: skip
        path: FieldPath = ("layers", index, "tables", by_name.get(tables[0], 0))
        shape = (stack.stack_vocab_size, stack.stack_embedding_dim)
        optimizer = stack.table_specs[0].optimizer if stack.table_specs else None
        kind = type(optimizer).OptimizerType.Name(optimizer.type) if optimizer else "CUSTOM"
        slots = SLOTS.get(kind)
        if slots is None:
            raise NotCompared(
                f"{where}: stack {stack.stack_name!r} has an optimizer the layer refuses"
            )
        name = f"var:{stack.stack_name}:table"
        entries.append(Entry(name, shape, rows, path, tables))
        for slot in slots:
            entries.append(Entry(f"{name}:slot:{slot}", shape, (*rows, slot), path, tables))
    entries.append(Entry("iteration", (), ("iteration",), ("layers", index)))
    return entries


def layer_entries(layer: Any, index: int, topology: Topology) -> LayerEntries:
    """What a layer's saved weights hold on ``topology``; NotCompared when that is not known."""
    return LayerEntries(_own(layer, index, topology), _default(layer, index, topology))


def _shape(shape: tuple[int, ...] | None) -> str:
    return "nothing" if shape is None else " x ".join(str(d) for d in shape) or "a scalar"


def _traded(
    old: tuple[str, ...], new: tuple[str, ...], old_names: set[str], new_names: set[str]
) -> bool:
    """Whether a stack's places hold other tables of the layer than they did (a table renamed
    in place keeps its rows)."""
    return any(
        before != after and (after in old_names or before in new_names)
        for before, after in zip(old, new, strict=False)
    )


def _own_changes(old: list[Entry], new: list[Entry], where: str) -> list[Change]:
    """The layer's own variables: Keras checks their number, then each one's shape."""
    if len(old) != len(new):
        path = (new or old)[0].path
        return [
            Change(
                "restore-error",
                None,
                path,
                len(old),
                len(new),
                f"{where}: the layer's own variables (its SparseCore stacks, their slots and "
                f"`iteration`) were {len(old)} and are {len(new)}: Keras's load_own_variables "
                'raises ValueError ("expected N variables, but received M"), and '
                "load_weights / load_model fail",
                side="new" if new else "old",
            )
        ]
    changes = []
    old_names = {name for entry in old for name in entry.tables}
    new_names = {name for entry in new for name in entry.tables}
    for before, after in zip(old, new, strict=True):
        label = ", ".join(after.tables) or after.name
        if before.shape != after.shape:
            changes.append(
                Change(
                    "restore-error",
                    after.tables[0] if after.tables else None,
                    after.path,
                    _shape(before.shape),
                    _shape(after.shape),
                    f"{where}: {after.name} ({label}) is {_shape(after.shape)}, saved as "
                    f"{_shape(before.shape)} at its place ({before.name}): Keras's "
                    "variable.assign raises ValueError and the load fails",
                )
            )
        elif before.rows != after.rows or _traded(
            before.tables, after.tables, old_names, new_names
        ):
            changes.append(
                Change(
                    "silent-reinit",
                    after.tables[0] if after.tables else None,
                    after.path,
                    ", ".join(before.tables),
                    label,
                    f"{where}: {after.name} ({label}) loads what {before.name} "
                    f"({', '.join(before.tables)}) saved, of the same shape: Keras loads the "
                    "layer's variables by place, and "
                    + (
                        "this place held other tables"
                        if _traded(before.tables, after.tables, old_names, new_names)
                        else "the stack lays its tables out otherwise (padded sizes, offsets, "
                        "rotations or SparseCore count)"
                    )
                    + ", so its tables get other rows' values without an error",
                    help="restack the saved stacks with jax-tpu-embedding before loading "
                    "(docs/jax.md), or keep the old stacking",
                )
            )
    return changes


def _default_changes(old: list[Entry], new: list[Entry], where: str) -> list[Change]:
    """The default-device tables: Keras loads each place of the new layer from the same place
    of the saved one, and ignores saved places the new layer lacks."""
    changes = []
    old_names = {e.name for e in old if e.shape is not None}
    new_names = {e.name for e in new if e.shape is not None}
    for place, after in enumerate(new):
        if after.shape is None:
            continue
        before = old[place] if place < len(old) else None
        if before is None or before.shape is None:
            changes.append(
                Change(
                    "restore-error",
                    after.name,
                    after.path,
                    None,
                    _shape(after.shape),
                    f"{where}: table {after.name!r} (default device) takes place {place} of the "
                    "layer's embeddings, where the saved layer has none: Keras raises "
                    'ValueError ("expected 1 variables, but received 0") and the load fails',
                )
            )
        elif before.shape != after.shape:
            changes.append(
                Change(
                    "restore-error",
                    after.name,
                    after.path,
                    _shape(before.shape),
                    _shape(after.shape),
                    f"{where}: table {after.name!r} (default device) is "
                    f"{_shape(after.shape)}, and its place {place} holds the saved table "
                    f"{before.name!r}, {_shape(before.shape)}: Keras's variable.assign raises "
                    "ValueError and the load fails",
                )
            )
        elif before.name != after.name and (after.name in old_names or before.name in new_names):
            changes.append(
                Change(
                    "silent-reinit",
                    after.name,
                    after.path,
                    before.name,
                    after.name,
                    f"{where}: table {after.name!r} (default device) loads the rows saved for "
                    f"table {before.name!r}: Keras loads by place (the first feature using each "
                    "table, features sorted by path), and the saved table there has the same "
                    "shape, so nothing fails",
                    help="keep each table's first feature (by path) where it was",
                )
            )
    for place, before in enumerate(old):
        if before.shape is None or before.name in new_names:
            continue
        if place < len(new) and new[place].shape is not None:
            continue  # loaded into the table at its place (renamed, or reported above)
        changes.append(
            Change(
                "orphaned-state",
                before.name,
                before.path,
                _shape(before.shape),
                None,
                f"{where}: table {before.name!r} (default device) was saved at place {place}, "
                "which the new layer does not load: Keras ignores it without a word",
                side="old",
            )
        )
    return changes


def weight_changes(old_model: Any, new_model: Any, topology: Topology) -> list[Change]:
    """Every change that loading ``old_model``'s saved weights into ``new_model`` meets, layer by
    layer (the DistributedEmbedding layers paired by their order in the model, as Keras saves
    them); NotCompared when a layer's weights are not known on ``topology``."""
    changes: list[Change] = []
    old_layers, new_layers = list(old_model.layers), list(new_model.layers)
    for index, after in enumerate(new_layers):
        where = f"layer {after.path}"
        if index >= len(old_layers):
            continue  # a layer the saved model lacks: Keras reports it (below)
        old_entries = layer_entries(old_layers[index], index, topology)
        new_entries = layer_entries(after, index, topology)
        changes += _own_changes(old_entries.own, new_entries.own, where)
        changes += _default_changes(old_entries.default, new_entries.default, where)
    if len(old_layers) != len(new_layers):
        more = len(new_layers) > len(old_layers)
        extra = new_layers[len(old_layers)] if more else old_layers[len(new_layers)]
        index = len(old_layers) if more else len(new_layers)
        changes.append(
            Change(
                "restore-error" if more else "orphaned-state",
                None,
                ("layers", index),
                len(old_layers),
                len(new_layers),
                f"layer {extra.path}: the model had {len(old_layers)} DistributedEmbedding "
                f"layers and has {len(new_layers)}: "
                + (
                    "the new one's weights are not in the saved model, and Keras fails the load"
                    if more
                    else "the saved layer's weights are ignored"
                ),
                side="new" if more else "old",
            )
        )
    return changes
