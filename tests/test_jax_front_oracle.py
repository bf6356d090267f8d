"""`tpuemb_cli.jax` on jax-tpu-embedding's own objects, on CPU (`make test-jax`; skipped where the
library is not installed): the spec it reads from them, and each JAX front-end rule's verdict next
to what the library itself does with the same objects -- raises, or accepts what fails later."""

from __future__ import annotations

from typing import Any

import pytest

jte = pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")

from jax_tpu_embedding.sparsecore.lib.nn import embedding_spec, table_stacking  # noqa: E402

from tpuemb_cli.jax import lint_jax, spec_from_jax  # noqa: E402

DEVICES, CORES = 8, 4


def _initializer(key: Any, shape: Any, dtype: Any = None) -> Any:
    import jax.numpy as jnp

    return jnp.zeros(shape)


def _table(name: str, **settings: Any) -> Any:
    arguments: dict[str, Any] = {
        "vocabulary_size": 1000,
        "embedding_dim": 16,
        "initializer": _initializer,
        "optimizer": embedding_spec.SGDOptimizerSpec(learning_rate=0.1),
        "combiner": "sum",
        **settings,
    }
    return embedding_spec.TableSpec(name=name, **arguments)


def _feature(name: str, table: Any, batch: int = 128, dim: int | None = None) -> Any:
    return embedding_spec.FeatureSpec(
        name=name,
        table_spec=table,
        input_shape=(batch, 1),
        output_shape=(batch, table.embedding_dim if dim is None else dim),
    )


def _codes(features: Any, devices: int = DEVICES, cores: int = CORES, **options: Any) -> list[str]:
    found = lint_jax(features, global_device_count=devices, num_sc_per_device=cores, **options)
    return [finding.rule for finding in found]


def _prepare(features: Any, devices: int = DEVICES, cores: int = CORES) -> None:
    jte.prepare_feature_specs_for_training(features, devices, cores)


def test_the_spec_of_every_optimizer_the_library_has() -> None:
    optimizers = [
        getattr(embedding_spec, name)(learning_rate=0.1)
        for name in sorted(dir(embedding_spec))
        if name.endswith("OptimizerSpec") and name not in ("OptimizerSpec", "CustomOptimizerSpec")
    ]
    assert len(optimizers) >= 5
    features = [
        _feature(f"f{i}", _table(f"t{i}", optimizer=optimizer))
        for i, optimizer in enumerate(optimizers)
    ]
    spec = spec_from_jax(features, global_device_count=DEVICES, num_sc_per_device=CORES)
    for table, optimizer in zip(spec.tables, optimizers, strict=True):
        read = table.jax.optimizer
        assert read.type == type(optimizer).__name__
        assert read.learning_rate.constant == pytest.approx(0.1)
        # Every public number of the object, by name.
        numbers = {
            name: float(value)
            for name, value in vars(optimizer).items()
            if not name.startswith("_")
            and name != "learning_rate"
            and isinstance(value, (int, float, bool))
        }
        assert dict(read.settings) == pytest.approx(numbers)
    assert _codes(features) == []


def test_the_spec_of_tables_the_library_prepared_and_stacked() -> None:
    a, b, c = _table("a", max_ids_per_partition=64), _table("b"), _table("c", combiner="mean")
    features = [_feature("fa", a), _feature("fb", b), _feature("fa2", a, 64), _feature("fc", c)]
    table_stacking.stack_tables(features, ["a", "b"], DEVICES, CORES, stack_name="ab")
    _prepare(features)
    spec = spec_from_jax(features, global_device_count=DEVICES, num_sc_per_device=CORES)
    assert [(t.name, t.vocabulary_size, t.dim, t.combiner, t.jax.stack) for t in spec.tables] == [
        ("a", 1000, 16, "sum", "ab"),
        ("b", 1000, 16, "sum", "ab"),
        ("c", 1000, 16, "mean", ""),
    ]
    assert [(f.name, f.table, list(f.input_shape)) for f in spec.features] == [
        ("fa", "a", [128, 1]),
        ("fb", "b", [128, 1]),
        ("fa2", "a", [64, 1]),
        ("fc", "c", [128, 1]),
    ]
    # The library ignored a's own limit in the stack of two: TE693 says so.
    assert features[0].table_spec.stacked_table_spec.max_ids_per_partition == 256
    assert _codes(features) == ["TE693"]


