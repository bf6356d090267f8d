"""Renders our mirror of TensorFlow's graph protos from TensorFlow's own descriptors.

    python tools/render_graph_protos.py

Reads tests/data/tensorflow_2_21_graph_descriptors.json (TensorFlow 2.21's FileDescriptorProtos,
the schema facts) and writes protos/tpuemb_cli/pb/framework/*.proto: the same messages, fields,
numbers, types, labels, oneofs, options that reach the wire (packed, deprecated) and reserved
ranges, under our package `tpuemb.framework` and our paths, so they load beside TensorFlow's.
From tensorflow/core/protobuf/ it renders tensor_bundle.proto too (a checkpoint index's header
and entries, which load/checkpoint.py reads). SavedModel and MetaGraphDef are written by hand in
saved_model.proto: only the path to the graph is mirrored; their other fields stay unknown
fields, kept byte for byte. Run it when the descriptors are refreshed, then `make generate`;
tests/test_graph_descriptors.py checks the result against the descriptors.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests" / "data" / "tensorflow_2_21_graph_descriptors.json"
TARGET = ROOT / "protos" / "tpuemb_cli" / "pb" / "framework"
# Every framework file of the descriptors is mirrored, and of the others tensor_bundle; meta_graph
# and saved_model are not.
FRAMEWORK = "tensorflow/core/framework/"
MIRRORED_BEYOND_FRAMEWORK = ("tensorflow/core/protobuf/tensor_bundle.proto",)
SCALARS = {
    "TYPE_DOUBLE": "double",
    "TYPE_FLOAT": "float",
    "TYPE_INT64": "int64",
    "TYPE_UINT64": "uint64",
    "TYPE_INT32": "int32",
    "TYPE_BOOL": "bool",
    "TYPE_STRING": "string",
    "TYPE_BYTES": "bytes",
    "TYPE_UINT32": "uint32",
    "TYPE_SINT32": "sint32",
    "TYPE_SINT64": "sint64",
    "TYPE_FIXED32": "fixed32",
    "TYPE_FIXED64": "fixed64",
    "TYPE_SFIXED32": "sfixed32",
    "TYPE_SFIXED64": "sfixed64",
}


def _type_name(name: str) -> str:
    return name.replace(".tensorflow.", ".tpuemb.framework.")


def _options(field: dict[str, Any]) -> str:
    options = field.get("options", {})
    parts = [f"{key} = {'true' if value else 'false'}" for key, value in options.items()]
    return f" [{', '.join(parts)}]" if parts else ""


def _field(field: dict[str, Any], maps: dict[str, dict[str, Any]], indent: str) -> str:
    label = field.get("label", "LABEL_OPTIONAL")
    type_name = field.get("type_name", "")
    if label == "LABEL_REPEATED" and type_name in maps:
        entry = maps[type_name]
        key, value = entry["field"]
        value_type = (value.get("type_name") and _type_name(value["type_name"])) or SCALARS[
            value["type"]
        ]
        kind = f"map<{SCALARS[key['type']]}, {value_type}>"
    else:
        kind = _type_name(type_name) if type_name else SCALARS[field["type"]]
        if label == "LABEL_REPEATED":
            kind = f"repeated {kind}"
    return f"{indent}{kind} {field['name']} = {field['number']}{_options(field)};"


def _message(
    message: dict[str, Any], full_name: str, maps: dict[str, dict[str, Any]], indent: str = ""
) -> list[str]:
    lines = [f"{indent}message {message['name']} {{"]
    inner = indent + "  "
    for nested in message.get("nested_type", []):
        if nested.get("options", {}).get("map_entry"):
            continue
        lines += _message(nested, f"{full_name}.{nested['name']}", maps, inner)
    for enum in message.get("enum_type", []):
        lines += _enum(enum, inner)
    oneofs = [o["name"] for o in message.get("oneof_decl", [])]
    open_oneof = None
    for field in message.get("field", []):
        index = field.get("oneof_index")
        if index is not None and not field.get("proto3_optional"):
            if open_oneof != index:
                if open_oneof is not None:
                    lines.append(f"{inner}}}")
                lines.append(f"{inner}oneof {oneofs[index]} {{")
                open_oneof = index
            lines.append(_field(field, maps, inner + "  "))
            continue
        if open_oneof is not None:
            lines.append(f"{inner}}}")
            open_oneof = None
        lines.append(_field(field, maps, inner))
    if open_oneof is not None:
        lines.append(f"{inner}}}")
    for reserved in message.get("reserved_range", []):
        start, end = reserved["start"], reserved["end"] - 1
        lines.append(f"{inner}reserved {start if start == end else f'{start} to {end}'};")
    for name in message.get("reserved_name", []):
        lines.append(f'{inner}reserved "{name}";')
    lines.append(f"{indent}}}")
    return lines


def _enum(enum: dict[str, Any], indent: str) -> list[str]:
    lines = [f"{indent}enum {enum['name']} {{"]
    for value in enum["value"]:
        lines.append(f"{indent}  {value['name']} = {value['number']};")
    lines.append(f"{indent}}}")
    return lines


def _maps(messages: list[dict[str, Any]], prefix: str, found: dict[str, dict[str, Any]]) -> None:
    for message in messages:
        name = f"{prefix}.{message['name']}"
        if message.get("options", {}).get("map_entry"):
            found[name] = message
        _maps(message.get("nested_type", []), name, found)


def render(file: dict[str, Any], source_name: str) -> str:
    maps: dict[str, dict[str, Any]] = {}
    _maps(file.get("message_type", []), ".tensorflow", maps)
    lines = [
        f"// Mirror of TensorFlow 2.21's {source_name},",
        "// rendered from its descriptors by tools/render_graph_protos.py: same names, numbers,",
        "// types and options; our package.",
        'syntax = "proto3";',
        "",
        "package tpuemb.framework;",
        "",
    ]
    for dependency in file.get("dependency", []):
        stem = Path(dependency).stem
        lines.append(f'import "tpuemb_cli/pb/framework/{stem}.proto";')
    if file.get("dependency"):
        lines.append("")
    for enum in file.get("enum_type", []):
        lines += _enum(enum, "") + [""]
    for message in file.get("message_type", []):
        lines += _message(message, f".tensorflow.{message['name']}", maps) + [""]
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    files = json.loads(SOURCE.read_text())
    TARGET.mkdir(parents=True, exist_ok=True)
    for source_name in sorted(files):
        if source_name.startswith(FRAMEWORK) or source_name in MIRRORED_BEYOND_FRAMEWORK:
            stem = Path(source_name).stem
            (TARGET / f"{stem}.proto").write_text(render(files[source_name], source_name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
