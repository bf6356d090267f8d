"""The oracle for `tpuemb diff --against-checkpoint` (compat/checkpoint.py) and its reader
(load/checkpoint.py): TensorFlow saves a checkpoint of the mid-level API's variables, tpuemb reads
it without TensorFlow, and what TensorFlow does when it restores the checkpoint under another
config must be what tpuemb says of that config against the checkpoint. Needs TensorFlow
(`make test-tf` installs it); skipped without it.

TPUEmbeddingForServing on CPU creates the variables TPU training creates (``<table>`` and
``<table>/<slot>``, tensorflow/python/tpu/tpu_embedding_base.py); TPU training splits each over
the hosts with ``make_sharded_variable_creator`` (tpu_embedding_v2.py), which runs here on CPU
devices. Observed for each case, from TensorFlow's own signals only:

- restore-error: ``restore()`` raises;
- silent-reinit: ``assert_existing_objects_matched()`` raises (a variable of the new model has
  nothing in the checkpoint);
- orphaned-state: ``assert_consumed()`` raises for a checkpoint value nothing restores.

The reader is checked against ``tf.train.list_variables`` and ``tf.train.load_checkpoint`` on
every checkpoint saved here and on the ones in tests/data/real-repo, and every block of the
indexes TensorFlow 2.21 writes is checked to be uncompressed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tpuemb_cli.compat.checkpoint import compare_checkpoint
from tpuemb_cli.load.checkpoint import read_checkpoint
from tpuemb_cli.load.sstable import TRAILER_SIZE, Handle, Table, entries
from tpuemb_cli.pb.framework import types_pb2

from .compat_pairs import OPTIMIZERS, PAIRS, STATE_KINDS, Pair, Side, document, table
from .helpers import DATA
from .tf_embedding import build, raises

tf = pytest.importorskip("tensorflow")
np = pytest.importorskip("numpy")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _randomize(embedding: Any) -> None:
    rng = np.random.default_rng(0)
    for slots in embedding._variables.values():
        for variable in slots.values():
            variable.assign(rng.standard_normal(variable.shape).astype("float32"))


def _holder(embedding: Any) -> Any:
    """A model that keeps the embedding as an attribute, beside a dense variable, as a Keras
    model does (``model/_tpu_embedding/...``)."""
    model = tf.Module()
    model._tpu_embedding = embedding
    model.kernel = tf.Variable(tf.zeros([4, 2]))
    return model


def _root(embedding: Any, nested: bool) -> Any:
    return (
        tf.train.Checkpoint(model=_holder(embedding))
        if nested
        else tf.train.Checkpoint(embedding=embedding)
    )


def _keys(path: str, prefix: str) -> set[str]:
    return {name for name, _ in tf.train.list_variables(path) if name.startswith(prefix + "/")}


def observe(
    old: Side, new: Side, folder: Path, hosts: tuple[int, int] = (0, 0), nested: bool = False
) -> tuple[str, set[str]]:
    """TensorFlow saves under ``old`` and restores under ``new``: the checkpoint's path and the
    kinds TensorFlow shows."""
    before, _ = build(old, hosts[0])
    _randomize(before)
    path = _root(before, nested).save(str(folder / "old" / "ckpt"))
    after, _ = build(new, hosts[1])
    fresh = _root(after, nested).save(str(folder / "new" / "ckpt"))
    prefix = "model/_tpu_embedding" if nested else "embedding"
    try:
        status = _root(after, nested).restore(path)
    except (ValueError, tf.errors.InvalidArgumentError) as problem:
        # Whole variables, and variables split over hosts (restored slice by slice).
        assert "incompatible tensor with shape" in str(problem) or (
            "does not match the shape stored in checkpoint" in str(problem)
        )
        return path, {"restore-error"}
    found = set()
    if raises(status.assert_existing_objects_matched):
        found.add("silent-reinit")
    if raises(status.assert_consumed):
        found.add("orphaned-state")
    # TensorFlow's signals agree with the keys it saved.
    missing = _keys(fresh, prefix) - _keys(path, prefix)
    orphaned = _keys(path, prefix) - _keys(fresh, prefix)
    assert ("silent-reinit" in found) == bool(missing)
    assert ("orphaned-state" in found) == bool(missing or orphaned)
    if missing:
        found.discard("orphaned-state")  # assert_consumed covers both; the keys tell them apart
    if orphaned:
        found.add("orphaned-state")
    return path, found


def said(new: Side, path: str, as_config: bool) -> set[str]:
    """The state kinds tpuemb reports for ``new`` against the checkpoint at ``path``."""
    changes = compare_checkpoint(document(new, "new", as_config), read_checkpoint(path))
    return {change.kind for change in changes} & set(STATE_KINDS)


def _agree(observed: set[str], new: Side, path: str) -> None:
    for as_config in (False, True):
        kinds = said(new, path, as_config)
        if "restore-error" in observed:
            # The restore stops at the first shape that differs: nothing else is observed.
            assert "restore-error" in kinds, (as_config, kinds)
        else:
            assert kinds == observed, (as_config, kinds, observed)


def _reads_as_tensorflow_does(path: str) -> None:
    ours = read_checkpoint(path).variables
    theirs = dict(tf.train.list_variables(path))
    assert {name: list(v.shape) for name, v in ours.items()} == theirs
    dtypes = tf.train.load_checkpoint(path).get_variable_to_dtype_map()
    assert {name: v.dtype for name, v in ours.items()} == {
        name: types_pb2.DataType.Name(dtype.as_datatype_enum) for name, dtype in dtypes.items()
    }


def _uncompressed(path: str) -> None:
    data = Path(f"{path}.index").read_bytes()
    table = Table(data)
    handles = [table.index] + [
        Handle.decode(value, 0, len(value), "")[0]
        for _, value in entries(table.block(table.index, "index"), "index")
    ]
    assert all(data[h.offset + h.size] == 0 for h in handles)
    assert all(h.end - h.offset - h.size == TRAILER_SIZE for h in handles)


SAME = [
    Pair(f"same-{name}", s, s, frozenset())
    for name in OPTIMIZERS
    for s in [Side([table("u", "user", opt=name)], [("f", "u")])]
]


@pytest.mark.parametrize("pair", SAME + PAIRS, ids=lambda p: p.name)
def test_tensorflow_restores_as_tpuemb_says(pair: Pair, tmp_path: Path) -> None:
    path, observed = observe(pair.old, pair.new, tmp_path)
    _agree(observed, pair.new, path)
    _reads_as_tensorflow_does(path)
    _uncompressed(path)


def test_the_oracle_sees_each_kind(tmp_path: Path) -> None:
    # An oracle that never sees a kind cannot check it.
    seen: set[str] = set()
    for number, pair in enumerate(PAIRS):
        if pair.name in ("dim", "rename", "adam-to-sgd"):
            seen |= observe(pair.old, pair.new, tmp_path / str(number))[1]
    assert seen == set(STATE_KINDS)


SHARDED = ["dim", "vocab", "rename", "adagrad-to-ftrl", "ftrl-to-sgd", "add-table"]


@pytest.mark.parametrize("hosts", [(3, 0), (3, 2), (0, 3)], ids=["3-to-1", "3-to-2", "1-to-3"])
@pytest.mark.parametrize("name", ["same", *SHARDED])
def test_sharded_saves(name: str, hosts: tuple[int, int], tmp_path: Path) -> None:
    # Tables split over hosts are saved as slices of one full variable, and restore onto another
    # number of hosts: only the changes of the config count.
    if name == "same":
        side = Side([table("u", "user", vocab=7, opt="adam")], [("f", "u")])
        pair = Pair("same", side, side, frozenset())
    else:
        pair = next(p for p in PAIRS if p.name == name)
    pair = pair._replace(
        old=pair.old._replace(tables=[{**t, "vocab": 7} for t in pair.old.tables]),
        new=pair.new._replace(
            tables=[{**t, "vocab": 8 if name == "vocab" else 7} for t in pair.new.tables]
        ),
    )
    path, observed = observe(pair.old, pair.new, tmp_path, hosts)
    _agree(observed, pair.new, path)
    _reads_as_tensorflow_does(path)
    variables = read_checkpoint(path).variables
    table_key = next(k for k in variables if k.startswith("embedding/") and ".S" not in k)
    if hosts[0]:
        # 7 rows over 3 hosts: 3, 2, 2 (the first hosts take the remainder), each whole in dim.
        dim = variables[table_key].shape[1]
        assert variables[table_key].slices == (
            ((0, 3), (0, dim)),
            ((3, 2), (0, dim)),
            ((5, 2), (0, dim)),
        )
    else:
        assert variables[table_key].slices == ()


NAMED = [
    ("same", [table("u", "us.er/x", opt="ftrl")], [table("u", "us.er/x", opt="ftrl")]),
    ("dim", [table("u", "us.er/x")], [table("u", "us.er/x", dim=8)]),
    ("slot", [table("u", "a.b", opt="adam")], [table("u", "a.b", opt="adagrad")]),
    ("rename", [table("u", "a/b")], [table("u", "a.b")]),
]


@pytest.mark.parametrize(("name", "old", "new"), NAMED, ids=[n[0] for n in NAMED])
def test_inside_a_model_with_dotted_and_slashed_names(
    name: str, old: list[dict[str, Any]], new: list[dict[str, Any]], tmp_path: Path
) -> None:
    # The embedding one level down, beside another variable (model/_tpu_embedding/...), table
    # names escaped in the keys (`us.er/x` is `us..er.Sx`): tpuemb finds it and reads the names.
    before, after = Side(old, [("f", "u")]), Side(new, [("f", "u")])
    path, observed = observe(before, after, tmp_path, nested=True)
    _agree(observed, after, path)
    assert (name == "same") == (not observed)


REAL = DATA / "real-repo" / "tree"


@pytest.mark.parametrize(
    "path",
    [
        "ckpt/ckpt-1",
        "models/ranker/1/variables/variables",
        "models/half_plus_two/00000123/variables/variables",
        "models/text_regression/01/variables/variables",
    ],
)
def test_tensorflows_files_in_the_real_repository(path: str) -> None:
    _reads_as_tensorflow_does(str(REAL / path))


def _three_shards(folder: Path) -> tuple[Any, str]:
    """A model's variables saved in three data files (MaxShardSizePolicy), its checkpoint."""
    model = tf.Module()
    model.a = tf.Variable(tf.ones([1000, 16]))
    model.b = tf.Variable(tf.ones([1000, 16]))
    model.c = tf.Variable(tf.ones([500, 8]))
    policy = tf.train.experimental.MaxShardSizePolicy(max_shard_size=70000)
    options = tf.train.CheckpointOptions(experimental_sharding_callback=policy)
    path = tf.train.Checkpoint(model=model).save(str(folder / "ckpt"), options=options)
    return model, path


