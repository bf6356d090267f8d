"""Reading inputs: bytes in, a message with a source map (and the problems found) out.

This is the only package that looks at text. Rules see messages; the engine asks the source map
where a field path lies.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import Any, NamedTuple

from google.protobuf.message import DecodeError, Message

from tpuemb_cli import schema
from tpuemb_cli.load.formats import Format, detect_format
from tpuemb_cli.load.problems import LoadProblem
from tpuemb_cli.load.textformat import first_token_start, parse_text, proto_message_header
from tpuemb_cli.paths import FieldPath
from tpuemb_cli.source import SourceMap, Span

__all__ = ["Document", "Format", "LoadProblem", "detect_format", "load_bytes", "load_message"]

MAX_DEPTH = 100  # protobuf's own default recursion limit


class Document(NamedTuple):
    """One input, loaded.

    ``message`` is None when the input could not be parsed at all; ``problems`` then holds why.
    ``source_map`` is None for binary input, which has no lines.
    """

    name: str
    format: Format
    message_type: str
    message: Message | None
    source_map: SourceMap | None
    problems: Sequence[LoadProblem] = ()
    comments: Sequence[tuple[int, str]] = ()
    text: str | None = None

    @property
    def fatal(self) -> bool:
        return any(problem.fatal for problem in self.problems)


def _decode(data: bytes) -> tuple[str | None, LoadProblem | None]:
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as error:
        prefix = data[: error.start].decode("utf-8-sig", errors="replace")
        return None, LoadProblem(
            "invalid-syntax",
            f"the file is not UTF-8 text: byte 0x{data[error.start]:02x} at offset {error.start}",
            span=(len(prefix), len(prefix) + 1),
            fix="save the file as UTF-8, or give binary input a .pb or .binpb extension",
            fatal=True,
        )


def text_type(text: str) -> str:
    """GraphDef when the text starts like one (`node {`), else the default config type."""
    # The tokenizer's own skipping of blanks and comments (an earlier pattern of the form
    # (whitespace | comment)* backtracked exponentially: fuzz/regressions/).
    index = first_token_start(text)
    for word in ("node", "library", "versions"):
        if text.startswith(word, index):
            rest = text[index + len(word) : index + len(word) + 64].lstrip()
            if rest[:1] in (":", "{", "<"):
                return "GraphDef"
    return schema.DEFAULT_TYPE


def binary_type(name: str, data: bytes) -> str:
    """SavedModel for saved_model.pb; GraphDef for bytes that read as a graph; else a config.

    A graph's bytes read as a GraphDef whose every node has a name and an op; a config's do
    not (its table descriptors' second field is a number, where a node's op is text).
    """
    if PurePath(name).name == "saved_model.pb":
        return "SavedModel"
    if data[:1] != b"\n":
        return schema.DEFAULT_TYPE
    graph = schema.resolve("GraphDef")()
    try:
        graph.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError):
        return schema.DEFAULT_TYPE
    nodes = graph.node  # type: ignore[attr-defined]
    if nodes and all(node.name and node.op for node in nodes):
        return "GraphDef"
    return schema.DEFAULT_TYPE


def load_bytes(
    data: bytes, name: str, fmt: Format | None = None, message_type: str | None = None
) -> Document:
    """Loads ``data``; ``fmt`` defaults to what ``name`` and the content say.

    ``message_type`` defaults to the text format's ``# proto-message:`` header, then to
    TPUEmbeddingConfiguration. Never raises on bad input: problems are in the result.
    Raises KeyError for an unknown ``message_type``, which is a usage error, not an input error.
    """
    fmt = fmt or detect_format(name, data)
    try:
        return _load(data, name, fmt, message_type)
    except _UnknownHeaderType as error:
        # The type came from the file's own `# proto-message:` header: an input problem.
        text = data.decode("utf-8-sig", errors="replace")
        at = text.find("proto-message")
        problem = LoadProblem(
            "invalid-value",
            f"the `# proto-message:` header names {error.args[0]!r}, which tpuemb does not know",
            span=(max(at, 0), max(at, 0) + len("proto-message")),
            fix=f"use one of: {', '.join(schema.known_names())}",
            fatal=True,
        )
        return Document(name, fmt, schema.DEFAULT_TYPE, None, SourceMap(text), [problem])


class _UnknownHeaderType(Exception):
    pass


def _header_type(text: str) -> str | None:
    header = proto_message_header(text)
    if header is None:
        return None
    try:
        schema.resolve(header)
    except KeyError:
        raise _UnknownHeaderType(header) from None
    return header


def _load(data: bytes, name: str, fmt: Format, message_type: str | None) -> Document:
    if fmt is Format.BINARY:
        type_name = message_type or binary_type(name, data)
        message = schema.resolve(type_name)()
        try:
            message.ParseFromString(data)
        except (DecodeError, RuntimeError, ValueError) as error:
            problem = LoadProblem(
                "invalid-syntax",
                f"not a valid binary {message.DESCRIPTOR.name}: {error}",
                fix="check the file is the serialized message, or pass --type",
                fatal=True,
            )
            return Document(name, fmt, type_name, None, None, [problem])
        return Document(name, fmt, type_name, message, None)

    text, decode_problem = _decode(data)
    if text is None:
        assert decode_problem is not None
        source = SourceMap(data.decode("utf-8", errors="replace"))
        return Document(
            name, fmt, message_type or schema.DEFAULT_TYPE, None, source, [decode_problem]
        )
    if fmt is Format.YAML:
        from tpuemb_cli.load.yamlformat import parse_yaml, yaml_spans

        type_name = message_type or _header_type(text) or schema.DEFAULT_YAML_TYPE
        message = schema.resolve(type_name)()
        parsed_yaml, raw = parse_yaml(text, message, MAX_DEPTH)
        yaml_value = parsed_yaml.value
        yaml_descriptor: Any = message.DESCRIPTOR
        source = SourceMap.lazy(text, lambda _: yaml_spans(yaml_value, yaml_descriptor, raw))
        ok = not any(p.fatal for p in parsed_yaml.problems)
        return Document(
            name, fmt, type_name, message if ok else None, source, parsed_yaml.problems, text=text
        )
    if fmt is Format.JSON:
        # Imported here: text-format users do not pay for the JSON reader at start-up.
        from tpuemb_cli.load.jsonformat import json_spans, parse_json

        type_name = message_type or schema.DEFAULT_TYPE
        message = schema.resolve(type_name)()
        parsed_json = parse_json(text, message, MAX_DEPTH)
        value = parsed_json.value
        descriptor: Any = message.DESCRIPTOR
        source = SourceMap.lazy(text, lambda _: json_spans(text, value, descriptor))
        ok = not any(p.fatal for p in parsed_json.problems)
        return Document(
            name, fmt, type_name, message if ok else None, source, parsed_json.problems, text=text
        )
    type_name = message_type or _header_type(text) or text_type(text)
    message = schema.resolve(type_name)()
    # Positions are not recorded as the text is parsed: a map entry per field took a clean file
    # a fifth more time and eight times its size in memory, and made time grow faster than the
    # file (the objects it keeps). A file with a finding is parsed again for the positions of
    # the findings' paths only, skipping every message not on their way (0.77x text_format.Parse
    # in all for 10,000 tables with a finding in the last one; clean: 0.50x).
    parsed = parse_text(text, message, MAX_DEPTH, keep_spans=False)
    ok = not any(p.fatal for p in parsed.problems)

    def spans(wanted: frozenset[FieldPath] | None) -> dict[FieldPath, Span]:
        return parse_text(text, schema.resolve(type_name)(), MAX_DEPTH, wanted or True).spans

    return Document(
        name,
        fmt,
        type_name,
        message if ok else None,
        SourceMap.lazy(text, spans, partial=True),
        parsed.problems,
        parsed.comments,
        text,
    )


def load_message(message: Message, name: str = "<message>") -> Document:
    """Wraps a message object: ours, or TensorFlow's own (converted through the wire format)."""
    full_name = message.DESCRIPTOR.full_name
    ours = schema.resolve(full_name)()
    if type(message) is type(ours):
        ours.CopyFrom(message)
    else:
        ours.ParseFromString(message.SerializeToString())
    return Document(name, Format.BINARY, ours.DESCRIPTOR.name, ours, None)
