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
