"""`spec_from_jax` on FeatureSpecs jax-tpu-embedding already stacked and prepared, on CPU (`make
test-jax`; skipped where the library is not installed): the spec compiles to the library's own
`create_proto_from_feature_specs` byte for byte, its rules see the stacks' limits, and what one spec
cannot say is refused by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

jte = pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")

from jax_tpu_embedding.sparsecore.lib.nn import embedding_spec, table_stacking  # noqa: E402

from tpuemb_cli.frontends.jax.spec.versions import VERSIONS  # noqa: E402
from tpuemb_cli.jax import (  # noqa: E402
    PreparedSpecError,
    compile_jax,
    lint_jax,
    spec_from_jax,
)

from .jax_release import VERSION  # noqa: E402

# The release installed, whose proto compile writes when asked for it (0.2.0 records more).
RELEASE = VERSION if VERSION in VERSIONS else VERSIONS[-1]


def _initializer(key: Any, shape: Any, dtype: Any = None) -> Any:
    import jax.numpy as jnp

    return jnp.zeros(shape)


def _table(name: str, vocabulary: int, dim: int, **settings: Any) -> Any:
    return embedding_spec.TableSpec(
        name=name,
        vocabulary_size=vocabulary,
        embedding_dim=dim,
        initializer=_initializer,
        optimizer=embedding_spec.SGDOptimizerSpec(learning_rate=0.1),
        combiner="sum",
        **settings,
    )


def _features() -> list[Any]:
    """Fresh objects: a has a limit of its own and two features, d is big enough to be split
    off by auto-stacking's activation limit on few SparseCores."""
    a = _table("a", 1000, 16, max_ids_per_partition=64)
    b, c, d = _table("b", 500, 16), _table("c", 300, 8), _table("d", 77, 16)
    return [
        {"x": _feature("fa", a), "w": _feature("fb", b)},
        _feature("fa2", a, 64),
        _feature("fc", c),
        _feature("fd", d, 256),
    ]


def _feature(name: str, table: Any, batch: int = 128) -> Any:
    return embedding_spec.FeatureSpec(
        name=name,
        table_spec=table,
        input_shape=(batch, 1),
        output_shape=(batch, table.embedding_dim),
    )


def _limit(value: int) -> Callable[[str, int], int]:
    return lambda name, samples: value


def _stack_twice(features: Any, devices: int, cores: int) -> None:
    for names in (["a", "d"], ["b", "c"]):
        table_stacking.stack_tables(features, names, devices, cores, rotation=0)


# How the script stacks its tables: with the library on the objects, and as the same request to
# spec_from_jax on fresh ones.
STACKINGS: dict[str, tuple[Callable[[Any, int, int], None], dict[str, Any]]] = {
    "prepared only": (lambda features, devices, cores: None, {}),
    "auto": (
        lambda features, devices, cores: table_stacking.auto_stack_tables(features, devices, cores),
        {"auto_stack": True},
    ),
    "auto, rotation 1, limits": (
        lambda features, devices, cores: table_stacking.auto_stack_tables(
            features,
            devices,
            cores,
            rotation=1,
            stack_to_max_ids_per_partition=_limit(1024),
            stack_to_max_unique_ids_per_partition=_limit(8),
        ),
        {"auto_stack": True, "rotation": 1, "limits": (1024, 8)},
    ),
    "explicit": (
        lambda features, devices, cores: table_stacking.stack_tables(
            features, ["b", "a", "d"], devices, cores, stack_name="bad"
        ),
        {"stacks": {"bad": ["b", "a", "d"]}},
    ),
    "explicit, rotation 3, limits": (
        lambda features, devices, cores: table_stacking.stack_tables(
            features,
            ["a", "b", "c", "d"],
            devices,
            cores,
            stack_name="all",
            rotation=3,
            stack_to_max_ids_per_partition=_limit(2),
            stack_to_max_unique_ids_per_partition=_limit(1),
        ),
        {"stacks": {"all": ["a", "b", "c", "d"]}, "rotation": 3, "limits": (2, 1)},
    ),
    "two explicit stacks, rotation 0": (
        lambda features, devices, cores: _stack_twice(features, devices, cores),
        {"stacks": {"a_d": ["a", "d"], "b_c": ["b", "c"]}, "rotation": 0},
    ),
}


