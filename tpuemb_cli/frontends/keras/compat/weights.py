"""What a Keras-RS model's saved weights hold for each ``DistributedEmbedding`` layer, and what
loading one model's weights into another does (``tpuemb diff old.keras new.keras``).

Keras 3 saves a layer's state by position, not by name (keras 3.15, ``saving/saving_lib.py`` and
``Layer.save_own_variables``): the layer's own variables as ``vars/0``, ``vars/1``, ... in the
order they were created, and each sub-layer kept in a dict or list under its class name and
place (``embed_reduce``, ``embed_reduce_1``, ...). The layers of a model are placed alike, in a
Functional or Sequential model's ``layers`` (``layers/distributed_embedding``,
``layers/functional/layers/distributed_embedding_1``: ``_walk_saveable``; each layer's
``weights_path``, frontends/keras/load/config), so layers are paired by that place, not by name
or order.
Loading checks the number of a layer's variables and each one's shape (``ValueError``, and
``load_weights`` / ``load_model`` fail) and nothing else: a variable of the same shape at the
same place loads whatever it holds, and a saved object the new layer does not have is ignored.
keras-rs 0.4.0's layer holds:

- the tables on the default device (``_default_device_init`` in
  ``layers/embedding/base_distributed_embedding.py``): one ``EmbedReduce`` a table, in a dict
  keyed by feature path in the order ``keras.tree.flatten_with_path`` walks the features (each
  level's keys sorted), so saved by the place of the first feature using each table; a table's
  later features take a place and hold nothing. Each
  is one ``vocabulary_size x embedding_dim`` array: a renamed table keeps its rows; two tables
  of one shape that trade places trade rows.
- the tables on SparseCores with the JAX backend (``_sparsecore_build`` and
  ``_add_table_variable`` in ``layers/embedding/jax/distributed_embedding.py``): the layer's
  own variables, per stack of jax-tpu-embedding (stacks in the order of their first table by
  name) its
  ``stack_vocab_size x stack_embedding_dim`` table then one array a slot of its optimizer, then
  a scalar ``iteration``. A table's rows sit in the stack by its padded size, offset and
  rotation on ``num_sparsecores`` shards (frontends/jax/compat/entries): a stack of the same shape
  laid out otherwise loads other rows' values.

- the tables on SparseCores (or the TPU embedding engine) with the TensorFlow backend
  (``_sparsecore_init`` in ``layers/embedding/tensorflow/distributed_embedding.py``): nothing.
  The layer keeps them in a ``TPUEmbeddingV2`` (``TPUEmbedding`` on v2-v4) it sets up under
  ``no_automatic_dependency_tracking``, which is no Keras object, so Keras's saving never walks
  it; its one own variable is ``_gradient_trap_dummy``, of shape ``(1,)``, created first. Loading
  leaves those tables at their initializers: ``unsaved_tables`` names them (the
  ``unsaved-state`` change).

The default-device half and the layers' places are checked against keras-rs 0.4.0 itself on
CPU (tests/test_keras_diff_oracle.py, ``make test-keras``); the JAX SparseCore half, which needs
a TPU, follows the sources above, on a simulated SparseCore; the TensorFlow half against
keras-rs and TensorFlow 2.21 building the real ``TPUEmbeddingV2`` / ``TPUEmbedding`` under a
stand-in TPUStrategy on CPU, saving and loading the model (tests/test_tf_keras_saving_oracle.py,
``make test-tf``). A chip whose TPU embedding feature is not known (v5e, TPU7x) with the
TensorFlow backend is not compared: NotCompared, which diff reports as an error (exit 2).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container
from typing import Any

from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.frontends.keras.spec.conversion import Topology, shadowed_features, unsaved_tables
from tpuemb_cli.load import Document
from tpuemb_cli.model.findings import Position
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.records import Record
from tpuemb_cli.model.words import listed

__all__ = ["KerasSide", "NotCompared", "layer_entries", "weight_changes"]


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
        return self.document.located(path)


# keras-rs 0.4.0's TensorFlow layer's one own variable when it has TPU embedding tables.
GRADIENT_TRAP = "_gradient_trap_dummy"


class NotCompared(Exception):
    """A layer whose saved weights tpuemb cannot tell (the message says why and what would).
    ``side``: the model the layer is in ("old", the saved one, or "new"), set by
    ``weight_changes``, so that the file named with the message is the layer's."""

    side = "new"


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


