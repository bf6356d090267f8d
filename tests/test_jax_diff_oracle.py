"""`tpuemb diff` of stacked layouts against jax-tpu-embedding itself, on CPU (`make test-jax`;
skipped where the library is missing): the layouts are the library's own
(`create_proto_from_feature_specs`), its restacking functions carry tables across a change of
layout as docs/jax.md says (4 devices -> 8, 2 SparseCores a device -> 4, a table joining a stack,
tables that grow or shrink), and Orbax restores or refuses each change as diff says it does."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

jte = pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from click.testing import CliRunner  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from jax_tpu_embedding.sparsecore.lib.nn import embedding_spec, table_stacking  # noqa: E402

from tpuemb_cli.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "jax"


def _zeros(key: Any, shape: Any, dtype: Any = None) -> Any:
    return jnp.zeros(shape)


def _features(tables: list[tuple[str, int, int]], batch: int = 256) -> list[Any]:
    optimizer = embedding_spec.AdagradOptimizerSpec(learning_rate=0.1)
    features = []
    for name, vocabulary, dim in tables:
        table = embedding_spec.TableSpec(
            name=name,
            vocabulary_size=vocabulary,
            embedding_dim=dim,
            initializer=_zeros,
            optimizer=optimizer,
            combiner="sum",
        )
        features.append(
            embedding_spec.FeatureSpec(
                name=f"{name}_id",
                table_spec=table,
                input_shape=(batch, 1),
                output_shape=(batch, dim),
            )
        )
    return features


def _layout(
    tables: list[tuple[str, int, int]],
    devices: int,
    cores: int,
    stack: list[str] | None = None,
) -> tuple[Any, list[Any]]:
    """The library's EmbeddingSpecProto for ``tables`` on ``devices`` x ``cores`` SparseCores,
    ``stack`` stacked together, and the prepared feature specs."""
    features = _features(tables)
    if stack:
        table_stacking.stack_tables(features, stack, devices, cores)
    jte.prepare_feature_specs_for_training(features, devices, cores)
    return jte.create_proto_from_feature_specs(features, devices, cores), features


def _values(tables: list[tuple[str, int, int]], seed: int = 0) -> dict[str, Any]:
    """Distinct values for every row of every table."""
    generator = np.random.default_rng(seed)
    return {
        name: jnp.asarray(generator.standard_normal((vocabulary, dim)), dtype=jnp.float32)
        for name, vocabulary, dim in tables
    }


def _carry(stacked: dict[str, Any], old: Any, new: Any) -> dict[str, Any]:
    """docs/jax.md's recipe: unstack with the old layout, restack with the new one."""
    tables = table_stacking.unstack_and_unshard_stacked_tables(stacked, old)
    carried: dict[str, Any] = table_stacking.stack_and_shard_feature_tables(tables, new)
    return carried


def _diff(tmp_path: Path, old: Any, new: Any) -> tuple[int, list[dict[str, Any]]]:
    paths = []
    for name, proto in (("old.pbtxt", old), ("new.pbtxt", new)):
        path = tmp_path / name
        path.write_text(text_format.MessageToString(proto))
        paths.append(str(path))
    result = CliRunner().invoke(main, ["diff", "--isolated", "--format", "json", *paths])
    return result.exit_code, json.loads(result.stdout)["changes"]


TABLES = [("user", 3000, 24), ("item", 1000, 24), ("country", 40, 8)]


