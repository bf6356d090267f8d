"""compare_checkpoint (compat/checkpoint.py): a config or spec against the variables a checkpoint
holds. The checkpoints here are what TensorFlow saves for a side of tests/compat_pairs.py (its
tables' and slots' names and shapes; tests/test_tf_checkpoint.py has TensorFlow save and restore
them), or written by hand for one case each."""

from __future__ import annotations

from pathlib import Path

import pytest

from tpuemb_cli.compat.checkpoint import EmbeddingNotFound, compare_checkpoint, find_embedding
from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.compat.sides import side_of
from tpuemb_cli.load import Document, load_bytes, load_input
from tpuemb_cli.load.checkpoint import (
    OBJECT_GRAPH_KEY,
    Checkpoint,
    Variable,
    parse_index,
    read_checkpoint,
)
from tpuemb_cli.model.paths import render

from . import checkpoint_files as files
from .compat_pairs import PAIRS, SLOTS, STATE_KINDS, Pair, Side, diff, document, table
from .helpers import DATA


def saved(side: Side, holder: str = "embedding") -> dict[str, tuple[int, ...]]:
    """The variables TensorFlow's mid-level API saves for ``side`` (``tf.train.Checkpoint(
    embedding=...)``): each table under its name (``table_<i>`` in order of first use when it
    has none) and each slot, shape (vocabulary, dim)."""
    order: list[str] = []
    for _, id in side.features:
        if id not in order:
            order.append(id)
    by_id = {t["id"]: t for t in side.tables}
    tables, slots = {}, {}
    for number, id in enumerate(order):
        t = by_id[id]
        name = t["name"] or f"table_{number}"
        tables[name] = (t["vocab"], t["dim"])
        slots[name] = SLOTS[t["opt"]]
    return files.embedding(tables, slots, holder)


def checkpoint(variables: dict[str, tuple[int, ...]], path: str = "ckpt-1.index") -> Checkpoint:
    found = {name: Variable(name, "DT_FLOAT", shape) for name, shape in variables.items()}
    found[OBJECT_GRAPH_KEY] = Variable(OBJECT_GRAPH_KEY, "DT_STRING", ())
    return Checkpoint(path, found, 1)


def kinds(changes: list[Change]) -> set[str]:
    return {change.kind for change in changes}


def rows(changes: list[Change]) -> list[tuple[str, str | None, str, object, object]]:
    return [(c.kind, c.table, render(c.path), c.old, c.new) for c in changes]


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p.name)
@pytest.mark.parametrize("as_config", [False, True], ids=["spec", "config"])
def test_the_pairs_as_diff_says_them(pair: Pair, as_config: bool) -> None:
    # A checkpoint saved under the old side, compared with the new side: the state kinds diff
    # reports for the pair -- except a swap of unnamed tables of one shape, which leaves the
    # same names and shapes: the checkpoint cannot show it (diff against the old config does).
    changes = compare_checkpoint(document(pair.new, "new", as_config), checkpoint(saved(pair.old)))
    expected = {c.kind for c in diff(pair, as_config)} & set(STATE_KINDS)
    if pair.name == "swap-unnamed":
        expected = set()
    assert kinds(changes) == expected, changes
    assert all(change.side == "new" for change in changes)


def _one(**changes: object) -> Side:
    return Side([{**table("u", "user"), **changes}], [("f", "u")])


def _compare(new: Side, old: Side, as_config: bool = False) -> list[Change]:
    return compare_checkpoint(document(new, "new", as_config), checkpoint(saved(old)))


def test_a_dimension_that_changed() -> None:
    changes = _compare(_one(dim=8), _one())
    assert rows(changes) == [("restore-error", "user", "table_descriptor[0].dimension", 4, 8)]
    assert changes[0].message == (
        "restoring fails: the checkpoint's `user` (embedding/user) has shape (64, 4), the "
        "config's `user` (64, 8) (TensorFlow: Received incompatible tensor with shape (64, 4) "
        "when attempting to restore variable with shape (64, 8); for a table split over hosts: "
        "shape in shape_and_slice spec [64,8] does not match the shape stored in checkpoint: "
        "[64,4])"
    )


@pytest.mark.parametrize("as_config", [False, True], ids=["spec", "config"])
def test_a_vocabulary_that_changed(as_config: bool) -> None:
    changes = _compare(_one(vocab=100), _one(), as_config)
    assert rows(changes) == [
        ("restore-error", "user", "table_descriptor[0].vocabulary_size", 64, 100)
    ]


def test_padding_hides_the_rows_in_a_config_not_in_a_spec() -> None:
    # 3 rows on 4 hosts: the config says 4, which may be any row count up to 4.
    old = _one(vocab=3)
    new = Side(old.tables, old.features, hosts=4)
    assert _compare(new, old, as_config=True) == []
    assert _compare(new, old) == []
    two = Side([{**old.tables[0], "vocab": 2}], old.features, hosts=4)
    assert _compare(two, old, as_config=True) == []  # config: 4, which 3 rows may be
    assert kinds(_compare(two, old)) == {"restore-error"}  # spec: 2 rows, not 3