def _asked(features: Any, devices: int, cores: int, options: dict[str, Any]) -> dict[str, Any]:
    """spec_from_jax's arguments for the same stacking, asked for instead of done."""
    asked = {key: value for key, value in options.items() if key != "limits"}
    if "limits" in options:
        made = {
            feature.table_spec.stacked_table_spec.stack_name
            for feature in jte.jax.tree.leaves(features)
        }
        asked["stack_limits"] = dict.fromkeys(made, options["limits"])
    return {"global_device_count": devices, "num_sc_per_device": cores, **asked}


@pytest.mark.slow
@pytest.mark.parametrize(("devices", "cores"), [(1, 2), (4, 2), (2, 4), (8, 4)])
@pytest.mark.parametrize("stacking", STACKINGS)
def test_the_spec_of_stacked_objects_compiles_to_the_librarys_proto(
    stacking: str, devices: int, cores: int
) -> None:
    stack, options = STACKINGS[stacking]
    features = _features()
    stack(features, devices, cores)
    jte.prepare_feature_specs_for_training(features, devices, cores)
    theirs = jte.create_proto_from_feature_specs(features, devices, cores)
    ours = compile_jax(
        features, global_device_count=devices, num_sc_per_device=cores, version=RELEASE
    )
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )
    # The rules see what the same stacking asked of fresh objects sees, where it sees it (a
    # message may say where a limit comes from: the stack, or the library's default).
    asked = _asked(features, devices, cores, options)
    done = lint_jax(features, global_device_count=devices, num_sc_per_device=cores)
    planned = lint_jax(_features(), **asked)
    assert [(f.rule, f.path) for f in done] == [(f.rule, f.path) for f in planned]
    if "limits" in options:
        spec = spec_from_jax(features, global_device_count=devices, num_sc_per_device=cores)
        several = [
            stack.stack_name for stack in theirs.stacked_table_specs if len(stack.table_specs) > 1
        ]
        assert several
        assert {
            name: spec.jax.stack_max_ids_per_partition[name] for name in several
        } == dict.fromkeys(several, options["limits"][0])


def test_the_limits_update_preprocessing_parameters_sets_are_the_ones_read() -> None:
    devices, cores = 4, 2
    features = _features()
    table_stacking.stack_tables(features, ["a", "b"], devices, cores, stack_name="ab")
    jte.prepare_feature_specs_for_training(features, devices, cores)
    stats = jte.SparseDenseMatmulInputStats(
        max_ids_per_partition={"ab": [40, 3000], "c": [1]},
        max_unique_ids_per_partition={"ab": [2], "c": [1]},
    )
    jte.update_preprocessing_parameters(features, stats, cores)
    spec = spec_from_jax(features, global_device_count=devices, num_sc_per_device=cores)
    assert dict(spec.jax.stack_max_ids_per_partition) == {"ab": 3000}
    assert dict(spec.jax.stack_max_unique_ids_per_partition) == {"ab": 2}
    # c is a stack of its own: its table's limits are the stack's now.
    c = next(table for table in spec.tables if table.name == "c")
    assert (c.jax.max_ids_per_partition, c.jax.max_unique_ids_per_partition) == (1, 1)
    theirs = jte.create_proto_from_feature_specs(features, devices, cores)
    ours = compile_jax(
        features, global_device_count=devices, num_sc_per_device=cores, version=RELEASE
    )
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )


def test_stacks_made_with_two_rotations_are_refused() -> None:
    devices, cores = 4, 2
    features = _features()
    table_stacking.stack_tables(features, ["a", "b"], devices, cores, rotation=1)
    table_stacking.stack_tables(features, ["c", "d"], devices, cores, rotation=2)
    jte.prepare_feature_specs_for_training(features, devices, cores)
    with pytest.raises(PreparedSpecError, match=r"different rotations, 1 \(stack \"a_b\"\), 2"):
        spec_from_jax(features, global_device_count=devices, num_sc_per_device=cores)


def test_tables_stacked_for_another_device_count_are_refused() -> None:
    features = _features()
    table_stacking.stack_tables(features, ["a", "b"], 4, 2, stack_name="ab")
    jte.prepare_feature_specs_for_training(features, 4, 2)
    with pytest.raises(
        PreparedSpecError,
        match=r'feature "fa" \(table "a"\): the library stacked it with its row offset in a '
        r"shard 0, tpuemb lays it out with|its padded vocabulary 1024, tpuemb lays it out with "
        r"1280|row offset in a shard 128, tpuemb lays it out with 64",
    ):
        spec_from_jax(features, global_device_count=8, num_sc_per_device=2)


