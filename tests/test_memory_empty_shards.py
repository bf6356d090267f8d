"""A table with fewer rows than hosts: TensorFlow's load and retrieve ops refuse it when a config
file says so (tests/test_tf_memory.py runs the op), and its Python API pads it when it writes the
config itself. `check` and `explain --memory` on both: an error and a refusal for the config, a
warning and the padded table for the spec."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from tpuemb_cli.cli import main
from tpuemb_cli.model.memory import model
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

CONFIG = """\
mode: TRAINING
num_hosts: 32
num_tensor_cores: 128
table_descriptor { name: "small" vocabulary_size: 10 dimension: 16
  optimization_parameters { learning_rate { constant: 0.1 } adagrad {} } }
table_descriptor { name: "big" vocabulary_size: 1280 dimension: 16
  optimization_parameters { learning_rate { constant: 0.1 } adagrad {} } }
feature_descriptor { table_id: 0 input_shape: 8 }
feature_descriptor { table_id: 1 input_shape: 8 }
"""
SPEC = """\
optimizer: {adagrad: {}, learning_rate: {constant: 0.1}}
tables:
  - {name: small, vocabulary_size: 10, dim: 16}
  - {name: big, vocabulary_size: 1280, dim: 16}
features: [{table: small}, {table: big}]
topology: {num_hosts: 32, cores_per_host: 4, per_replica_batch_size: 8}
"""
TENSORFLOWS = (
    "InvalidArgumentError: All embedding shards must be non-empty, shard ID: 10 is empty, "
    "vocabulary size: 10, number of shards: 32"
)
REFUSAL = (
    f"10 rows for 32 hosts leave 22 hosts without a row; its load and retrieve ops fail "
    f"({TENSORFLOWS})"
)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_a_config_file_is_refused_and_explain_memory_gives_the_table_no_row(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.pbtxt"
    path.write_text(CONFIG)
    result = invoke("check", str(path))
    assert result.exit_code == 1
    assert 'TE404 [error] table 0 ("small") has 10 rows for 32 hosts' in result.stdout
    result = invoke("explain", "--memory", str(path))
    assert result.exit_code == 1 and "TE404" in result.stderr  # said first (issue 38)
    assert "small  " not in result.stdout  # no row of the table in the table of shards
    assert f"not counted: table small: TensorFlow would refuse it: {REFUSAL}\n" in result.stdout
    assert "big    10 x 16" in result.stdout
    document = json.loads(invoke("explain", "--memory", "--format", "json", str(path)).stdout)
    assert document["refused"] == [{"index": 0, "name": "small", "reason": REFUSAL}]
    assert [table["name"] for table in document["tables"]] == ["big"]


def test_a_spec_is_padded_as_tensorflows_python_api_pads_it(tmp_path: Path) -> None:
    path = tmp_path / "s.spec.yaml"
    path.write_text(SPEC)
    result = invoke("check", str(path))
    assert result.exit_code == 0  # a warning
    assert "TE709 [warning]" in result.stdout and "TE404" not in result.stdout
    document = json.loads(invoke("explain", "--memory", "--format", "json", str(path)).stdout)
    assert document["refused"] == []
    # Padded to 32 rows, one a host; on 128 cores the first core holds one of them.
    assert [(t["name"], t["rows_per_shard"]) for t in document["tables"]] == [
        ("big", 10),
        ("small", 1),
    ]


def test_the_model_refuses_by_hosts_and_splits_by_cores() -> None:
    config = TPUEmbeddingConfiguration(num_hosts=4, num_tensor_cores=16)
    for name, rows in (("below_hosts", 3), ("below_cores", 4)):
        table = config.table_descriptor.add(name=name, vocabulary_size=rows, dimension=2)
        table.optimization_parameters.adagrad.SetInParent()
    memory = model(config)
    # 4 rows on 4 hosts is what TensorFlow's Python API writes for any smaller table; on 16
    # cores, the first core holds one row (the last twelve none).
    assert [(t.name, t.rows) for t in memory.tables] == [("below_cores", 1)]
    ((index, name, reason),) = memory.refused
    assert (index, name) == (0, "below_hosts")
    assert reason.endswith("shard ID: 3 is empty, vocabulary size: 3, number of shards: 4)")