def test_a_new_table_and_a_hint_of_a_rename() -> None:
    changes = _compare(_one(name="users"), _one())
    assert rows(changes) == [
        ("silent-reinit", "users", "table_descriptor[0]", None, "users"),
        ("orphaned-state", "user", "", "embedding/user", None),
    ]
    assert changes[0].message == (
        "the checkpoint has no `embedding/users`: the restore leaves `users` (64, 4) and its "
        "slots at their initializers; its `user` has that shape and is restored by nothing: "
        "renamed?"
    )
    assert changes[1].message == (
        "the checkpoint's `user` (64, 4) (and `user/accumulators`) is restored by nothing: no "
        "table of the config is named `user` (2 variables under `embedding`)"
    )


def test_slots_the_checkpoint_lacks_and_slots_nothing_restores() -> None:
    changes = _compare(_one(opt="adam"), _one(opt="adagrad_momentum"))
    path = "table_descriptor[0].optimization_parameters.adam"
    assert rows(changes) == [
        ("silent-reinit", "user", path, None, "Adam"),
        ("orphaned-state", "user", path, "embedding/user/accumulators", None),
    ]
    assert changes[0].message == (
        "the checkpoint has no slot `user/velocities` (embedding/user/velocities): Adam's "
        "`velocities` of `user` starts from its initializer"
    )
    assert changes[1].message == (
        "the checkpoint's slot `user/accumulators` (embedding/user/accumulators) is restored by "
        "nothing: Adam has no `accumulators`"
    )


def test_a_slot_of_another_shape() -> None:
    variables = saved(_one())
    variables[files.key("embedding", "user/accumulators")] = (64, 2)
    changes = compare_checkpoint(document(_one(), "new"), checkpoint(variables))
    assert rows(changes) == [
        (
            "restore-error",
            "user",
            "table_descriptor[0].optimization_parameters.adagrad",
            "(64, 2)",
            "(64, 4)",
        )
    ]
    assert (
        "the checkpoint's `user/accumulators` (embedding/user/accumulators) has shape (64, 2)"
        in (changes[0].message)
    )


CONFIG = """\
table_descriptor {
  name: "user"
  vocabulary_size: 64
  dimension: 4
  optimization_parameters { %s }
}
feature_descriptor { name: "f" table_id: 0 input_shape: 8 }
mode: TRAINING
batch_size_per_tensor_core: 8
num_hosts: 1
num_tensor_cores: 8
"""


def _config(optimizer: str) -> Document:
    return load_bytes((CONFIG % optimizer).encode(), "new.pbtxt")


@pytest.mark.parametrize(
    ("optimizer", "field", "label"),
    [("momentum {}", "momentum", "`momentum`"), ("", None, "no optimizer")],
)
def test_an_optimizer_outside_the_mid_level_api(
    optimizer: str, field: str | None, label: str
) -> None:
    # tpuemb cannot know its slots: it says so, and reports none of its slots as orphaned.
    changes = compare_checkpoint(_config(optimizer), checkpoint(saved(_one())))
    path = "table_descriptor[0].optimization_parameters" + (f".{field}" if field else "")
    assert rows(changes) == [("silent-reinit", "user", path, None, label)]
    assert changes[0].message == (
        f"tpuemb does not know the slot variables of `{field or 'no optimizer'}` (TensorFlow's "
        "mid-level API does not build it), so some of `user`'s may start from scratch"
    )


def test_names_with_dots_and_slashes() -> None:
    # `us.er/x` is saved as `us..er.Sx`; its slot as `us..er.Sx.Saccumulators`; a leftover slot
    # belongs to the longest table name beside it.
    name = "us.er/x"
    variables = files.embedding({name: (64, 4)}, {name: ["accumulators", "momenta"]})
    variables[files.key("embedding", "us.er")] = (9, 9)
    new = Side([{**table("u", name)}], [("f", "u")])
    changes = compare_checkpoint(document(new, "new"), checkpoint(variables))
    assert rows(changes) == [
        ("orphaned-state", "us.er", "", "embedding/us.er", None),
        (
            "orphaned-state",
            name,
            "table_descriptor[0].optimization_parameters.adagrad",
            "embedding/us.er/x/momenta",
            None,
        ),
    ]


def test_a_sharded_save_restores_as_a_whole(tmp_path: Path) -> None:
    # A table over 3 hosts is saved as 3 slices of one (7, 4) variable: the full shape counts.
    variables = files.embedding({"user": (7, 4)}, {"user": ["accumulators"]})
    pieces = [((0, 3), (0, 4)), ((3, 2), (0, 4)), ((5, 2), (0, 4))]
    index = tmp_path / "ckpt-1.index"
    files.save(index, files.bundle(variables, dict.fromkeys(variables, pieces)))
    found = read_checkpoint(tmp_path / "ckpt-1")
    assert all(found.variables[name].slices for name in variables)
    assert compare_checkpoint(document(_one(vocab=7), "new"), found) == []
    assert kinds(compare_checkpoint(document(_one(vocab=8), "new"), found)) == {"restore-error"}


# -- where the embedding is -------------------------------------------------------------------


