"""What the graph rules share: the TPU embedding ops and how to read their attributes."""

from __future__ import annotations

from google.protobuf.message import DecodeError

from tpuemb_cli.frontends.tensorflow.rules.lib.graph import Node
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

# Ops with a `config` attribute holding a serialized TPUEmbeddingConfiguration.
SEND_OPS = {
    "SendTPUEmbeddingGradients": ("N", "NN"),
    "XlaSendTPUEmbeddingGradients": ("NumTables", "NumLearningRateTags"),
}
RECV_OPS = {
    "RecvTPUEmbeddingActivations": "num_outputs",
    "XlaRecvTPUEmbeddingActivations": "num_tables",
}
CONFIG_OPS = (
    set(SEND_OPS)
    | set(RECV_OPS)
    | {
        "XlaRecvTPUEmbeddingDeduplicationData",
        "ConfigureTPUEmbedding",
    }
)


def config_of(node: Node) -> TPUEmbeddingConfiguration | None:
    """The node's `config` attribute, parsed; None when it is absent or malformed."""
    value = node.attr("config")
    if value is None or value.WhichOneof("value") != "s":
        return None
    config = TPUEmbeddingConfiguration()
    try:
        config.ParseFromString(value.s)
    except (DecodeError, RuntimeError, ValueError):
        return None
    return config


def int_attr(node: Node, name: str) -> int | None:
    value = node.attr(name)
    if value is None or value.WhichOneof("value") != "i":
        return None
    return int(value.i)


def distinct_tags(config: TPUEmbeddingConfiguration) -> int:
    return len(
        {
            table.optimization_parameters.learning_rate.dynamic.tag
            for table in config.table_descriptor
            if table.optimization_parameters.learning_rate.WhichOneof("learning_rate") == "dynamic"
        }
    )


def activations(config: TPUEmbeddingConfiguration) -> tuple[int, str]:
    """How many activations (and gradients) the config defines, as TensorFlow pairs them."""
    if config.feature_descriptor:
        return len(config.feature_descriptor), "features"
    return len(config.table_descriptor), "tables"


def activation_shapes(config: TPUEmbeddingConfiguration) -> list[list[int]]:
    """Each activation's (and gradient's) shape, as RecvTPUEmbeddingActivations infers it:
    the feature's input shape, its batch dimension times the SPMD cores per replica, then the
    table's dimension; without feature descriptors, [batch x num_features, dimension] per table.
    """
    tables = config.table_descriptor
    if not config.feature_descriptor:
        return [
            [config.batch_size_per_tensor_core * table.num_features, table.dimension]
            for table in tables
        ]
    per_replica = (
        config.spmd_sharding.num_cores_per_replica if config.spmd_sharding.enabled else 1
    ) or 1
    shapes: list[list[int]] = []
    for feature in config.feature_descriptor:
        if not 0 <= feature.table_id < len(tables):
            shapes.append([])
            continue
        shape = list(feature.input_shape)
        if shape:
            shape[0] *= per_replica
        shapes.append(shape + [tables[feature.table_id].dimension])
    return shapes
