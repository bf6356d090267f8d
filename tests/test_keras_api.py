"""tpuemb_cli.keras on stand-ins for Keras-RS's objects: the spec of a live layer is the spec
`spec_from_jax` / `spec_from_tf` give for what Keras-RS's conversions make of it, and the spec of
a saved model is the live layer's (the oracle suite checks both against keras-rs itself)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.keras_objects import (
    SGD,
    Adagrad,
    Adam,
    AdamW,
    DistributedEmbedding,
    FeatureConfig,
    Ftrl,
    Model,
    SparseCoreEmbeddingConfig,
    TableConfig,
    keras_jax,
    keras_tf,
)
from tpuemb_cli.jax import spec_from_jax
from tpuemb_cli.keras import lint_keras, spec_from_keras, specs_from_file, specs_from_keras
from tpuemb_cli.tf import spec_from_tf

DATA = Path(__file__).parent / "data" / "keras-core"


def _mixed() -> list[FeatureConfig]:
    a = TableConfig("a", 100, 8, optimizer=Ftrl(0.02, l1_regularization_strength=0.1))
    b = TableConfig("b", 200, 4, optimizer="adam", combiner="sum", max_ids_per_partition=32)
    c = TableConfig("c", 300, 4, optimizer=Adam(beta_1=0.8, epsilon=1e-6))
    d = TableConfig("d", 50, 2, optimizer=SGD(0.5), placement="default_device")
    tables = [a, b, c, d, b, a, c, b, a, b, c, a]
    return [FeatureConfig(f"f{i}", t, (64, 2), (64, t.embedding_dim)) for i, t in enumerate(tables)]


def test_the_jax_spec_is_spec_from_jax_of_keras_rs_conversion() -> None:
    # Twelve features in a list: the layer keys them "0".."11", and the conversion maps that dict
    # in sorted key order ("10" before "2"); the default_device table is not converted.
    features = _mixed()
    layer = DistributedEmbedding(features)
    ours = spec_from_keras(layer, global_device_count=2, num_sc_per_device=4)
    placed = {str(i): f for i, f in enumerate(features) if f.table.placement != "default_device"}
    # A layer built without SparseCores writes no table_stacking: it reloads with "auto".
    theirs = spec_from_jax(
        keras_jax(placed), global_device_count=2, num_sc_per_device=4, auto_stack=True
    )
    assert ours == theirs
    assert [f.name for f in ours.features][:3] == ["f0", "f1", "f10"]
    assert [t.name for t in ours.tables] == ["a", "b", "c"]


def test_two_tables_of_one_name_are_the_first_ones_for_jax() -> None:
    a, other_a = TableConfig("a", 100, 8, optimizer=SGD()), TableConfig("a", 999, 8)
    features = {
        "x": {
            "z": FeatureConfig("z", other_a, (16,), (16, 8)),
            "y": FeatureConfig("y", a, (16,), (16, 8)),
        },
        "w": FeatureConfig("w", TableConfig("b", 10, 4, optimizer=Adagrad()), (16, 3), (16, 4)),
    }
    ours = spec_from_keras(
        DistributedEmbedding(features), global_device_count=2, num_sc_per_device=4
    )
    flat = {"x.z": features["x"]["z"], "x.y": features["x"]["y"], "w": features["w"]}  # type: ignore[index]
    assert ours == spec_from_jax(
        keras_jax(flat), global_device_count=2, num_sc_per_device=4, auto_stack=True
    )
    assert [(t.name, t.vocabulary_size) for t in ours.tables] == [("b", 10), ("a", 100)]


def test_the_tensorflow_spec_is_spec_from_tf_of_keras_rs_conversion() -> None:
    shared = TableConfig("users", 1000, 16, optimizer=Adagrad(0.05))
    features = {
        "user": FeatureConfig("user", shared, (32, 1), (32, 16)),
        "friend": FeatureConfig("friend", shared, (32, 1), (32, 16)),
        "item": FeatureConfig(
            "item", TableConfig("items", 500, 8, optimizer=AdamW(clipvalue=0.5)), (32, 1), (32, 8)
        ),
        "tag": FeatureConfig("tag", TableConfig("tags", 64, 4, optimizer="sgd"), (32, 1), (32, 4)),
    }
    ours = spec_from_keras(
        DistributedEmbedding(features),
        backend="tensorflow",
        global_device_count=4,
        num_sc_per_device=4,
    )
    theirs = spec_from_tf(
        keras_tf(features, 4),
        num_hosts=1,
        cores_per_host=4,
        sparse_core_config=SparseCoreEmbeddingConfig(False, False),
        sparse_cores_per_chip=4,
    )
    assert ours == theirs
    assert ours.tables[1].optimizer.weight_decay_factor == pytest.approx(0.004)


def test_a_saved_model_gives_the_spec_of_its_live_layer() -> None:
    # clean.keras (tests/data/keras-core/make.py), rebuilt from stand-ins with the same objects.
    users = TableConfig("users", 1000, 16, optimizer=Adagrad(0.05))
    items = TableConfig("items", 500, 8, optimizer=Adam(0.001))
    tags = TableConfig("tags", 64, 4, optimizer="sgd")
    layer = DistributedEmbedding(
        {
            "user": FeatureConfig("user", users, (32, 1), (32, 16)),
            "friend": FeatureConfig("friend", users, (32, 1), (32, 16)),
            "item": FeatureConfig("item", items, (32, 1), (32, 8)),
            "tag": FeatureConfig("tag", tags, (32, 1), (32, 4)),
        }
    )
    model = Model("clean", [layer])
    for backend in ("jax", "tensorflow"):
        options = {"backend": backend, "global_device_count": 4, "num_sc_per_device": 4}
        saved = specs_from_file(DATA / "clean.keras", **options)  # type: ignore[arg-type]
        live = specs_from_keras(model, **options)  # type: ignore[arg-type]
        assert [path for path, _ in saved] == ["clean/distributed_embedding"]
        assert live == saved


def test_specs_from_file_reads_a_model_folders_config_json() -> None:
    [(path, spec)] = specs_from_file(DATA / "model" / "config.json", global_device_count=4)
    assert path == "mistakes/tower/distributed_embedding_1"
    # default_device's table is not on the SparseCores.
    assert [t.name for t in spec.tables] == ["genres", "items", "tags", "users"]


def test_a_file_that_is_no_keras_model_is_a_value_error(tmp_path: Path) -> None:
    path = tmp_path / "m.keras"
    path.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match=r"not a readable \.keras archive: it is not a zip"):
        specs_from_file(path)


def test_one_layer_is_asked_for_by_spec_from_keras() -> None:
    layer = DistributedEmbedding([FeatureConfig("f", TableConfig("t"))])
    with pytest.raises(ValueError, match="2 DistributedEmbedding layers"):
        spec_from_keras(Model("m", [layer, Model("inner", [layer])]))
    with pytest.raises(ValueError, match="backend must be one of jax, tensorflow"):
        spec_from_keras(layer, backend="torch")


def test_lint_keras_reports_at_the_layers_fields() -> None:
    table = TableConfig("users", optimizer=Adagrad(0.1, clipnorm=1.0))
    findings = lint_keras(
        DistributedEmbedding({"u": FeatureConfig("u", table, (100, 1), (100, 16))}),
        global_device_count=8,
        num_sc_per_device=4,
    )
    assert [(f.rule, f.field) for f in findings] == [
        ("TE691", "layers[0].features[0].input_shape[0]"),
        ("TE762", "layers[0].tables[0].optimizer.config.clipnorm"),
    ]
    assert findings[0].message.startswith(
        'in what Keras-RS hands jax-tpu-embedding (features[0].input_shape[0]): feature "u" '
        "has a batch of 100, which 8 devices x 4 SparseCores (32 feature slices) do not divide"
    )


def _three_sgd_tables() -> dict[str, FeatureConfig]:
    tables = [
        TableConfig(name, 100, 8, optimizer=SGD(0.1), placement="sparsecore")
        for name in ("users", "items", "tags")
    ]
    return {t.name: FeatureConfig(t.name, t, (16, 1), (16, 8)) for t in tables}


def test_an_explicit_stack_keeps_the_lists_order_and_the_librarys_name() -> None:
    # sparsecore_build calls stack_tables(["users", "items"]) without a stack name: the library
    # names it and lays its tables out in the list's order (not the features' sorted order).
    layer = DistributedEmbedding(_three_sgd_tables(), table_stacking=[["users", "items"]])
    spec = spec_from_keras(layer, global_device_count=4, num_sc_per_device=4)
    placed = {(t.name, t.jax.stack, t.jax.stack_position) for t in spec.tables if t.jax.stack}
    assert placed == {("users", "users_items", 0), ("items", "users_items", 1)}
    assert not spec.jax.auto_stack
    long_names = [["a" * 30, "b" * 30]]
    tables = [TableConfig(n, 10, 8, optimizer=SGD(0.1)) for n in long_names[0]]
    layer = DistributedEmbedding(
        {t.name: FeatureConfig(t.name, t, (16, 1), (16, 8)) for t in tables},
        table_stacking=long_names,
    )
    spec = spec_from_keras(layer, global_device_count=4, num_sc_per_device=4)
    assert spec.tables[0].jax.stack == "a" * 30 + "_" + "b" * 19 + "...5725d3f51f73"


def test_auto_and_none_stacking_and_the_stacks_limits() -> None:
    features = _three_sgd_tables()
    features["users"].table.max_ids_per_partition = 1024
    features["items"].table.max_unique_ids_per_partition = 512
    for stacking, auto in (("auto", True), (None, False)):
        layer = DistributedEmbedding(features, table_stacking=stacking)
        spec = spec_from_keras(layer, global_device_count=4, num_sc_per_device=4)
        assert spec.jax.auto_stack is auto
        # update_preprocessing_parameters: a stack of several takes its tables' largest limits.
        if auto:
            assert dict(spec.jax.stack_max_ids_per_partition) == {"items_tags_users": 1024}
            assert dict(spec.jax.stack_max_unique_ids_per_partition) == {"items_tags_users": 512}
        else:
            assert not spec.jax.stack_max_ids_per_partition


def test_a_tuple_stacking_reads_as_the_saved_list_and_is_flagged() -> None:
    live = DistributedEmbedding(_three_sgd_tables(), table_stacking=(("users", "items"),))
    saved = DistributedEmbedding(_three_sgd_tables(), table_stacking=[["users", "items"]])
    options = {"global_device_count": 4, "num_sc_per_device": 4}
    assert spec_from_keras(live, **options) == spec_from_keras(saved, **options)  # type: ignore[arg-type]
    names = {f.name for f in lint_keras(live, **options)}  # type: ignore[arg-type]
    assert "keras-ignored-table-stacking" in names
    assert "keras-ignored-table-stacking" not in {
        f.name
        for f in lint_keras(saved, **options)  # type: ignore[arg-type]
    }
