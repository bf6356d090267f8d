"""The protobuf wire format (``.pb``): what TensorFlow serializes. No lines, so no positions."""

from __future__ import annotations

from google.protobuf.message import DecodeError, Message

from tpuemb_cli.load.document import Document
from tpuemb_cli.load.problems import LoadProblem
from tpuemb_cli.load.sniff import binary_type
from tpuemb_cli.load.source import utf8
from tpuemb_cli.model import schema

__all__ = ["load", "parses_as", "render", "sniff"]


def sniff(data: bytes) -> bool:
    """Bytes that are not UTF-8 text, or hold a NUL."""
    try:
        return "\x00" in utf8(data)
    except UnicodeDecodeError:
        return True


def load(data: bytes, name: str, message_type: str | None) -> Document:
    type_name = message_type or binary_type(name, data)
    message = schema.resolve(type_name)()
    try:
        message.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError) as error:
        from tpuemb_cli.load.recognise import other_binary_type  # only for a broken file

        other = other_binary_type(data, message.DESCRIPTOR.name)
        problem = LoadProblem(
            "invalid-syntax",
            f"not a valid binary {message.DESCRIPTOR.name}: {error}" + parses_as(other),
            fix=f"pass `--type {other}`"
            if other
            else "check the file is the serialized message, or pass --type",
            fatal=True,
        )
        return Document(name, "binary", type_name, None, None, [problem])
    return Document(name, "binary", type_name, message, None)


def parses_as(other: str | None) -> str:
    """What a finding adds when the bytes are another type tpuemb reads ("" when none)."""
    return f"; it parses as {other}: pass `--type {other}`" if other else ""


def render(message: Message) -> bytes:
    return message.SerializeToString(deterministic=True)
