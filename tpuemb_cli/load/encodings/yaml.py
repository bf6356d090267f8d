"""YAML (``.yaml``, ``.yml``): embedding specs, read in safe mode with positions."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format
from google.protobuf.message import Message

from tpuemb_cli.load.document import MAX_DEPTH, Document, decode, header_type, is_fatal
from tpuemb_cli.load.encodings import lossless
from tpuemb_cli.load.encodings.mapping_out import printable
from tpuemb_cli.load.mapping import map_spans
from tpuemb_cli.load.source import SourceMap, Span
from tpuemb_cli.load.yaml_parser import parse_yaml
from tpuemb_cli.model import schema
from tpuemb_cli.model.shorthands import PLAIN_VALUE_HINTS

if TYPE_CHECKING:
    from tpuemb_cli.load.mapping import RawSpans
    from tpuemb_cli.model.paths import FieldPath

__all__ = ["load", "render"]


def load(data: bytes, name: str, message_type: str | None) -> Document:
    text = decode(data, name, "yaml", message_type)
    if isinstance(text, Document):
        return text
    type_name = message_type or header_type(text) or schema.DEFAULT_YAML_TYPE
    message = schema.resolve(type_name)()
    parsed, raw = parse_yaml(text, message, MAX_DEPTH, PLAIN_VALUE_HINTS)
    # A partial, not a closure: the document pickles (`tpuemb diff` loads a side elsewhere).
    source = SourceMap.lazy(text, partial(_spans, parsed.value, type_name, raw))
    ok = not is_fatal(parsed.problems)
    return Document(
        name,
        "yaml",
        type_name,
        message if ok else None,
        source,
        parsed.problems,
        text=text,
        failed=parsed.failed,
    )


def _spans(
    value: Any, type_name: str, raw: RawSpans, _: frozenset[FieldPath] | None
) -> dict[FieldPath, Span]:
    return map_spans(value, schema.resolve(type_name).DESCRIPTOR, raw)


def render(message: Message) -> bytes:
    """The message as YAML, fields as declared (as specs are written), in field order; refused
    if it cannot carry every field."""
    import yaml

    mapping = printable(
        json_format.MessageToDict(message, preserving_proto_field_name=True),
        message.DESCRIPTOR,
        plain_integers=True,
    )
    # libyaml's emitter and parser when PyYAML has them (they write and read the same YAML):
    # the pure-Python ones took a minute on the 10,000 stacks of a JAX EmbeddingSpecProto.
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    output = yaml.dump(mapping, Dumper=dumper, sort_keys=False, allow_unicode=True, width=100)
    return lossless(
        output.encode("utf-8"),
        message,
        lambda b: json_format.ParseDict(yaml.load(output, Loader=loader) or {}, b),
        "yaml",
    )