def _default_order(layer: Any, topology: Topology) -> list[int]:
    """The features whose places the layer's ``EmbedReduce`` dict holds, in its order: keras-rs
    keys it by the feature's path joined by ``.``, in the order ``keras.tree.flatten_with_path``
    walks the features -- each level's dict keys sorted, which is the order the features are
    read in (frontends/keras/load/config), not the joined paths sorted (``a-x`` comes after ``a`` /
    ``z``, whose joined ``a.z`` sorts after it). Two features of one joined path (``a.b`` and
    ``a`` / ``b``) of one placement share a key (``keras_spec.shadowed_features``): the dict
    keeps its first place and the later feature's table."""
    shadowed = shadowed_features(layer, topology)
    order: list[int] = []
    placed: set[int] = set()
    for position in range(len(layer.features)):
        kept = shadowed.get(position, position)
        if kept not in placed:
            placed.add(kept)
            order.append(kept)
    return order


def _default(layer: Any, index: int, topology: Topology) -> list[Entry]:
    entries, seen = [], set()
    for position in _default_order(layer, topology):
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
    from tpuemb_cli.frontends.keras.spec.plan import plan_layer

    plan = plan_layer(layer, topology)
    if not plan.spec.features:
        return []
    where = f"layer {layer.path}"
    if topology.backend != "jax":
        # No --tpu, or v5e / TPU7x (SparseCores, or none: not known). A chip named alone
        # does: what the layer saves does not depend on how many there are.
        if not topology.accelerator or not topology.embedding_feature():
            raise NotCompared(f"{where}: {plan.unknown}")
        # The TensorFlow layer's tables there are saved nowhere (unsaved_tables); its own
        # variable is the gradient trap, created before its default-device sub-layers.
        return [Entry(GRADIENT_TRAP, (1,), (GRADIENT_TRAP,), ("layers", index))]
    if plan.jax is None:  # no --tpu, or a layer its conversion refuses
        raise NotCompared(f"{where}: {plan.unknown}")
    from tpuemb_cli.frontends.jax.spec.memory import SLOTS

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
    old: tuple[str, ...], new: tuple[str, ...], old_names: Container[str], new_names: Container[str]
) -> bool:
    """Whether a stack's places hold other tables of the layer than they did (a table renamed
    in place keeps its rows)."""
    return any(
        before != after and (after in old_names or before in new_names)
        for before, after in zip(old, new, strict=False)
    )


# The tables of the old model and of the new one, as a layer pair judges them (``_names_for``).
Names = tuple[Container[str], Container[str]]


def _own_kind(entries: list[Entry]) -> str:
    if not entries:
        return "none"
    if entries[0].name == GRADIENT_TRAP:
        return "the TensorFlow layer's gradient trap"
    return "SparseCore stacks, their slots and `iteration`"


def _own_changes(
    old: list[Entry], new: list[Entry], wheres: tuple[str, str], names: Names
) -> list[Change]:
    """The layer's own variables: Keras checks their number, then each one's shape. A place
    that held a table the new model has (in any layer) holds another table's rows: a renamed
    table keeps its own. ``wheres``: the saved layer's label and the new one's."""
    old_where, where = wheres
    if len(old) != len(new):
        path = (new or old)[0].path
        return [
            Change(
                "restore-error",
                None,
                path,
                len(old),
                len(new),
                f"{where if new else old_where}: the layer's own variables ({_own_kind(old)} "
                f"saved, {_own_kind(new)} now) were {len(old)} and are {len(new)}: Keras's "
                "load_own_variables "
                'raises ValueError ("expected N variables, but received M"), and '
                "load_weights / load_model fail",
                side="new" if new else "old",
            )
        ]
    changes = []
    old_names, new_names = names
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


