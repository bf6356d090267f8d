from pathlib import Path

from tests.keras_objects import DistributedEmbedding, FeatureConfig, TableConfig
from tpuemb_cli.keras import lint_keras


def _findings(
    output_shape: tuple[int | None, ...], placement: str = "auto"
) -> list[tuple[str, str, str]]:
    table = TableConfig("users", embedding_dim=16, optimizer="sgd", placement=placement)
    layer = DistributedEmbedding({"u": FeatureConfig("u", table, (32, 1), output_shape)})
    return [
        (f.rule, f.field, f.message)
        for f in lint_keras(layer, global_device_count=4, num_sc_per_device=4)
    ]


def test_a_narrower_output_is_the_tables_width() -> None:
    assert _findings((32, 8)) == [
        (
            "TE761",
            "layers[0].features[0].output_shape[1]",
            "feature 'u' of layer 'distributed_embedding' declares an output of 8 values a "
            "sample, but table 'users' has embedding_dim 16: the layer returns (32, 16) while "
            "Keras builds the next layers for the declared shape",
        )
    ]


def test_on_the_tensorcores_too_and_once() -> None:
    # default_device: EmbedReduce of the table's width; on SparseCores TE690 gives way to it.
    # (TE769: the table's sgd, which a default_device table never uses.)
    assert [rule for rule, _, _ in _findings((32, 24), "default_device")] == ["TE761", "TE769"]
    assert [rule for rule, _, _ in _findings((32, 24))] == ["TE761"]


def test_the_tables_width_and_open_dimensions_pass() -> None:
    assert _findings((32, 16)) == []
    # Not this rule's: jax-tpu-embedding cannot prepare a batch of None (TE696 says so).
    assert [rule for rule, _, _ in _findings((None, 16))] == ["TE696"]


def _shape_findings(
    input_shape: tuple[int | None, ...], output_shape: tuple[int | None, ...]
) -> list[tuple[str, str, str]]:
    table = TableConfig("users", embedding_dim=16, optimizer="sgd", placement="default_device")
    layer = DistributedEmbedding({"u": FeatureConfig("u", table, input_shape, output_shape)})
    return [
        (f.rule, f.field, f.message)
        for f in lint_keras(layer, global_device_count=4, num_sc_per_device=4)
        if f.rule == "TE761"
    ]


def _declares(declared: str, returned: str, input_shape: str) -> str:
    return (
        f"feature 'u' of layer 'distributed_embedding' declares output_shape {declared}, but "
        f"the layer returns {returned} for its input_shape {input_shape} (one row of table "
        "'users', embedding_dim 16, a sample: the combiner reduces the last input dimension) "
        "while Keras builds the next layers for the declared shape"
    )


def test_a_batch_other_than_the_inputs() -> None:
    # keras-rs 0.4.0 on CPU: input (32, 1), declared (64, 16), returns (32, 16).
    assert _shape_findings((32, 1), (64, 16)) == [
        (
            "TE761",
            "layers[0].features[0].output_shape[0]",
            _declares("(64, 16)", "(32, 16)", "(32, 1)"),
        )
    ]


def test_a_sequence_declared_unreduced_and_a_deeper_input_declared_reduced() -> None:
    # Input (32, 10) returns (32, 16); input (32, 10, 1) returns (32, 10, 16).
    assert _shape_findings((32, 10), (32, 10, 16)) == [
        (
            "TE761",
            "layers[0].features[0].output_shape",
            _declares("(32, 10, 16)", "(32, 16)", "(32, 10)"),
        )
    ]
    assert _shape_findings((32, 10, 1), (32, 16)) == [
        (
            "TE761",
            "layers[0].features[0].output_shape",
            _declares("(32, 16)", "(32, 10, 16)", "(32, 10, 1)"),
        )
    ]


def test_a_declared_shape_of_rank_1() -> None:
    # keras-rs 0.4.0 on CPU: input (32, 1), declared (16,), returns (32, 16).
    assert _shape_findings((32, 1), (16,)) == [
        (
            "TE761",
            "layers[0].features[0].output_shape",
            _declares("(16,)", "(32, 16)", "(32, 1)"),
        )
    ]


def test_the_shapes_the_layer_returns_pass() -> None:
    # A rank-1 input is not reduced; an unknown dimension matches any.
    for input_shape, output_shape in [
        ((32, 10), (32, 16)),
        ((32, 10, 1), (32, 10, 16)),
        ((32,), (32, 16)),
        ((None, 1), (None, 16)),
        ((None, 1), (32, 16)),
    ]:
        assert _shape_findings(input_shape, output_shape) == [], (input_shape, output_shape)


def _tensorflow(
    input_shape: tuple[int, ...], output_shape: tuple[int, ...], accelerator: str
) -> list[str]:
    table = TableConfig("users", embedding_dim=16, optimizer="sgd")
    layer = DistributedEmbedding({"u": FeatureConfig("u", table, input_shape, output_shape)})
    found = lint_keras(
        layer,
        backend="tensorflow",
        global_device_count=4,
        num_sc_per_device=4 if accelerator == "v5p" else 0,
        accelerator=accelerator,
    )
    return [f.message for f in found if f.rule == "TE761"]


def test_on_the_tpu_embedding_engine_the_build_raises() -> None:
    # TPUEmbedding (v4) works the output out of the input and raises where they differ
    # (tests/test_tf_keras_saving_oracle.py: against its build under a stand-in TPUStrategy).
    [message] = _tensorflow((32, 1), (64, 16), "v4")
    assert message.endswith(
        "; TPUEmbedding's build raises ValueError (\"Inconsistent shape founded for input "
        'feature") when the layer is built on the TPU'
    )
    # A worked-out shape of rank 1 under a longer declared one is let through (ragged
    # sequences): TPUEmbedding then returns the declared shape (traced by the oracle).
    [message] = _tensorflow((32, 10), (32, 10, 16), "v4")
    assert "build raises" not in message
    assert "TPUEmbedding sizes the activations from the declared shape" in message


def test_on_sparsecores_the_activations_have_the_declared_shape() -> None:
    # TPUEmbeddingV2 sizes them from the declared shape (traced by the same oracle).
    [message] = _tensorflow((32, 1), (64, 16), "v5p")
    assert message == (
        "feature 'u' of layer 'distributed_embedding' declares output_shape (64, 16), but its "
        "input_shape (32, 1) gives (32, 16) (one row of table 'users', embedding_dim 16, a "
        "sample: the combiner reduces the last input dimension): TPUEmbeddingV2 sizes the "
        "activations from the declared shape, so the layer returns it for ids of another shape "
        "(and on CPU returns the input's)"
    )


def test_a_dimension_tpuemb_could_not_hold_is_not_quoted_as_zero(tmp_path: Path) -> None:
    # 10**12 overflows the mirror's field (TE005 says so); TE761 said "embedding_dim 0".
    from tests.keras_config_text import findings, model_text, table, write

    text = model_text([table("a", 64, 8)], {"a": 0})  # outputs (32, 8)
    path = write(tmp_path, text.replace('"embedding_dim": 8', '"embedding_dim": 1000000000000'))
    found = findings(path)
    assert "TE005" in {f["rule"] for f in found}
    assert not any(f["rule"] == "TE761" and "embedding_dim 0" in f["message"] for f in found)