def test_lint_sees_a_stack_limit_the_library_set_after_stacking() -> None:
    devices, cores = 4, 2
    features = _features()
    table_stacking.stack_tables(features, ["a", "b"], devices, cores, stack_name="ab")
    jte.prepare_feature_specs_for_training(features, devices, cores)
    stats = jte.SparseDenseMatmulInputStats(
        max_ids_per_partition={"ab": [0]}, max_unique_ids_per_partition={"ab": [0]}
    )
    jte.update_preprocessing_parameters(features, stats, cores)
    assert features[0]["x"].table_spec.stacked_table_spec.max_ids_per_partition == 0
    found = lint_jax(features, global_device_count=devices, num_sc_per_device=cores)
    assert [(f.rule, f.path) for f in found if f.rule == "TE694"] == [
        ("TE694", ("jax", "stack_max_ids_per_partition", "ab")),
        ("TE694", ("jax", "stack_max_unique_ids_per_partition", "ab")),
    ]


def test_tables_stacked_and_not_yet_prepared_compile_to_what_prepare_then_writes() -> None:
    devices, cores = 2, 4
    features = _features()
    table_stacking.stack_tables(features, ["a", "d"], devices, cores, rotation=5)
    ours = compile_jax(
        features, global_device_count=devices, num_sc_per_device=cores, version=RELEASE
    )
    jte.prepare_feature_specs_for_training(features, devices, cores)
    theirs = jte.create_proto_from_feature_specs(features, devices, cores)
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )
    (stack,) = [stack for stack in ours.stacked_table_specs if stack.stack_name == "a_d"]
    assert [table.shard_rotation for table in stack.table_specs] == [0, 5]


def _two_features_of_one_table() -> list[Any]:
    """b before a: flatten order and name order disagree on their row offsets."""
    table = _table("t", 1000, 32)
    return [_feature("b", table, 64), _feature("a", table, 64)]


ONE_TABLE_STACKINGS: dict[str, Callable[[Any], None]] = {
    "stack_tables": lambda features: table_stacking.stack_tables(features, ["t"], 4, 2),
    "auto_stack_tables": lambda features: table_stacking.auto_stack_tables(features, 4, 2),
}


@pytest.mark.parametrize("stacking", ONE_TABLE_STACKINGS)
def test_a_table_stacked_alone_under_its_own_name_keeps_its_flatten_order(stacking: str) -> None:
    # The stack's name is the table's, as prepare_feature_specs_for_training names a table it
    # leaves alone; the features' row offsets say the library stacked it.
    features = _two_features_of_one_table()
    ONE_TABLE_STACKINGS[stacking](features)
    jte.prepare_feature_specs_for_training(features, 4, 2)
    theirs = jte.create_proto_from_feature_specs(features, 4, 2)
    ours = compile_jax(features, global_device_count=4, num_sc_per_device=2, version=RELEASE)
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )
    assert lint_jax(features, global_device_count=4, num_sc_per_device=2) == []


def test_a_table_prepared_alone_keeps_its_features_in_name_order() -> None:
    features = _two_features_of_one_table()
    jte.prepare_feature_specs_for_training(features, 4, 2)
    spec = spec_from_jax(features, global_device_count=4, num_sc_per_device=2)
    assert spec.tables[0].jax.stack == ""
    theirs = jte.create_proto_from_feature_specs(features, 4, 2)
    ours = compile_jax(features, global_device_count=4, num_sc_per_device=2, version=RELEASE)
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )


@pytest.mark.parametrize("name", ["a", "b"])
def test_a_stack_named_after_one_of_its_tables_holds_them_all(name: str) -> None:
    a, b, c = _table("a", 1000, 32), _table("b", 500, 32), _table("c", 77, 32)
    features = [_feature("fa", a), _feature("fb", b), _feature("fc", c)]
    table_stacking.stack_tables(features, ["a", "b"], 4, 2, stack_name=name)
    assert lint_jax(features, global_device_count=4, num_sc_per_device=2) == []
    spec = spec_from_jax(features, global_device_count=4, num_sc_per_device=2)
    assert [table.jax.stack for table in spec.tables] == [name, name, ""]
    jte.prepare_feature_specs_for_training(features, 4, 2)
    theirs = jte.create_proto_from_feature_specs(features, 4, 2)
    ours = compile_jax(features, global_device_count=4, num_sc_per_device=2, version=RELEASE)
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )


