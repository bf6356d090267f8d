"""Our mirror of sparse_core_layout.proto against TensorFlow 2.21's own descriptor.

tests/data/tensorflow_2_21_sparse_core_layout_descriptor.json is TensorFlow's FileDescriptorProto
of tensorflow/core/tpu/kernels/sparse_core_layout.proto (descriptor_pb2 as JSON), dumped from
tensorflow-cpu 2.21.0, so this runs without TensorFlow. Everything but the package must match,
declaration order included (TensorFlow declares fdo_key, number 12, second).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2, json_format

from tpuemb_cli.pb.tpu import sparse_core_layout_pb2

DATA = Path(__file__).parent / "data" / "tensorflow_2_21_sparse_core_layout_descriptor.json"
THEIR_FILE = "tensorflow/core/tpu/kernels/sparse_core_layout.proto"


def _ours() -> dict[str, Any]:
    proto = descriptor_pb2.FileDescriptorProto()
    sparse_core_layout_pb2.DESCRIPTOR.CopyToProto(proto)
    found: dict[str, Any] = json_format.MessageToDict(proto, preserving_proto_field_name=True)
    return found


def _theirs() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(DATA.read_text())[THEIR_FILE]
    return found


def test_messages_match_tensorflow_field_by_field() -> None:
    theirs = json.loads(
        json.dumps(_theirs()["message_type"]).replace(".tensorflow.tpu.", ".tpuemb.tpu.")
    )
    assert _ours()["message_type"] == theirs


def test_file_level_facts_match() -> None:
    ours, theirs = _ours(), _theirs()
    assert ours["syntax"] == theirs["syntax"] == "proto3"
    assert ours["package"] == "tpuemb.tpu" and theirs["package"] == "tensorflow.tpu"
    assert "dependency" not in ours and "dependency" not in theirs
    assert ours["name"] == "tpuemb_cli/pb/tpu/sparse_core_layout.proto"
