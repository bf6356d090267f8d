"""The Python API, including TensorFlow's own message objects passed in directly.

TensorFlow is not needed: its TPUEmbeddingConfiguration class is rebuilt from its own descriptors
(tests/data/tensorflow_2_21_descriptors.json) in a pool of its own, under TensorFlow's names --
the same class TensorFlow's _pb2 module defines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from google.protobuf import (
    descriptor_pb2,
    descriptor_pool,
    json_format,
    message_factory,
    wrappers_pb2,
)

from tpuemb_cli import lint_file, lint_message, lint_string
from tpuemb_cli.model.findings import Severity
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

from .helpers import CLEAN, CONFIGS, DATA


def _tensorflow_class(name: str) -> Any:
    pool = descriptor_pool.DescriptorPool()
    wrappers = descriptor_pb2.FileDescriptorProto()
    wrappers_pb2.DESCRIPTOR.CopyToProto(wrappers)
    pool.Add(wrappers)
    hlo = descriptor_pb2.FileDescriptorProto(name="xla/service/hlo.proto", package="xla")
    hlo.message_type.add(name="HloModuleProto")
    pool.Add(hlo)
    files = json.loads((DATA / "tensorflow_2_21_descriptors.json").read_text())
    for key in ("optimization_parameters", "tpu_embedding_configuration"):
        proto = descriptor_pb2.FileDescriptorProto()
        json_format.ParseDict(files[f"tensorflow/core/protobuf/tpu/{key}.proto"], proto)
        pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(name))


def test_lint_tensorflow_message_object() -> None:
    tf_class = _tensorflow_class("tensorflow.tpu.TPUEmbeddingConfiguration")
    config = tf_class()
    config.ParseFromString((CONFIGS / "custom_optimizer.pb").read_bytes())
    assert config.DESCRIPTOR.full_name == "tensorflow.tpu.TPUEmbeddingConfiguration"
    (finding,) = lint_message(config)
    assert (finding.rule, finding.field, finding.position) == (
        "TE201",
        "table_descriptor[0].optimization_parameters",
        None,
    )


def test_lint_tensorflow_optimization_parameters() -> None:
    params = _tensorflow_class("tensorflow.tpu.OptimizationParameters")()
    params.adam.beta1 = 1.0
    params.adam.epsilon = 1e-7
    assert [f.rule for f in lint_message(params)] == ["TE202"]


def test_lint_our_message() -> None:
    config = TPUEmbeddingConfiguration()
    config.mode = TPUEmbeddingConfiguration.TRAINING
    assert {f.rule for f in lint_message(config)} == {"TE410", "TE502"}


def test_lint_string_and_file(tmp_path: Path) -> None:
    assert lint_string(CLEAN) == []
    findings = lint_string('{"mode": "TRAINING", "numHosts": 1}', format="json")
    assert all(f.severity is Severity.ERROR for f in findings)
    path = tmp_path / "c.pbtxt"
    path.write_text(CLEAN.replace("table_id: 0", "table_id: 4"))
    findings = lint_file(path)
    assert [f.rule for f in findings] == ["TE406", "TE407"]
    finding = findings[1]
    assert finding.file == str(path)
    assert finding.position is not None and finding.position.line == 14
    assert lint_file(CONFIGS / "single_table_sgd.pb") == []


def test_the_api_finds_configuration_as_check_does(tmp_path: Path) -> None:
    # lint_file and a string named by a path are governed by the nearest configuration;
    # isolated=True and a placeholder name by none; a broken configuration is an error.
    import pytest

    from tpuemb_cli.engine.settings import SettingsError

    broken = CLEAN.replace("num_hosts: 1", "num_hosts: 0")
    (tmp_path / ".tpuemb.toml").write_text('ignore = ["TE502"]\n')
    path = tmp_path / "model.pbtxt"
    path.write_text(broken)
    assert lint_file(path) == []
    assert [f.rule for f in lint_file(path, isolated=True)] == ["TE502"]
    assert lint_string(broken, name=str(path)) == []
    assert [f.rule for f in lint_string(broken)] == ["TE502"]
    assert [f.rule for f in lint_string(broken, name=str(path), isolated=True)] == ["TE502"]
    (tmp_path / ".tpuemb.toml").write_text('selectt = ["TE1"]\n')
    with pytest.raises(SettingsError, match="`selectt`: unknown key"):
        lint_file(path)
