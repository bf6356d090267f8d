from typing import Any

from tests.keras_objects import DistributedEmbedding, FeatureConfig, TableConfig
from tpuemb_cli.keras import lint_keras


def _found(stacking: Any, backend: str = "jax") -> list[tuple[str, str, str]]:
    users, items = TableConfig("users", optimizer="sgd"), TableConfig("items", optimizer="sgd")
    small = TableConfig("small", optimizer="sgd", placement="default_device")
    layer = DistributedEmbedding(
        {
            "u": FeatureConfig("u", users),
            "i": FeatureConfig("i", items),
            "s": FeatureConfig("s", small),
        }
    )
    layer._table_stacking = stacking
    found = lint_keras(layer, backend=backend, global_device_count=4, num_sc_per_device=4)
    return [(f.field, f.message, f.fix) for f in found if f.rule == "TE766"]


def test_a_stack_of_a_table_not_on_the_sparsecores() -> None:
    assert _found([["users", "small"]]) == [
        (
            "layers[0].table_stacking.stacks.stacks[0].tables[1]",
            "layer 'distributed_embedding''s table_stacking stacks 'small', which is placed on "
            "'default_device' (the TensorCores): Keras-RS stacks only the SparseCore tables, and "
            "jax-tpu-embedding's stack_tables raises KeyError when the layer is built on the TPU",
            "name tables of the layer's SparseCore features ('items', 'users')",
        )
    ]


def test_a_table_stacked_twice() -> None:
    messages = [message for _, message, _ in _found([["users", "items"], ["users"]])]
    assert messages == [
        "layer 'distributed_embedding''s table_stacking stacks 'users' twice (also in stack 0): "
        "jax-tpu-embedding's stack_tables raises ValueError when the layer is built on the TPU"
    ]
    assert len(_found(["users", "users"])) == 1  # one list: one stack


def test_tensorflow_takes_auto_or_none() -> None:
    [(field, message, fix)] = _found([["users", "items"]], backend="tensorflow")
    assert field == "layers[0].table_stacking"
    assert "TensorFlow conversion refuses with ValueError" in message
    assert fix == "use 'auto' (TPUEmbeddingV2 then stacks the tables itself) or None"
    assert _found("auto", backend="tensorflow") == _found(None, backend="tensorflow") == []


def test_another_string() -> None:
    [(_, message, fix)] = _found("all")
    assert message == (
        "layer 'distributed_embedding''s table_stacking is 'all': the layer raises ValueError "
        "when it is built on the TPU (it takes 'auto', None or lists of table names)"
    )
    assert fix == "use 'auto'"


def test_what_the_layer_takes() -> None:
    assert _found("auto") == _found(None) == _found([["users", "items"]]) == []


def test_a_stack_of_a_table_no_feature_looks_up() -> None:
    [(_, message, _)] = _found([["users", "nowhere"]])
    assert message == (
        "layer 'distributed_embedding''s table_stacking stacks 'nowhere', which no feature on "
        "the SparseCores looks up: jax-tpu-embedding's stack_tables raises KeyError when the "
        "layer is built on the TPU"
    )


def test_an_empty_stack() -> None:
    # Keras-RS calls stack_tables(feature_specs, [], ...) for [[]]: max() of an empty sequence.
    assert _found([["users", "items"], []]) == [
        (
            "layers[0].table_stacking.stacks.stacks[1]",
            "layer 'distributed_embedding''s table_stacking has an empty stack (stack 1): "
            "jax-tpu-embedding's stack_tables raises ValueError (max() of an empty sequence) when "
            "the layer is built on the TPU",
            "leave the empty list out",
        )
    ]


def test_the_string_none_is_not_none() -> None:
    # keras-rs 0.4.0 raises for it on both backends (JAX: "Unsupported table stacking none";
    # TensorFlow: "must be 'auto' or None"); only None (JSON null) stacks nothing.
    for backend in ("jax", "tensorflow"):
        [(field, message, fix)] = _found("none", backend=backend)
        assert field == "layers[0].table_stacking"
        assert message.startswith(
            "layer 'distributed_embedding''s table_stacking is 'none': the layer raises "
            "ValueError when it is built on the TPU (it takes 'auto', None"
        )
        assert fix == "write None (JSON null), not a string, for no stacking"
        assert _found(None, backend=backend) == []


def test_none_alone_disables_the_specs_stacking() -> None:
    # The spec a layer converts to with the TensorFlow backend: None stacks nothing, the refused
    # string is not read as None.
    from tpuemb_cli.keras import spec_from_keras

    def disabled(stacking: Any) -> bool:
        table = TableConfig("users", optimizer="sgd")
        layer = DistributedEmbedding({"u": FeatureConfig("u", table)})
        layer._table_stacking = stacking
        spec = spec_from_keras(
            layer, backend="tensorflow", global_device_count=4, num_sc_per_device=4
        )
        return bool(spec.sparse_core.disable_table_stacking)

    assert disabled(None) and not disabled("none") and not disabled("auto")