def test_the_embedding_is_found_where_its_tables_are() -> None:
    variables = {
        **saved(_one(), holder="model/layer_with_weights-0/_tpu_embedding"),
        files.key("model/dense", "kernel"): (16, 4),
        files.key("model/dense", "user"): (64, 4),  # one name alike is not enough
        files.key("", "save_counter"): (),
    }
    found = checkpoint(variables)
    tables = side_of(document(_one(), "new")).tables
    assert find_embedding(found, tables, None) == "model/layer_with_weights-0/_tpu_embedding"
    assert compare_checkpoint(document(_one(), "new"), found) == []
    # Told where, tpuemb looks there.
    changes = compare_checkpoint(document(_one(), "new"), found, prefix="/model/dense/")
    assert rows(changes) == [
        (
            "silent-reinit",
            "user",
            "table_descriptor[0].optimization_parameters.adagrad",
            None,
            "Adagrad",
        ),
        ("orphaned-state", "kernel", "", "model/dense/kernel", None),
    ]


def test_state_of_other_tables_is_still_found() -> None:
    # None of the config's names: the one object holding a table beside its slot.
    variables = {**saved(_one(name="old")), files.key("model", "w"): (3, 3)}
    changes = compare_checkpoint(document(_one(name="new"), "new"), checkpoint(variables))
    assert [c.kind for c in changes] == ["silent-reinit", "orphaned-state"]
    assert changes[1].old == "embedding/old"


def test_a_prefix_that_holds_nothing() -> None:
    with pytest.raises(EmbeddingNotFound) as raised:
        compare_checkpoint(document(_one(), "new"), checkpoint(saved(_one())), prefix="embeding")
    assert str(raised.value) == (
        "ckpt-1.index: no object `embeding` holds variables; did you mean `embedding`? (its "
        "objects: `embedding`)"
    )


def test_embedding_state_in_two_places_is_ambiguous() -> None:
    variables = {**saved(_one()), **saved(_one(), holder="ema/embedding")}
    with pytest.raises(EmbeddingNotFound) as raised:
        compare_checkpoint(document(_one(), "new"), checkpoint(variables))
    assert str(raised.value) == (
        "ckpt-1.index: embedding state under 2 objects (`ema/embedding`, `embedding`): say "
        "which one is this config's"
    )
    assert compare_checkpoint(document(_one(), "new"), checkpoint(variables), "ema/embedding") == []


def test_a_checkpoint_saved_by_name_is_refused() -> None:
    found = Checkpoint("model.ckpt-5.index", {"user": Variable("user", "DT_FLOAT", (64, 4))}, 1)
    with pytest.raises(EmbeddingNotFound, match="saved by name"):
        compare_checkpoint(document(_one(), "new"), found)


def test_sparsecore_layouts_are_not_state() -> None:
    variables = {**saved(_one()), files.key("embedding", "_sparse_core_table_layouts"): ()}
    assert compare_checkpoint(document(_one(), "new"), checkpoint(variables)) == []


# -- a checkpoint of another model -------------------------------------------------------------

TREE = DATA / "real-repo" / "tree"


def test_the_real_repositorys_checkpoint_holds_no_embedding_state() -> None:
    # ckpt/ is a CPU ranking model's (make_tf_artifacts.py): a plain embedding variable, dense
    # layers and Keras Adagrad. Restoring the ranker's TPU embedding from it restores nothing.
    config = TREE / "configs/ranker/tpu_embedding.pbtxt"
    loaded = load_input(config.read_bytes(), str(config))
    assert isinstance(loaded, Document)
    changes = compare_checkpoint(loaded, read_checkpoint(TREE / "ckpt"))
    assert [(c.kind, render(c.path)) for c in changes] == [
        ("silent-reinit", f"table_descriptor[{i}]") for i in range(5)
    ]
    assert changes[0].message == (
        "the checkpoint holds no embedding state under `embedding` (its objects: `model`, "
        "`optimizer`): the restore leaves `t_adagrad` (1000, 8) and its slots at their "
        "initializers"
    )


def test_pointed_at_the_models_embedding_variable() -> None:
    # A spec of the model's own table, 64 x 8, told where it is: the table restores; its Adagrad
    # accumulator is Keras's (model/video_embedding/.OPTIMIZER_SLOT/...), not the mid-level
    # API's `video_embedding/accumulators`; the dense layers beside it are restored by nothing.
    side = Side([table("v", "video_embedding", vocab=64, dim=8)], [("f", "v")])
    changes = compare_checkpoint(
        document(side, "new"), read_checkpoint(TREE / "ckpt"), prefix="model"
    )
    assert [(c.kind, c.table) for c in changes] == [
        ("silent-reinit", "video_embedding"),
        ("orphaned-state", "b1"),
        ("orphaned-state", "b2"),
        ("orphaned-state", "w1"),
        ("orphaned-state", "w2"),
    ]


def test_an_index_read_from_bytes_compares_like_one_read_from_disk() -> None:
    data = files.table(files.bundle(saved(_one())))
    found = parse_index(data, "ckpt-1.index")
    assert compare_checkpoint(document(_one(), "new"), found) == []