@pytest.mark.parametrize(
    ("old_topology", "new_topology"),
    # (4, 2) -> (2, 4): as many SparseCores, and the library's default rotation (the
    # SparseCores a device) changes: the same shapes, other places.
    [((4, 2), (8, 2)), ((4, 2), (4, 4)), ((8, 4), (4, 2)), ((1, 2), (16, 2)), ((4, 2), (2, 4))],
)
def test_restacking_carries_every_table_to_another_device_count(
    tmp_path: Path, old_topology: tuple[int, int], new_topology: tuple[int, int]
) -> None:
    old, _ = _layout(TABLES, *old_topology, stack=["user", "item"])
    new, new_features = _layout(TABLES, *new_topology, stack=["user", "item"])
    values = _values(TABLES)
    stacked = table_stacking.stack_and_shard_feature_tables(values, old)
    carried = _carry(stacked, old, new)
    direct = table_stacking.stack_and_shard_feature_tables(values, new)
    assert carried.keys() == direct.keys() == {"user_item", "country"}
    for name in direct:
        np.testing.assert_array_equal(np.asarray(carried[name]), np.asarray(direct[name]))
    # The training layout: what the library's TableSpec-driven stacking (the layout
    # init_embedding_variables allocates) makes of the same tables.
    specs = {f.table_spec.name: f.table_spec for f in new_features}
    cores = new_topology[0] * new_topology[1]
    trained = table_stacking.stack_and_shard_tables(specs, values, cores, pad_value=0.0)
    for name in direct:
        np.testing.assert_array_equal(
            np.asarray(trained[name]).reshape(np.asarray(direct[name]).shape),
            np.asarray(direct[name]),
        )
    # Restored as it is, an entry of the same shape holds the same rows or other rows: diff says
    # nothing, or silent-reinit; of another shape, Orbax refuses: restore-error.
    code, changes = _diff(tmp_path, old, new)
    kinds = {c["table"]: c["kind"] for c in changes if c["table"] in ("user_item", "country")}
    for name in direct:
        before, after = np.asarray(stacked[name]), np.asarray(direct[name])
        if before.shape == after.shape:
            # The same values where they are: no change (a table alone, as many SparseCores);
            # else a silent one.
            if np.array_equal(before, after):
                assert name not in kinds
            else:
                assert kinds[name] == "silent-reinit"
        else:
            assert kinds[name] == "restore-error"
    assert code == 1
    cores_before, cores_after = (a * b for a, b in (old_topology, new_topology))
    assert any(c["kind"] == "topology-change" for c in changes) == (cores_before != cores_after)


def test_a_row_sits_where_docs_say() -> None:
    """Row r of a table: shard (r mod N + rotation) mod N, at row_offset_in_shard + r div N."""
    proto, _ = _layout(TABLES, 4, 2, stack=["user", "item"])
    values = _values(TABLES)
    stacked = table_stacking.stack_and_shard_feature_tables(values, proto)
    for stack in proto.stacked_table_specs:
        array = np.asarray(stacked[stack.stack_name])
        cores = stack.num_sparsecores
        shard_rows = stack.stack_vocab_size // cores
        for table in stack.table_specs:
            for row in (0, 1, 7, table.vocab_size - 1):
                shard = (row % cores + table.shard_rotation) % cores
                at = shard * shard_rows + table.row_offset_in_shard + row // cores
                np.testing.assert_array_equal(
                    array[at, : table.embedding_dim], np.asarray(values[table.table_name][row])
                )


def test_a_table_joining_a_stack_is_carried_and_diff_says_the_stack_changes(
    tmp_path: Path,
) -> None:
    old, _ = _layout(TABLES, 4, 2, stack=["user", "item"])
    new, _ = _layout(TABLES, 4, 2, stack=["user", "item", "country"])
    values = _values(TABLES)
    stacked = table_stacking.stack_and_shard_feature_tables(values, old)
    carried = _carry(stacked, old, new)
    direct = table_stacking.stack_and_shard_feature_tables(values, new)
    assert carried.keys() == {"user_item_country"}
    np.testing.assert_array_equal(
        np.asarray(carried["user_item_country"]), np.asarray(direct["user_item_country"])
    )
    code, changes = _diff(tmp_path, old, new)
    assert code == 1
    assert sorted((c["kind"], c["table"]) for c in changes) == [
        ("restore-error", "country"),
        ("restore-error", "user_item"),
        ("restore-error", "user_item_country"),
    ]


