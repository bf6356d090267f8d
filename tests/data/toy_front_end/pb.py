"""toyemb's message, ``tpuemb.toy.ToyConfig``: tables, each a name, a row count and a width."""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_FILE = descriptor_pb2.FileDescriptorProto(name="tpuemb/toy/toy.proto", package="tpuemb.toy")
_table = _FILE.message_type.add(name="ToyTable")
for number, (field, kind) in enumerate(
    (("name", "TYPE_STRING"), ("rows", "TYPE_INT64"), ("dim", "TYPE_INT64")), start=1
):
    _table.field.add(
        name=field,
        number=number,
        type=descriptor_pb2.FieldDescriptorProto.Type.Value(kind),
        label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
    )
_FILE.message_type.add(name="ToyConfig").field.add(
    name="tables",
    number=1,
    type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
    type_name=".tpuemb.toy.ToyTable",
    label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED,
)
_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_FILE)
ToyConfig = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("tpuemb.toy.ToyConfig"))
