"""Our mirror of jax-tpu-embedding's embedding_spec.proto against the library's own descriptor.

tests/data/jax_tpu_embedding_0_2_0_embedding_spec_descriptor.json is the FileDescriptorProto that
jax-tpu-embedding 0.2.0's wheel serialises into its embedding_spec_pb2.py (descriptor_pb2 as
JSON), so this runs without JAX (`make test-jax` compares with the installed library's module
too). Everything but the package and the file's path must match, declaration order, the oneof,
the maps and the proto3 `optional` included.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2, json_format

from tpuemb_cli.pb.jax import embedding_spec_pb2

DATA = Path(__file__).parent / "data" / "jax_tpu_embedding_0_2_0_embedding_spec_descriptor.json"
THEIR_FILE = "jax_tpu_embedding/sparsecore/lib/proto/embedding_spec.proto"
THEIR_PACKAGE = "third_party.py.jax_tpu_embedding.sparsecore_lib_proto"


def _ours() -> dict[str, Any]:
    proto = descriptor_pb2.FileDescriptorProto()
    embedding_spec_pb2.DESCRIPTOR.CopyToProto(proto)
    found: dict[str, Any] = json_format.MessageToDict(proto, preserving_proto_field_name=True)
    return found


def _theirs() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(DATA.read_text())[THEIR_FILE]
    return found


def test_messages_match_the_library_field_by_field() -> None:
    theirs = json.loads(
        json.dumps(_theirs()["message_type"]).replace(f".{THEIR_PACKAGE}.", ".tpuemb.jax.")
    )
    assert _ours()["message_type"] == theirs


def test_file_level_facts_match() -> None:
    ours, theirs = _ours(), _theirs()
    assert ours["syntax"] == theirs["syntax"] == "proto3"
    assert (ours["package"], theirs["package"]) == ("tpuemb.jax", THEIR_PACKAGE)
    assert ours["options"] == theirs["options"] == {"java_multiple_files": True}
    assert "dependency" not in ours and "dependency" not in theirs
    assert ours["name"] == "tpuemb_cli/pb/jax/embedding_spec.proto"
    assert [m["name"] for m in ours["message_type"]] == [
        "FeatureSpecProto",
        "OptimizerSpecProto",
        "TableSpecProto",
        "StackedTableSpecProto",
        "EmbeddingSpecProto",
    ]


def test_a_stack_written_by_the_library_reads_back_byte_for_byte() -> None:
    # The library's own bytes, as the descriptor above says it writes them: field 1, a stack
    # whose proto3 `optional` limit (11) is present at 0.
    spec = embedding_spec_pb2.EmbeddingSpecProto()
    stack = spec.stacked_table_specs.add(stack_name="a", num_sparsecores=8)
    stack.activation_mem_bytes_limit = 0
    data = spec.SerializeToString()
    assert data == b"\n\x07\n\x01aH\x08X\x00"
    again = embedding_spec_pb2.EmbeddingSpecProto.FromString(data)
    assert again.stacked_table_specs[0].HasField("activation_mem_bytes_limit")
    assert again.SerializeToString() == data