def test_a_grown_table_is_padded_with_zeros_and_a_shrunk_one_refused() -> None:
    """What docs/jax.md and diff's help say the restacking does to a table of another size."""
    old_tables = [("user", 1000, 16)]
    old, _ = _layout(old_tables, 4, 2)
    stacked = table_stacking.stack_and_shard_feature_tables(_values(old_tables), old)
    grown, _ = _layout([("user", 1500, 20)], 4, 2)
    carried = _carry(stacked, old, grown)
    back = table_stacking.unstack_and_unshard_stacked_tables(carried, grown)["user"]
    original = np.asarray(_values(old_tables)["user"])
    np.testing.assert_array_equal(np.asarray(back)[:1000, :16], original)
    assert not np.asarray(back)[1000:].any() and not np.asarray(back)[:, 16:].any()
    shrunk, _ = _layout([("user", 500, 16)], 4, 2)
    with pytest.raises(ValueError):
        _carry(stacked, old, shrunk)
    tables = table_stacking.unstack_and_unshard_stacked_tables(stacked, old)
    sliced = {"user": tables["user"][:500]}
    again = table_stacking.stack_and_shard_feature_tables(sliced, shrunk)
    back = table_stacking.unstack_and_unshard_stacked_tables(again, shrunk)["user"]
    np.testing.assert_array_equal(np.asarray(back), original[:500])


def test_restacking_looks_tables_up_by_name() -> None:
    old, _ = _layout([("user", 1000, 16)], 4, 2)
    new, _ = _layout([("member", 1000, 16)], 4, 2)
    stacked = table_stacking.stack_and_shard_feature_tables(_values([("user", 1000, 16)]), old)
    with pytest.raises(ValueError, match="member"):
        _carry(stacked, old, new)


def _orbax_restore(tmp_path: Path, saved: dict[str, Any], target: dict[str, Any]) -> Any:
    import orbax.checkpoint as ocp

    checkpointer = ocp.StandardCheckpointer()
    path = tmp_path / "checkpoint"
    checkpointer.save(path, saved)
    checkpointer.wait_until_finished()
    device = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    abstract = jax.tree.map(
        lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=device), target
    )
    return checkpointer.restore(path, abstract)


def _entries(proto: Any, slots: int = 1) -> dict[str, Any]:
    """The tree a checkpoint holds for ``proto``: per stack, its table and slot arrays."""
    return {
        stack.stack_name: {
            "table": jnp.ones((stack.stack_vocab_size, stack.stack_embedding_dim)),
            "slot": tuple(
                jnp.ones((stack.stack_vocab_size, stack.stack_embedding_dim)) for _ in range(slots)
            ),
        }
        for stack in proto.stacked_table_specs
    }


@pytest.mark.parametrize(
    ("change", "restores"),
    [
        ("same", True),
        ("devices, same shape", True),  # silent-reinit
        ("dimension", False),
        ("table joins a stack", False),
        ("stack renamed", False),
        ("slots", False),
    ],
)
def test_orbax_restores_or_refuses_as_diff_says(
    tmp_path: Path, change: str, restores: bool
) -> None:
    tables = [("user", 512, 16), ("item", 256, 16), ("country", 40, 8)]
    old, _ = _layout(tables, 2, 2, stack=["user", "item"])
    new_tables, topology, stack, slots = tables, (2, 2), ["user", "item"], 1
    if change == "devices, same shape":
        topology = (4, 2)
    elif change == "dimension":
        new_tables = [*tables[:2], ("country", 40, 12)]
    elif change == "table joins a stack":
        stack = ["user", "item", "country"]
    elif change == "slots":
        slots = 2
    new, _ = _layout(new_tables, *topology, stack=stack)
    target = _entries(new, slots)
    if change == "stack renamed":
        target = {"users_and_items" if k == "user_item" else k: v for k, v in target.items()}
    if restores:
        restored = _orbax_restore(tmp_path, _entries(old), target)
        assert jax.tree.map(np.shape, restored) == jax.tree.map(np.shape, target)
    else:
        with pytest.raises(ValueError, match=r"not compatible|do not match"):
            _orbax_restore(tmp_path, _entries(old), target)


