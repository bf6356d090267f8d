"""Our graph protos against TensorFlow 2.21's own descriptors (tests/data/
tensorflow_2_21_graph_descriptors.json), field by field, and TensorFlow's graphs through them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor_pb2, json_format, text_format

from tpuemb_cli.pb import framework

from .helpers import DATA

THEIRS = json.loads((DATA / "tensorflow_2_21_graph_descriptors.json").read_text())
GRAPHS = DATA / "tf-2.21" / "graphs"
# As tools/render_graph_protos.py mirrors them: every framework file of the descriptors, and
# tensor_bundle (stem -> TensorFlow's path).
SOURCES = {
    Path(name).stem: name
    for name in THEIRS
    if name.startswith("tensorflow/core/framework/")
    or name == "tensorflow/core/protobuf/tensor_bundle.proto"
}
MIRRORED = sorted(SOURCES)


def _ours(stem: str) -> dict[str, Any]:
    module = __import__(f"tpuemb_cli.pb.framework.{stem}_pb2", fromlist=["DESCRIPTOR"])
    proto = descriptor_pb2.FileDescriptorProto()
    module.DESCRIPTOR.CopyToProto(proto)
    found: dict[str, Any] = json_format.MessageToDict(proto, preserving_proto_field_name=True)
    return found


def _normalized(value: Any) -> Any:
    """TensorFlow's descriptors with our package; file options (java_package...) dropped."""
    if isinstance(value, dict):
        return {
            k: _normalized(v) for k, v in value.items() if k not in ("options", "json_name")
        } | ({"options": value["options"]} if "options" in value and not _is_file(value) else {})
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    if isinstance(value, str):
        return value.replace(".tensorflow.", ".tpuemb.framework.")
    return value


def _is_file(value: dict[str, Any]) -> bool:
    return "package" in value


def test_every_mirrored_file_is_generated() -> None:
    generated = {
        p.name.removesuffix("_pb2.py") for p in Path(framework.__file__).parent.glob("*_pb2.py")
    }
    assert len(MIRRORED) == 14 and set(MIRRORED) == generated - {"saved_model"}


@pytest.mark.parametrize("stem", MIRRORED)
def test_messages_and_enums_match_tensorflow(stem: str) -> None:
    theirs = _normalized(THEIRS[SOURCES[stem]])
    ours = _normalized(_ours(stem))
    assert ours.get("enum_type") == theirs.get("enum_type")
    assert [m["name"] for m in ours.get("message_type", [])] == [
        m["name"] for m in theirs.get("message_type", [])
    ]
    for mine, tf in zip(ours.get("message_type", []), theirs.get("message_type", []), strict=True):
        assert _by_name(mine) == _by_name(tf), mine["name"]


def _by_name(message: dict[str, Any]) -> dict[str, Any]:
    # Nested types may be declared in another order; what counts is that each is the same.
    result = dict(message)
    result["nested_type"] = sorted(
        (_by_name(n) for n in message.get("nested_type", [])), key=lambda n: n["name"]
    )
    return result


@pytest.mark.parametrize("path", sorted(GRAPHS.glob("*.pb")), ids=lambda p: p.stem)
def test_tensorflows_graphs_round_trip(path: Path) -> None:
    graph_type = (
        framework.op_def_pb2.OpList if path.stem == "opdefs" else framework.graph_pb2.GraphDef
    )
    binary = graph_type()
    binary.ParseFromString(path.read_bytes())
    assert binary.SerializeToString(deterministic=True) == path.read_bytes()
    text = graph_type()
    text_format.Parse(path.with_suffix(".pbtxt").read_text(), text)
    assert text.SerializeToString(deterministic=True) == path.read_bytes()
    assert text_format.MessageToString(binary) == path.with_suffix(".pbtxt").read_text()