def test_the_data_files_tensorflow_writes_hold_what_the_index_says(tmp_path: Path) -> None:
    model, path = _three_shards(tmp_path)
    found = read_checkpoint(path)
    # Each data file exactly as long as its entries reach: offset + size is TensorFlow's.
    assert found.num_shards == 3
    assert {shard: found.data_file(shard).stat().st_size for shard in range(3)} == dict(
        found.shard_bytes
    )
    tf.train.Checkpoint(model=model).restore(path).assert_consumed()


@pytest.mark.parametrize("broken", ["missing", "truncated"])
def test_a_checkpoint_whose_data_file_is_gone_or_cut_does_not_restore(
    broken: str, tmp_path: Path
) -> None:
    from tpuemb_cli.load.checkpoint import UnreadableCheckpoint

    model, path = _three_shards(tmp_path)
    data = Path(f"{path}.data-00001-of-00003")
    if broken == "missing":
        data.unlink()
    else:
        data.write_bytes(data.read_bytes()[:-1])
    # TensorFlow: NotFoundError for the file gone; for one cut short, a read past its end.
    with pytest.raises(
        (tf.errors.NotFoundError, tf.errors.OutOfRangeError, tf.errors.DataLossError)
    ):
        tf.train.Checkpoint(model=model).restore(path)
    with pytest.raises(UnreadableCheckpoint, match=f"{data.name}, which"):
        read_checkpoint(path)