def _example_module() -> Any:
    spec = importlib.util.spec_from_file_location("make_stacked", EXAMPLE / "make_stacked.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_examples_are_what_the_library_writes() -> None:
    from importlib.metadata import version

    module = _example_module()
    written = f"jax-tpu-embedding {version('jax-tpu-embedding')} on CPU"
    for next_version, target in module.TARGETS.items():
        if written not in target.read_text():
            pytest.skip(f"the examples are another release's than {written}")
        assert target.read_text() == module.text_of(next_version), target


def _save_nnx_checkpoint(checkpoint_utils: Any, path: Path, proto: Any, state: Any) -> None:
    """A checkpoint as 0.2.0's `save_checkpoint` writes one: the model's state (the stacks under
    the `embedding_table` key of the NNX embedding layer), the optimizer's, the layout."""
    import orbax.checkpoint as ocp

    manager = checkpoint_utils.create_checkpoint_manager(
        cp_path=path, cp_options=ocp.CheckpointManagerOptions(create=True)
    )
    manager.save(
        1,
        args=ocp.args.Composite(
            model=ocp.args.StandardSave({"embedding": {"embedding_table": state}}),
            optimizer=ocp.args.StandardSave({"step": jnp.zeros((), jnp.int32)}),
            embedding_spec=ocp.args.ProtoSave(proto),
        ),
    )
    manager.wait_until_finished()


def test_the_0_2_0_converter_carries_a_checkpoint_to_8_devices(tmp_path: Path) -> None:
    """0.2.0's `convert_cross_topology_checkpoint` (Python 3.12): tables and slots of a 4-device
    checkpoint restacked for 8 devices, each row where the new layout reads it."""
    checkpoint_utils = pytest.importorskip(
        "jax_tpu_embedding.sparsecore.lib.flax.nnx.checkpoint_utils"
    )
    import orbax.checkpoint as ocp

    old, _ = _layout(TABLES, 4, 2, stack=["user", "item"])
    new, new_features = _layout(TABLES, 8, 2, stack=["user", "item"])
    values, slots = _values(TABLES), _values(TABLES, seed=1)
    tables = table_stacking.stack_and_shard_feature_tables(values, old)
    accumulators = table_stacking.stack_and_shard_feature_tables(slots, old)
    state = {name: {"table": tables[name], "slot": (accumulators[name],)} for name in tables}
    _save_nnx_checkpoint(checkpoint_utils, tmp_path / "in", old, state)
    checkpoint_utils.convert_cross_topology_checkpoint(
        input_checkpoint_path=tmp_path / "in",
        output_checkpoint_path=tmp_path / "out",
        target_topology=checkpoint_utils.TargetTopology(8, 2),
        target_feature_specs=new_features,
    )
    manager = checkpoint_utils.create_checkpoint_manager(
        cp_path=tmp_path / "out", cp_options=ocp.CheckpointManagerOptions(read_only=True)
    )
    restored = manager.restore(
        1,
        args=ocp.args.Composite(
            model=ocp.args.StandardRestore(),
            embedding_spec=ocp.args.ProtoRestore(type(old)),
        ),
    )
    assert restored["embedding_spec"] == new
    converted = restored["model"]["embedding"]["embedding_table"]
    for key, original in (("table", values), ("slot", slots)):
        stacked = {
            name: jnp.asarray(entry[key][0] if key == "slot" else entry[key])
            for name, entry in converted.items()
        }
        assert {name: a.shape for name, a in stacked.items()} == {
            s.stack_name: (s.stack_vocab_size, s.stack_embedding_dim)
            for s in new.stacked_table_specs
        }
        back = table_stacking.unstack_and_unshard_stacked_tables(stacked, new)
        for name, array in original.items():
            np.testing.assert_array_equal(np.asarray(back[name]), np.asarray(array))


def test_the_0_2_0_converter_does_not_resize_a_table(tmp_path: Path) -> None:
    """docs/jax.md: the converter carries tables as they are; a target whose table is larger
    than the checkpoint's fails."""
    checkpoint_utils = pytest.importorskip(
        "jax_tpu_embedding.sparsecore.lib.flax.nnx.checkpoint_utils"
    )
    tables = [("user", 1000, 16)]
    old, _ = _layout(tables, 4, 2)
    _, grown = _layout([("user", 1500, 16)], 8, 2)
    stacked = table_stacking.stack_and_shard_feature_tables(_values(tables), old)
    state = {name: {"table": a, "slot": (a,)} for name, a in stacked.items()}
    _save_nnx_checkpoint(checkpoint_utils, tmp_path / "in", old, state)
    with pytest.raises(TypeError, match="cannot reshape"):
        checkpoint_utils.convert_cross_topology_checkpoint(
            input_checkpoint_path=tmp_path / "in",
            output_checkpoint_path=tmp_path / "out",
            target_topology=checkpoint_utils.TargetTopology(8, 2),
            target_feature_specs=grown,
        )