def test_an_output_dimension_the_library_accepts_then_refuses() -> None:
    features = [_feature("f", _table("t"), dim=32)]
    _prepare(features)  # accepted
    with pytest.raises(ValueError, match="embedding dim in output shape cannot be more"):
        jte._get_activation_for_feature(features[0], {}, DEVICES, CORES)
    assert _codes(features) == ["TE690"]


def test_a_batch_the_library_accepts_and_the_lookup_refuses() -> None:
    # One device of 4 SparseCores: the per-device batch is the global one.
    features = [_feature("f", _table("t"), batch=10)]
    _prepare(features, 1, 4)  # accepted
    with pytest.raises(ValueError, match="input batch size must be divisible"):
        jte._verify_input_batch_size((10, 16), 4, name="f")
    assert _codes(features, 1, 4) == ["TE691"]
    jte._verify_input_batch_size((12, 16), 4, name="f")
    assert _codes([_feature("f", _table("t"), batch=12)], 1, 4) == []


@pytest.mark.parametrize(
    ("other", "message"),
    [
        ({"optimizer": embedding_spec.AdagradOptimizerSpec(learning_rate=0.1)}, "optimizers"),
        ({"optimizer": embedding_spec.SGDOptimizerSpec(learning_rate=0.2)}, "optimizers"),
        ({"combiner": "mean"}, "combiners"),
    ],
)
def test_a_stack_the_library_refuses(other: dict[str, Any], message: str) -> None:
    features = [_feature("fa", _table("a")), _feature("fb", _table("b", **other))]
    assert _codes(features, stacks={"ab": ["a", "b"]}) == ["TE692"]
    with pytest.raises(ValueError, match=f"have different {message}"):
        table_stacking.stack_tables(features, ["a", "b"], DEVICES, CORES, stack_name="ab")


def test_a_stack_the_library_accepts() -> None:
    features = [_feature("fa", _table("a")), _feature("fb", _table("b", vocabulary_size=7))]
    assert _codes(features, stacks={"ab": ["a", "b"]}) == []
    table_stacking.stack_tables(features, ["a", "b"], DEVICES, CORES, stack_name="ab")
    _prepare(features)
    assert _codes(features) == []


def test_a_table_limit_kept_alone_and_ignored_in_a_stack() -> None:
    alone = [_feature("fa", _table("a", max_ids_per_partition=1024))]
    _prepare(alone)
    assert alone[0].table_spec.stacked_table_spec.max_ids_per_partition == 1024
    assert _codes(alone) == []


def test_zero_sizes_the_library_accepts() -> None:
    features = [_feature("f", _table("t", vocabulary_size=0, max_ids_per_partition=0))]
    _prepare(features)  # accepted; the C++ preprocessing would abort the process later
    assert _codes(features) == ["TE694", "TE694"]


def test_two_features_of_one_name_the_library_accepts_then_refuses() -> None:
    features = [_feature("ids", _table("a")), _feature("ids", _table("b"))]
    _prepare(features)  # accepted
    with pytest.raises(ValueError, match="Feature spec ids is already defined"):
        jte.get_stacked_table_specs(features)
    assert _codes(features) == ["TE695"]


@pytest.mark.parametrize("batch", [-32, 0])
def test_a_batch_below_one_the_library_accepts_and_writes(batch: int) -> None:
    a, b = _table("a"), _table("b")
    features = [_feature("fa", a, batch=batch), _feature("fb", b, batch=32)]
    table_stacking.auto_stack_tables(features, 1, CORES)
    _prepare(features, 1, CORES)  # accepted
    proto = jte.create_proto_from_feature_specs(features, 1, CORES)  # and written
    (stack,) = proto.stacked_table_specs
    # The stack's samples are the sum, negative or not; the second feature's rows start at -32.
    assert stack.total_sample_count == batch + 32
    assert stack.table_specs[1].feature_specs[0].row_offset == batch
    assert [(code, path) for code, path in _paths(features, 1)] == [
        ("TE694", ("features", 0, "input_shape", 0)),
        ("TE694", ("features", 0, "output_shape", 0)),
    ]