def _default_loads(
    old: list[Entry], new: list[Entry]
) -> tuple[dict[FieldPath, int], dict[FieldPath, int]]:
    """Which saved place each of the new layer's default-device tables loads from, as Keras
    3.15's ``_load_container_state`` walks the layer's dict: place by place, a table not loaded
    yet tries the saved array at the same place; a table that fails (no array there, or another
    shape) is not marked loaded, so the next place that holds it -- a later feature of the same
    table -- tries again, and a success there clears the failure. Returns each loaded table's
    place, and each never-loaded table's first failed place (the load then raises)."""
    shapes = {entry.path: entry.shape for entry in new if entry.shape is not None}
    loaded: dict[FieldPath, int] = {}
    failed: dict[FieldPath, int] = {}
    for place, after in enumerate(new):
        table = after.path
        if table in loaded or table not in shapes:
            continue
        before = old[place] if place < len(old) else None
        if before is not None and before.shape is not None and before.shape == shapes[table]:
            loaded[table] = place
            failed.pop(table, None)
        else:
            failed.setdefault(table, place)
    return loaded, failed


def _default_changes(
    old: list[Entry], new: list[Entry], wheres: tuple[str, str], names: Names
) -> list[Change]:
    """The default-device tables: each loads from the first place of it whose saved array has
    its shape (``_default_loads``), and saved places nothing loads from are ignored.
    ``wheres``: the saved layer's label (for what is placed in the old file) and the new
    one's."""
    old_where, where = wheres
    changes = []
    new_names = {e.name for e in new if e.shape is not None}
    old_tables, new_tables = names
    loaded, failed = _default_loads(old, new)
    firsts: dict[FieldPath, Entry] = {}
    for entry in new:
        if entry.shape is not None:
            firsts.setdefault(entry.path, entry)
    for table, place in failed.items():
        after = firsts[table]
        before = old[place] if place < len(old) else None
        tried = sum(1 for e in new if e.path == table)
        retried = (
            " (nor does any later place of the table: Keras tries each place of a table it has "
            "not loaded yet)"
            if tried > 1
            else ""
        )
        if before is None or before.shape is None:
            message = (
                f"{where}: table {after.name!r} (default device) takes place {place} of the "
                f"layer's embeddings, where the saved layer has none{retried}: Keras raises "
                'ValueError ("expected 1 variables, but received 0") and the load fails'
            )
            old_shape = None
        else:
            message = (
                f"{where}: table {after.name!r} (default device) is "
                f"{_shape(after.shape)}, and its place {place} holds the saved table "
                f"{before.name!r}, {_shape(before.shape)}{retried}: Keras's variable.assign "
                "raises ValueError and the load fails"
            )
            old_shape = _shape(before.shape)
        changes.append(
            Change("restore-error", after.name, after.path, old_shape, _shape(after.shape), message)
        )
    for table, place in loaded.items():
        after, before = firsts[table], old[place]
        if before.name != after.name and (after.name in old_tables or before.name in new_tables):
            changes.append(
                Change(
                    "silent-reinit",
                    after.name,
                    after.path,
                    before.name,
                    after.name,
                    f"{where}: table {after.name!r} (default device) loads the rows saved for "
                    f"table {before.name!r}: Keras loads by place (the first feature using each "
                    "table, features in keras.tree's order: each level's keys sorted), and "
                    "the saved table there has the same shape, so nothing fails",
                    help="keep each table's first feature (in that order) where it was",
                )
            )
    # A saved place the new layer loaded from, or failed to load from (a restore-error above).
    used = set(loaded.values()) | set(failed.values())
    for place, before in enumerate(old):
        if before.shape is None or before.name in new_names or place in used:
            continue
        changes.append(
            Change(
                "orphaned-state",
                before.name,
                before.path,
                _shape(before.shape),
                None,
                f"{old_where}: table {before.name!r} (default device) was saved at place "
                f"{place}, "
                "which the new layer does not load: Keras ignores it without a word",
                side="old",
            )
        )
    return changes