def _three_tables() -> list[Any]:
    """Three tables of one dimension whose activations (1024 samples) fill 65,536 bytes together
    on 4x2 SparseCores, and more than 4,096 each."""
    a, b, c = _table("a", 1000, 32), _table("b", 500, 32), _table("c", 77, 32)
    return [_feature("fa", a, 1024), _feature("fb", b, 1024), _feature("fc", c, 1024)]


@pytest.mark.parametrize("limit", [None, 2**20, 65536, 4096])
def test_auto_stackings_activation_limit_splits_and_is_recorded(limit: int | None) -> None:
    # Both releases' auto_stack_tables take the limit; 0.2.0 records it in each stack it makes.
    features = _three_tables()
    given = {} if limit is None else {"activation_mem_bytes_limit": limit}  # 0.1.0: no None
    table_stacking.auto_stack_tables(features, 4, 2, **given)
    jte.prepare_feature_specs_for_training(features, 4, 2)
    theirs = jte.create_proto_from_feature_specs(features, 4, 2).SerializeToString(
        deterministic=True
    )
    asked: dict[str, Any] = {"global_device_count": 4, "num_sc_per_device": 2, "version": RELEASE}
    fresh = compile_jax(_three_tables(), auto_stack=True, activation_mem_bytes_limit=limit, **asked)
    assert fresh.SerializeToString(deterministic=True) == theirs
    assert compile_jax(features, **asked).SerializeToString(deterministic=True) == theirs
    if limit == 4096:
        assert [stack.stack_name for stack in fresh.stacked_table_specs] == ["a", "b", "c"]


@pytest.mark.skipif(
    "activation_mem_bytes_limit" not in table_stacking.stack_tables.__code__.co_varnames,
    reason="0.1.0's stack_tables takes no activation limit",
)
def test_a_stacks_own_activation_limit_is_read_and_written() -> None:
    features = _three_tables()
    table_stacking.stack_tables(features, ["a", "b"], 4, 2, activation_mem_bytes_limit=1_000_000)
    spec = spec_from_jax(features, global_device_count=4, num_sc_per_device=2)
    assert dict(spec.jax.stack_activation_mem_bytes_limit) == {"a_b": 1_000_000}
    jte.prepare_feature_specs_for_training(features, 4, 2)
    theirs = jte.create_proto_from_feature_specs(features, 4, 2)
    ours = compile_jax(features, global_device_count=4, num_sc_per_device=2, version=RELEASE)
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )
    assert [s.activation_mem_bytes_limit for s in ours.stacked_table_specs] == [1_000_000, 2**21]


@pytest.mark.slow  # a Python process of its own, which the library aborts: seconds
@pytest.mark.parametrize(("suggested", "aborts"), [(10**6, True), (4097, True), (4096, False)])
def test_the_library_aborts_where_te698_says(suggested: int, aborts: bool) -> None:
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        f"""
        import numpy as np
        from jax_tpu_embedding.sparsecore.lib.nn import embedding, embedding_spec as es
        table = es.TableSpec(
            name="c", vocabulary_size=77, embedding_dim=8, initializer=lambda *a, **k: None,
            optimizer=es.SGDOptimizerSpec(0.1), combiner="sum",
            suggested_coo_buffer_size_per_device={suggested},
        )
        feature = es.FeatureSpec(
            name="fc", table_spec=table, input_shape=(64, 1), output_shape=(64, 8)
        )
        embedding.prepare_feature_specs_for_training([feature], 4, 2)
        ids = np.arange(64, dtype=np.int32).reshape(64, 1)
        weights = np.ones((64, 1), dtype=np.float32)
        embedding.preprocess_sparse_dense_matmul_input(
            [ids], [weights], [feature], local_device_count=4, global_device_count=4,
            num_sc_per_device=2,
        )
        print("preprocessed")
        """
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    theirs = run.returncode != 0 and "suggested_value <= theoretical_max" in run.stderr
    assert theirs is aborts, run.stderr[-2000:]
    if not aborts:
        assert run.returncode == 0 and "preprocessed" in run.stdout, run.stderr[-2000:]
    features = [_feature("fc", _table("c", 77, 8, suggested_coo_buffer_size_per_device=suggested))]
    found = lint_jax(features, global_device_count=4, num_sc_per_device=2)
    assert ("TE698" in {finding.rule for finding in found}) is aborts