def _paths(features: Any, devices: int) -> list[tuple[str, Any]]:
    found = lint_jax(features, global_device_count=devices, num_sc_per_device=CORES)
    return [(finding.rule, finding.path) for finding in found]


def _clashing(pair_first: bool) -> list[Any]:
    # Auto-stacking makes "a_b" of a and b, and "a_b" of table a_b alone (its width differs).
    pair = [_feature("f1", _table("a")), _feature("f2", _table("b"))]
    alone = [_feature("f3", _table("a_b", embedding_dim=8))]
    return pair + alone if pair_first else alone + pair


def test_two_auto_stacks_of_one_name_the_library_refuses_when_the_pair_comes_first() -> None:
    features = _clashing(pair_first=True)
    (finding,) = lint_jax(features, global_device_count=1, num_sc_per_device=CORES, auto_stack=True)
    with pytest.raises(ValueError) as raised:
        table_stacking.auto_stack_tables(features, 1, CORES)
    assert finding.rule == "TE696"
    assert f'auto_stack_tables raises ValueError ("{raised.value}")' in finding.message


def test_two_auto_stacks_of_one_name_the_library_merges_when_the_table_alone_comes_first() -> None:
    features = _clashing(pair_first=False)
    (finding,) = lint_jax(features, global_device_count=1, num_sc_per_device=CORES, auto_stack=True)
    table_stacking.auto_stack_tables(features, 1, CORES)  # accepted
    _prepare(features, 1, CORES)
    (stack,) = jte.create_proto_from_feature_specs(features, 1, CORES).stacked_table_specs
    # One stack of the first one's size (a_b alone) holding all three tables.
    assert [table.table_name for table in stack.table_specs] == ["a_b", "a", "b"]
    assert stack.stack_vocab_size == stack.table_specs[0].padded_vocab_size
    assert finding.rule == "TE696"
    assert finding.message.endswith(
        'the first is table "a_b" alone, which stack_tables does not count as stacked: '
        "auto_stack_tables accepts both, and create_proto_from_feature_specs merges them into one "
        "stack \"a_b\" of the first one's size, the later tables' rows outside it"
    )


@pytest.mark.parametrize(
    ("b_settings", "what"),
    [
        ({"optimizer": embedding_spec.AdagradOptimizerSpec(learning_rate=0.1)}, "optimizers"),
        ({"combiner": "mean"}, "combiners"),
    ],
)
def test_compile_jax_refuses_an_explicit_stack_the_library_refuses(
    b_settings: dict[str, Any], what: str
) -> None:
    """stack_tables raises for tables of different optimizers or combiners in one stack: so does
    compile_jax, with the library's message (it returned a proto); lint_jax says TE692."""
    from tpuemb_cli.frontends.jax.spec.stacking import JaxStackingError
    from tpuemb_cli.jax import compile_jax

    def build() -> list[Any]:
        return [_feature("fa", _table("a")), _feature("fb", _table("b", **b_settings))]

    with pytest.raises(ValueError) as theirs:
        table_stacking.stack_tables(build(), ["a", "b"], DEVICES, CORES, stack_name="s")
    with pytest.raises(JaxStackingError) as ours:
        compile_jax(
            build(), global_device_count=DEVICES, num_sc_per_device=CORES, stacks={"s": ["a", "b"]}
        )
    assert (
        str(ours.value)
        == str(theirs.value)
        == f"Tables ['a', 'b'] in group s have different {what}."
    )
    assert _codes(build(), stacks={"s": ["a", "b"]}) == ["TE692"]
    # Auto-stacking keeps them apart (its groups are keyed by both): a proto, as the library's.
    compile_jax(build(), global_device_count=DEVICES, num_sc_per_device=CORES, auto_stack=True)