def _entries(layer: Any, index: int, topology: Topology, side: str) -> LayerEntries:
    try:
        return layer_entries(layer, index, topology)
    except NotCompared as problem:
        problem.side = side
        raise


def _tables(layers: list[LayerEntries]) -> set[str]:
    """The tables whose rows the layers' saved objects hold."""
    return {
        name
        for layer in layers
        for entry in (*layer.own, *layer.default)
        if entry.shape is not None
        for name in entry.tables
    }


class _Side:
    """One model's table names as the new layer of one pair judges them: its own pair's, and
    those of every other pair or lone layer (``counts``: in how many places each is, of which
    ``mine`` is this pair's share). Counted once for all pairs, so that each asks in constant
    time (a thousand layers made a thousand unions of every other layer's names)."""

    def __init__(self, own: set[str], counts: Counter[str], mine: set[str]) -> None:
        self.own, self.counts, self.mine = own, counts, mine

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        return name in self.own or self.counts[name] > (name in self.mine)


class _NameSides:
    """The tables that tell a rename from a mix-up, for each new layer paired with a saved one:
    every table either model has (saved or not: a table the TensorFlow layer kept on the TPU
    that moves to the default device and loads another's rows is no rename), but those another
    pair of layers keeps on both sides -- a table of that name stays there, and says nothing of
    this layer."""

    def __init__(
        self, pairs: dict[int, int], old_names: list[set[str]], new_names: list[set[str]]
    ) -> None:
        self.pairs, self.old_names, self.new_names = pairs, old_names, new_names
        self.old_share: dict[int, set[str]] = {}
        self.new_share: dict[int, set[str]] = {}
        for new, old in pairs.items():
            staying = old_names[old] & new_names[new]
            self.old_share[new] = old_names[old] - staying
            self.new_share[new] = new_names[new] - staying
        paired = set(pairs.values())
        lone_old = [n for i, n in enumerate(old_names) if i not in paired]
        lone_new = [n for i, n in enumerate(new_names) if i not in pairs]
        self.old_counts = Counter(
            name for names in [*self.old_share.values(), *lone_old] for name in names
        )
        self.new_counts = Counter(
            name for names in [*self.new_share.values(), *lone_new] for name in names
        )

    def of(self, index: int) -> Names:
        """The two sides for the new layer ``index`` (paired)."""
        return (
            _Side(self.old_names[self.pairs[index]], self.old_counts, self.old_share[index]),
            _Side(self.new_names[index], self.new_counts, self.new_share[index]),
        )


def _used_tables(layers: list[Any]) -> set[str]:
    """The names of the tables the layers' features look up (wherever they are placed)."""
    return {
        layer.tables[feature.table].name
        for layer in layers
        for feature in layer.features
        if 0 <= feature.table < len(layer.tables)
    }


def _saved_anything(entries: LayerEntries) -> bool:
    return bool(entries.own) or any(entry.shape is not None for entry in entries.default)


