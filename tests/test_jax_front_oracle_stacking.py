"""TE676-TE679 and ``fail_on_excess_padding`` against jax-tpu-embedding itself, on CPU
(`make test-jax`; skipped where the library is not installed): an optimizer it cannot hash, the
settings its stacking drops, the padding it warns about or refuses, and output shapes its input
preprocessing and lookup disagree on (the lookup worked out from the ids, sample ids and gains
its preprocessing returns)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

jte = pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")

from jax_tpu_embedding.sparsecore.lib.nn import embedding_spec, table_stacking  # noqa: E402

from tests.jax_release import VERSION, as_010  # noqa: E402
from tpuemb_cli.frontends.jax.spec.stacking import JaxStackingError  # noqa: E402
from tpuemb_cli.jax import compile_jax, lint_jax  # noqa: E402

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


def _feature(name: str, table: Any, batch: int = 128) -> Any:
    return embedding_spec.FeatureSpec(
        name=name,
        table_spec=table,
        input_shape=(batch, 1),
        output_shape=(batch, table.embedding_dim),
    )


def _codes(features: Any, **options: Any) -> list[str]:
    found = lint_jax(features, global_device_count=DEVICES, num_sc_per_device=CORES, **options)
    return [finding.rule for finding in found]


def _stack(features: Any, how: str) -> None:
    """The library's stacking the test asks for: auto, one explicit stack of `a` or of both,
    or none."""
    if how == "auto":
        table_stacking.auto_stack_tables(features, DEVICES, CORES)
    elif how == "explicit":
        table_stacking.stack_tables(features, ["a"], DEVICES, CORES, stack_name="s")
    elif how == "explicit-both":
        table_stacking.stack_tables(features, ["a", "b"], DEVICES, CORES, stack_name="s")


OPTIONS: dict[str, dict[str, Any]] = {
    "auto": {"auto_stack": True},
    "explicit": {"stacks": {"s": ["a"]}},
    "explicit-both": {"stacks": {"s": ["a", "b"]}},
    "alone": {},
}


def _array_rate() -> Any:
    import jax.numpy as jnp

    return jnp.array(0.1)


@pytest.mark.parametrize("how", list(OPTIONS))
@pytest.mark.parametrize(
    "rate",
    [_array_rate, lambda: np.array(0.1), lambda: np.float32(0.1), lambda: 0.1],
    ids=["jax-array", "numpy-array", "numpy-float32", "float"],
)
def test_an_array_learning_rate_the_library_cannot_stack(rate: Any, how: str) -> None:
    def build() -> list[Any]:
        optimizer = embedding_spec.SGDOptimizerSpec(learning_rate=rate())
        return [
            _feature("fa", _table("a", optimizer=optimizer)),
            _feature("fb", _table("b", optimizer=optimizer)),
        ]

    features = build()
    try:
        _stack(features, how)
        jte.prepare_feature_specs_for_training(features, DEVICES, CORES)
        theirs = jte.create_proto_from_feature_specs(features, DEVICES, CORES)
    except TypeError as raised:
        assert "unhashable" in str(raised)
        theirs = None
    found = _codes(build(), **OPTIONS[how])
    assert ("TE676" in found) is (theirs is None), found
    if theirs is None:
        with pytest.raises(JaxStackingError, match="cannot hash"):
            compile_jax(
                build(), global_device_count=DEVICES, num_sc_per_device=CORES, **OPTIONS[how]
            )
    else:
        ours = compile_jax(
            build(), global_device_count=DEVICES, num_sc_per_device=CORES, **OPTIONS[how]
        )
        # compile_jax writes 0.1.0's proto; 0.2.0 writes three fields more (tests/jax_release).
        assert ours.SerializeToString(deterministic=True) == as_010(theirs).SerializeToString(
            deterministic=True
        )


@pytest.mark.parametrize("how", ["auto", "explicit", "alone"])
def test_the_settings_stacking_drops(how: str) -> None:
    def build() -> list[Any]:
        quantized = _table(
            "a",
            quantization_config=embedding_spec.QuantizationConfig(
                min_value=-1.0, max_value=1.0, num_buckets=256
            ),
            suggested_coo_buffer_size_per_device=4096,
        )
        # b is twice as wide: auto-stacking leaves a alone in a stack of its own.
        return [_feature("fa", quantized), _feature("fb", _table("b", embedding_dim=32))]

    features = build()
    _stack(features, how)
    jte.prepare_feature_specs_for_training(features, DEVICES, CORES)
    stacked = features[0].table_spec.stacked_table_spec
    kept = (stacked.quantization_config, stacked.suggested_coo_buffer_size_per_device)
    # Stacking drops the suggested buffer in both releases; 0.1.0 drops the quantization too,
    # 0.2.0 keeps it. tpuemb judges as 0.1.0 (its default; compile --jax-version 0.2.0 refuses
    # a quantized table), and its message names the release.
    dropped = how != "alone"
    assert (kept[1] is None) is dropped, kept
    assert (kept[0] is None) is (dropped and VERSION.startswith("0.1.")), kept
    expected = ["TE677", "TE677"] if dropped else []
    assert _codes(build(), **OPTIONS[how]) == expected
    # The objects as the library left them say the same.
    assert _codes(features) == expected


def _padding_features(dims: tuple[int, ...]) -> list[Any]:
    names = "abc"[: len(dims)]
    # The features use the last table first: the library lists padded sizes in that order.
    tables = [
        _table(name, embedding_dim=dim, vocabulary_size=500 + 100 * i)
        for i, (name, dim) in enumerate(zip(names, dims, strict=True))
    ]
    return [_feature(f"f{table.name}", table) for table in reversed(tables)]


PADDINGS = [(8, 20), (8, 20, 64), (8, 8), (1, 8), (9, 16), (16, 17)]


@pytest.mark.parametrize("dims", PADDINGS)
def test_the_padding_the_library_warns_about(
    dims: tuple[int, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    logged: list[str] = []
    monkeypatch.setattr(
        table_stacking.logging, "warning", lambda message, *args: logged.append(message % args)
    )
    names = list("abc"[: len(dims)])
    table_stacking.stack_tables(_padding_features(dims), names, DEVICES, CORES, stack_name="s")
    warned = [line for line in logged if "Excess padding detected for stacked table s" in line]
    found = lint_jax(
        _padding_features(dims),
        global_device_count=DEVICES,
        num_sc_per_device=CORES,
        stacks={"s": names},
    )
    ours = [finding for finding in found if finding.rule == "TE678"]
    assert len(ours) == len(warned) <= 1, (logged, found)
    if warned:
        excess = re.search(r"Excess padding: (\d+) values", warned[0])
        assert excess is not None
        assert f" {int(excess.group(1)):,} of its " in ours[0].message
        sizes = re.search(r"Padded sizes: dict_values\((\[[\d, ]+\])\)", warned[0])
        assert sizes is not None and f"(padded embedding dimensions {sizes.group(1)})" in (
            ours[0].message
        )


@pytest.mark.parametrize("dims", PADDINGS)
def test_fail_on_excess_padding(dims: tuple[int, ...]) -> None:
    names = list("abc"[: len(dims)])
    try:
        table_stacking.stack_tables(
            _padding_features(dims),
            names,
            DEVICES,
            CORES,
            stack_name="s",
            fail_on_excess_padding=True,
        )
        theirs = None
    except ValueError as raised:
        theirs = str(raised)
    options: dict[str, Any] = {"stacks": {"s": names}, "fail_on_excess_padding": True}
    found = lint_jax(
        _padding_features(dims), global_device_count=DEVICES, num_sc_per_device=CORES, **options
    )
    assert "TE678" not in [finding.rule for finding in found]  # an error now, or nothing
    refused = [finding for finding in found if finding.rule == "TE696"]
    assert len(refused) == (theirs is not None)
    if theirs is None:
        compile_jax(
            _padding_features(dims),
            global_device_count=DEVICES,
            num_sc_per_device=CORES,
            **options,
        )
        return
    excess = re.search(r"Excess padding: \d+ values\.", theirs)
    assert excess is not None and excess.group(0) in refused[0].message
    with pytest.raises(JaxStackingError) as ours:
        compile_jax(
            _padding_features(dims),
            global_device_count=DEVICES,
            num_sc_per_device=CORES,
            **options,
        )
    assert excess.group(0) in str(ours.value)
    # Only the stacks whose call passes it: another stack's call warns.
    assert "TE696" not in _codes(
        _padding_features(dims), stacks={"s": names}, fail_on_excess_padding=["other"]
    )


SENTINEL = 2**31 - 1  # the preprocessing's padding in its sample and embedding ids


def _lookup(features: list[Any], ids: list[Any], devices: int, cores: int) -> list[Any]:
    """Each feature's activations as the library returns them, on one host: its own input
    preprocessing; each stack's lookup worked out from the row pointers, sample ids, embedding
    ids and gains it returns (what the TPU kernel sums: a SparseCore's activation row `sample
    id` gets `gain` x row `embedding id` of shard `partition` of the stacked table); then its
    own unstacking (`_get_activation_for_feature`). A sample id past the activation's rows is
    dropped. Table `t` row i holds i + 1, table `u` row i 1000 + i, in every column."""
    import jax.numpy as jnp

    tables = {feature.table_spec.name: feature.table_spec for feature in features}
    values = {
        name: np.tile(
            np.arange(table.vocabulary_size, dtype=np.float32)[:, None]
            + (1 if name == "t" else 1000),
            (1, table.embedding_dim),
        )
        for name, table in tables.items()
    }
    shards = devices * cores
    stacked = table_stacking.stack_and_shard_tables(tables, values, shards)
    weights = [np.ones_like(batch, dtype=np.float32) for batch in ids]
    preprocessed, _ = jte.preprocess_sparse_dense_matmul_input(
        ids,
        weights,
        features,
        local_device_count=devices,
        global_device_count=devices,
        num_sc_per_device=cores,
    )
    matmul = preprocessed.sparse_dense_matmul_input
    activations = {}
    for name, spec in jte.get_stacked_table_specs(features).items():
        pointers = np.asarray(matmul.lhs_row_pointers[name]).reshape(shards, -1)
        samples = np.asarray(matmul.lhs_sample_ids[name]).reshape(shards, -1)
        embeddings = np.asarray(matmul.lhs_embedding_ids[name]).reshape(shards, -1)
        gains = np.asarray(matmul.lhs_gains[name]).reshape(shards, -1)
        rows = spec.total_sample_count // shards
        table = np.asarray(stacked[name]).reshape(shards, -1, spec.stack_embedding_dim)
        out = np.zeros((shards, rows, spec.stack_embedding_dim), np.float32)
        for core in range(shards):
            start = 0
            for partition in range(shards):
                end = int(pointers[core, partition])
                for i in range(start, end):
                    sample = samples[core, i]
                    if sample != SENTINEL and sample < rows:
                        out[core, sample] += gains[core, i] * table[partition][embeddings[core, i]]
                start = -(-end // 8) * 8
        activations[name] = jnp.asarray(out.reshape(shards * rows, -1))
    return [
        np.asarray(jte._get_activation_for_feature(feature, activations, devices, cores))
        for feature in features
    ]


def _expected(feature: Any, ids: Any, base: int) -> Any:
    """What a feature's declared output shape asks of its ids: each sample's ids summed, for
    `[batch, dim]`; each id's row, for a sequence output with a row a position (`[batch x
    positions, dim]`, `[batch, positions, dim]`); None for any other."""
    dim = feature.table_spec.embedding_dim
    rows = (ids + base).astype(np.float32)
    if tuple(feature.output_shape) == (ids.shape[0], dim):
        return np.repeat(rows.sum(axis=1)[:, None], dim, axis=1)
    if int(np.prod(feature.output_shape[:-1])) == ids.size:
        return np.repeat(rows.reshape(-1)[:, None], dim, axis=1).reshape(feature.output_shape)
    return None


# (input shape, output shape, ids' rows) of feature `f`; `g`, after it, is [8, 1] -> [8, 8].
SHAPES = [
    ((8, 1), (8, 8), 8),
    ((8, 3), (8, 8), 8),
    ((8, 3), (24, 8), 8),
    ((8, 3), (8, 3, 8), 8),
    ((24, 1), (8, 8), 24),
    ((24, 1), (8, 3, 8), 24),
    ((8, 1), (8, 1, 8), 8),
]


@pytest.mark.parametrize("stacked", [True, False], ids=["stacked", "alone"])
@pytest.mark.parametrize(("input_shape", "output_shape", "batch"), SHAPES)
def test_output_shapes_the_preprocessing_and_the_lookup_disagree_on(
    input_shape: tuple[int, ...], output_shape: tuple[int, ...], batch: int, stacked: bool
) -> None:
    devices, cores = 1, 2

    def build() -> list[Any]:
        t, u = (_table(name, vocabulary_size=64, embedding_dim=8) for name in "tu")
        f = embedding_spec.FeatureSpec(
            name="f", table_spec=t, input_shape=input_shape, output_shape=output_shape
        )
        return [f, _feature("g", u, batch=8)]

    features = build()
    if stacked:
        table_stacking.stack_tables(features, ["t", "u"], devices, cores, stack_name="s")
    jte.prepare_feature_specs_for_training(features, devices, cores)
    valency = input_shape[1]
    ids = [
        (np.arange(batch * valency, dtype=np.int32) % 64).reshape(batch, valency),
        ((100 + np.arange(8, dtype=np.int32)) % 64).reshape(8, 1),
    ]
    got = _lookup(features, ids, devices, cores)
    right = [
        expected is not None and got[i].shape == expected.shape and np.array_equal(got[i], expected)
        for i, expected in enumerate(
            _expected(feature, ids[i], 1 if i == 0 else 1000) for i, feature in enumerate(features)
        )
    ]
    found = lint_jax(
        build(),
        global_device_count=devices,
        num_sc_per_device=cores,
        stacks={"s": ["t", "u"]} if stacked else None,
    )
    mismatch = [finding for finding in found if finding.rule == "TE679"]
    # The library gets a feature wrong exactly where TE679 fires on f (g is always well made).
    assert (not all(right)) is bool(mismatch), (right, [finding.message for finding in found])
    assert [finding.path for finding in mismatch] in ([], [("features", 0, "output_shape")])


def test_the_librarys_own_proto_of_a_sequence_output_is_reported(tmp_path: Any) -> None:
    from click.testing import CliRunner
    from google.protobuf import text_format

    from tpuemb_cli.cli import main

    t, u = (_table(name, vocabulary_size=64, embedding_dim=8) for name in "tu")
    f = embedding_spec.FeatureSpec(name="f", table_spec=t, input_shape=(8, 3), output_shape=(24, 8))
    features = [f, _feature("g", u, batch=8)]
    table_stacking.stack_tables(features, ["t", "u"], 1, 2, stack_name="s")
    jte.prepare_feature_specs_for_training(features, 1, 2)
    path = tmp_path / "s.pbtxt"
    path.write_text(
        text_format.MessageToString(jte.create_proto_from_feature_specs(features, 1, 2))
    )
    for tpu in ([], ["--tpu", "v6e"]):
        result = CliRunner().invoke(main, ["check", "--format", "concise", *tpu, str(path)])
        assert result.exit_code == 1, result.output
        assert [line.split(" ")[1] for line in result.stdout.splitlines()[:-1]] == ["TE679"]
