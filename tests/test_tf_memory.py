"""The memory model against TensorFlow's own shape functions: for every algorithm of
OptimizationParameters, every gradient-accumulation status, both sharding strategies, several shard
counts and vocabularies that do not divide evenly, the shape of every state array of every shard
that ``RetrieveAllTPUEmbeddingParameters`` infers on CPU is the one tpuemb computes -- and where
TensorFlow refuses a config, tpuemb does too. Needs TensorFlow (`make test-tf`); skipped without
it."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from tpuemb_cli import lint_string
from tpuemb_cli.model.findings import Severity
from tpuemb_cli.model.memory import (
    MAX_STATE_ARRAYS,
    NotAllocated,
    model,
    rows_per_shard,
    state_arrays,
)
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

tf = pytest.importorskip("tensorflow")

from tensorflow.core.protobuf.tpu import (  # noqa: E402
    optimization_parameters_pb2 as tf_params,
)
from tensorflow.core.protobuf.tpu import (  # noqa: E402
    tpu_embedding_configuration_pb2 as tf_config,
)
from tensorflow.python.framework import op_def_library  # noqa: E402

ALGORITHMS = [
    field.name
    for field in tf_params.OptimizationParameters.DESCRIPTOR.oneofs_by_name["parameters"].fields
]
# A user-defined program's slots come from its host program shape: (inputs, outputs).
PROGRAMS = [(2, 1), (3, 2), (4, 2), (5, 4), (9, 8)]
STATUSES = [0, 1, 2]  # UNSPECIFIED, ENABLED, DISABLED
STRATEGIES = [0, 1]  # DIV_DEFAULT, MOD
SHARDS = [1, 2, 3, 7, 8]
VOCABULARIES = [8, 13, 1001, 100_003]  # none divisible by 3 or 7; 13 and 1001 not by 2 or 8
DIMENSION = 5


def _program(module: Any, inputs: int, outputs: int) -> None:
    """Fills TensorFlow's HloModuleProto with a host program shape of ``inputs`` parameters and a
    result tuple of ``outputs``."""
    shape = module.host_program_shape
    for _ in range(inputs):
        shape.parameters.add().dimensions.append(DIMENSION)
    for _ in range(outputs):
        shape.result.tuple_shapes.add().dimensions.append(DIMENSION)


def _fill_program(params: Any, inputs: int, outputs: int) -> None:
    _program(params.user_defined_program.program, inputs, outputs)


def _fill(params: Any, algorithm: str) -> None:
    getattr(params, algorithm).SetInParent()


def _optimizers() -> list[tuple[str, Any]]:
    """(label, a function that fills a TensorFlow OptimizationParameters) for every algorithm."""
    found: list[tuple[str, Any]] = []
    for algorithm in ALGORITHMS:
        if algorithm == "user_defined_program":
            for inputs, outputs in PROGRAMS:
                label = f"{algorithm}({inputs}->{outputs})"
                found.append((label, partial(_fill_program, inputs=inputs, outputs=outputs)))
        else:
            found.append((algorithm, partial(_fill, algorithm=algorithm)))
    return found


def _shapes(config: Any, shards: int, shard: int) -> list[list[list[int]]] | str:
    """Per table, the 8 output shapes TensorFlow infers; or its error message."""
    graph = tf.Graph()
    with graph.as_default():
        try:
            _, _, op, _ = op_def_library._apply_op_helper(
                "RetrieveAllTPUEmbeddingParameters",
                NumTables=len(config.table_descriptor),
                config=config.SerializeToString(),
                num_shards=shards,
                shard_id=shard,
            )
        except (ValueError, tf.errors.OpError) as error:
            return str(error)
    count = len(config.table_descriptor)
    return [
        [op.outputs[k * count + t].shape.as_list() for k in range(MAX_STATE_ARRAYS)]
        for t in range(count)
    ]


def _expected(ours: TPUEmbeddingConfiguration, index: int, shards: int, shard: int) -> Any:
    table = ours.table_descriptor[index]
    arrays = state_arrays(table.optimization_parameters)
    rows = rows_per_shard(table.vocabulary_size, shard, shards)
    return [[rows, table.dimension] if k < len(arrays) else [0, 0] for k in range(MAX_STATE_ARRAYS)]


def _config(status: int, strategy: int, tables: list[tuple[str, Any, int]]) -> Any:
    config = tf_config.TPUEmbeddingConfiguration(
        mode=tf_config.TPUEmbeddingConfiguration.TRAINING, sharding_strategy=strategy
    )
    for label, fill, vocabulary in tables:
        table = config.table_descriptor.add(
            name=f"{label}_{vocabulary}", vocabulary_size=vocabulary, dimension=DIMENSION
        )
        fill(table.optimization_parameters)
        table.optimization_parameters.gradient_accumulation_status = status
    return config


def _refused_by_us(ours: TPUEmbeddingConfiguration) -> bool:
    try:
        state_arrays(ours.table_descriptor[0].optimization_parameters)
    except NotAllocated:
        return True
    return False


def test_every_shard_shape_is_tensorflows() -> None:
    compared = 0
    optimizers = _optimizers()
    for status in STATUSES:
        for strategy in STRATEGIES:
            tables, refused = [], []
            for label, fill in optimizers:
                one = _config(status, strategy, [(label, fill, 100)])
                ours = TPUEmbeddingConfiguration.FromString(one.SerializeToString())
                if _refused_by_us(ours):
                    refused.append(one)
                else:
                    tables += [(label, fill, vocabulary) for vocabulary in VOCABULARIES]
            # What we refuse, TensorFlow refuses (a table each: one refusal fails the whole op).
            for one in refused:
                assert isinstance(_shapes(one, 2, 0), str), one
                compared += 1
            config = _config(status, strategy, tables)
            ours = TPUEmbeddingConfiguration.FromString(config.SerializeToString())
            for shards in SHARDS:
                for shard in range(shards):
                    found = _shapes(config, shards, shard)
                    assert not isinstance(found, str), found
                    for index in range(len(tables)):
                        assert found[index] == _expected(ours, index, shards, shard), (
                            ours.table_descriptor[index].name,
                            shards,
                            shard,
                        )
                        compared += 1
    assert compared > 10_000
    print(f"compared {compared} table shards with RetrieveAllTPUEmbeddingParameters")


@pytest.mark.parametrize(
    ("vocabulary", "shards", "status"),
    [(3, 4, 0), (0, 1, 0), (7, 8, 2), (5, 3, 3), (5, 3, 7)],
)
def test_what_tensorflow_refuses_we_refuse(vocabulary: int, shards: int, status: int) -> None:
    config = _config(status, 0, [("adagrad", lambda p: p.adagrad.SetInParent(), vocabulary)])
    ours = TPUEmbeddingConfiguration.FromString(config.SerializeToString())
    found = [_shapes(config, shards, shard) for shard in range(shards)]
    assert any(isinstance(shapes, str) for shapes in found)
    with pytest.raises(NotAllocated):
        for shard in range(shards):
            _expected(ours, 0, shards, shard)


def test_a_table_without_an_algorithm_is_refused_by_both() -> None:
    config = tf_config.TPUEmbeddingConfiguration(mode=2)
    config.table_descriptor.add(name="t", vocabulary_size=10, dimension=2)
    assert isinstance(_shapes(config, 1, 0), str)
    ours = TPUEmbeddingConfiguration.FromString(config.SerializeToString())
    with pytest.raises(NotAllocated):
        state_arrays(ours.table_descriptor[0].optimization_parameters)


@pytest.mark.parametrize(("vocabulary", "hosts"), [(10, 32), (3, 4), (1, 2)])
def test_fewer_rows_than_hosts_is_refused_by_tensorflow_and_by_tpuemb(
    vocabulary: int, hosts: int
) -> None:
    # TensorFlow's TPUEmbedding runs the load and retrieve ops with one shard per host
    # (num_shards=len(hosts)): a config file with fewer rows than hosts, taken as written.
    config = _config(0, 0, [("adagrad", lambda p: p.adagrad.SetInParent(), vocabulary)])
    config.num_hosts, config.num_tensor_cores = hosts, 4 * hosts
    refused = {}
    for shard in range(hosts):
        found = _shapes(config, hosts, shard)
        if isinstance(found, str):
            refused[shard] = found.split(" for '{{node")[0]
    assert sorted(refused) == list(range(vocabulary, hosts))
    theirs = refused[vocabulary]
    assert theirs == (
        f"All embedding shards must be non-empty, shard ID: {vocabulary} is empty, vocabulary "
        f"size: {vocabulary}, number of shards: {hosts}"
    )
    ours = TPUEmbeddingConfiguration.FromString(config.SerializeToString())
    memory = model(ours)
    assert memory.tables == ()
    ((_, _, reason),) = memory.refused
    assert reason.endswith(f"(InvalidArgumentError: {theirs})")
    findings = lint_string(str(ours), name="c.pbtxt")
    (finding,) = [f for f in findings if f.rule == "TE404"]
    assert finding.severity is Severity.ERROR
    assert f"(InvalidArgumentError: {theirs})" in finding.message
    print(f"{vocabulary} rows on {hosts} hosts: TensorFlow refuses shards {vocabulary}-{hosts - 1}")