def weight_changes(old_model: Any, new_model: Any, topology: Topology) -> list[Change]:
    """Every change that loading ``old_model``'s saved weights into ``new_model`` meets, layer by
    layer: each new layer loads what the saved model holds at its place in the weights file
    (``weights_path``: where Keras saves it, by its place among its models' layers, not by its
    name nor its order among the DistributedEmbedding layers); NotCompared when a layer's weights
    are not known on ``topology``, or its place is not."""
    changes: list[Change] = []
    old_layers, new_layers = list(old_model.layers), list(new_model.layers)
    for side, layers in (("old", old_layers), ("new", new_layers)):
        for layer in layers:
            if not layer.weights_path:
                problem = NotCompared(
                    f"layer {layer.path}: where Keras saves its weights is not known: it sits "
                    "in a layer or model other than a Functional or Sequential model, whose "
                    "sub-layers Keras saves under its attributes' names, which config.json "
                    "does not hold"
                )
                problem.side = side
                raise problem
    new_entries = [_entries(layer, i, topology, "new") for i, layer in enumerate(new_layers)]
    old_entries = [_entries(layer, i, topology, "old") for i, layer in enumerate(old_layers)]
    # A layer seen twice (one object in two models) is saved once, at its first place.
    saved: dict[str, int] = {}
    for index, layer in enumerate(old_layers):
        saved.setdefault(layer.weights_path, index)
    old_names = [
        _tables([entries]) | _used_tables([layer])
        for entries, layer in zip(old_entries, old_layers, strict=True)
    ]
    new_names = [
        _tables([entries]) | _used_tables([layer])
        for entries, layer in zip(new_entries, new_layers, strict=True)
    ]
    pairs = {
        index: saved[layer.weights_path]
        for index, layer in enumerate(new_layers)
        if layer.weights_path in saved
    }
    sides = _NameSides(pairs, old_names, new_names)
    paired = set()
    for index, after in enumerate(new_layers):
        if after.weights_path not in saved:
            if _saved_anything(new_entries[index]):
                changes.append(_layer_not_saved(after, index, old_layers))
            continue
        before = old_entries[saved[after.weights_path]]
        paired.add(after.weights_path)
        wheres = (f"layer {old_layers[saved[after.weights_path]].path}", f"layer {after.path}")
        names = sides.of(index)
        changes += _own_changes(before.own, new_entries[index].own, wheres, names)
        changes += _default_changes(before.default, new_entries[index].default, wheres, names)
    for index, after in enumerate(new_layers):
        unsaved = unsaved_tables(after, topology)
        if unsaved:
            changes.append(_unsaved_state(after, index, unsaved, topology))
    for place, index in saved.items():
        before = old_layers[index]
        if place in paired or not _saved_anything(old_entries[index]):
            continue
        changes.append(
            Change(
                "orphaned-state",
                None,
                ("layers", index),
                place,
                None,
                f"layer {before.path}: the saved model holds its weights at {place}, where the "
                "new model has no DistributedEmbedding layer: Keras loads each layer from its "
                "own place in the weights file, and ignores this one without a word",
                side="old",
            )
        )
    return changes


def _layer_not_saved(after: Any, index: int, old_layers: list[Any]) -> Change:
    held = ", ".join(sorted({layer.weights_path for layer in old_layers})) or "none"
    return Change(
        "restore-error",
        None,
        ("layers", index),
        None,
        after.weights_path,
        f"layer {after.path}: Keras loads its weights from {after.weights_path} in the saved "
        f"model's weights file, which holds no DistributedEmbedding layer there (the saved "
        f"model's are at {held}): its variables get none, Keras raises ValueError "
        '("expected N variables, but received 0") and the load fails',
        help="keep the layer at its place among its models' layers (Keras pairs layers by "
        "their class and place, not their names), or load the old weights into a model of "
        "the old shape and save it again",
        side="new",
    )


def _unsaved_state(layer: Any, index: int, unsaved: list[int], topology: Topology) -> Change:
    names = [layer.tables[t].name for t in unsaved]
    many = len(names) > 1
    them, their = ("them", "their") if many else ("it", "its")
    return Change(
        "unsaved-state",
        names[0],
        ("layers", index, "tables", unsaved[0]),
        None,
        None,
        f"layer {layer.path}: table{'s' if many else ''} {listed(names)} "
        f"({topology.library()}) {'are' if many else 'is'} in neither file: "
        f"keras-rs 0.4.0's TensorFlow layer keeps {them} outside Keras's saving, so loading "
        f"the saved model leaves {them} at {their} initializer{'s' if many else ''}, "
        "changed or not",
        help="checkpoint the layer's TPU embedding object yourself "
        "(tf.train.Checkpoint(embedding=layer._tpu_embedding)) beside the .keras file, or train "
        "with the JAX backend, whose .keras file holds the tables",
    )
