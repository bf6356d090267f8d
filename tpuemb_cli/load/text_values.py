"""Text-format scalar values: a token's text converted to its field's type.

The conversions are protobuf's own (``ParseInteger``, ``ParseFloat``, ``ParseBool``,
``ParseEnum``), so a value means here what it means to TensorFlow. A value that does not fit its
field raises ``BadValue``, a problem the parser records before it goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from google.protobuf import text_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from tpuemb_cli.load.limits import INT_DIGITS, too_long
from tpuemb_cli.model.pbcompat import enum_type, is_repeated

if TYPE_CHECKING:
    from tpuemb_cli.load.problems import LoadProblem


class BadValue(Exception):
    """A value that does not fit its field: a recoverable problem, without its path and span
    (the parser knows them)."""

    def __init__(self, problem: LoadProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def _int_parser(is_signed: bool, is_long: bool) -> Callable[[str], int]:
    high = 2 ** (64 if is_long else 32) // (2 if is_signed else 1) - 1

    def parse(text: str) -> int:
        # Fast path for plain decimals; protobuf's parser handles signs, hex, octal and errors.
        if text.isdigit() and (text[0] != "0" or len(text) == 1) and text.isascii():
            value = int(text)
            if value <= high:
                return value
        result: int = text_format.ParseInteger(text, is_signed=is_signed, is_long=is_long)
        return result

    return parse


_INT_TYPES: dict[int, Callable[[str], Any]] = {
    FieldDescriptor.TYPE_INT32: _int_parser(True, False),
    FieldDescriptor.TYPE_SINT32: _int_parser(True, False),
    FieldDescriptor.TYPE_SFIXED32: _int_parser(True, False),
    FieldDescriptor.TYPE_INT64: _int_parser(True, True),
    FieldDescriptor.TYPE_SINT64: _int_parser(True, True),
    FieldDescriptor.TYPE_SFIXED64: _int_parser(True, True),
    FieldDescriptor.TYPE_UINT32: _int_parser(False, False),
    FieldDescriptor.TYPE_FIXED32: _int_parser(False, False),
    FieldDescriptor.TYPE_UINT64: _int_parser(False, True),
    FieldDescriptor.TYPE_FIXED64: _int_parser(False, True),
    FieldDescriptor.TYPE_FLOAT: text_format.ParseFloat,
    FieldDescriptor.TYPE_DOUBLE: text_format.ParseFloat,
    FieldDescriptor.TYPE_BOOL: text_format.ParseBool,
}

# What a value of each type is, in messages (the other types say "a value").
_TYPE_WORDS = {
    FieldDescriptor.TYPE_INT32: "a 32-bit integer",
    FieldDescriptor.TYPE_INT64: "a 64-bit integer",
    FieldDescriptor.TYPE_UINT32: "an unsigned 32-bit integer",
    FieldDescriptor.TYPE_UINT64: "an unsigned 64-bit integer",
    FieldDescriptor.TYPE_FLOAT: "a number",
    FieldDescriptor.TYPE_DOUBLE: "a number",
    FieldDescriptor.TYPE_BOOL: "true or false",
}

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_FLOAT_TYPES = (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE)


def _parse_enum(field: FieldDescriptor, text: str) -> int:
    """protobuf's ParseEnum, which takes any number for an open (proto3) enum: enums are 32-bit,
    and a larger number would make the assignment raise (found by fuzzing)."""
    number: int = text_format.ParseEnum(field, text)
    if not _INT32_MIN <= number <= _INT32_MAX:
        raise ValueError(f"Enum value {text} is out of range for a 32-bit enum")
    return number


def _enum_parser(field: FieldDescriptor) -> Callable[[str], int]:
    def parse(text: str) -> int:
        return _parse_enum(field, text)

    return parse


@cache
def simple_scalars(descriptor: Descriptor) -> dict[str, Callable[[str], Any]]:
    """Converters for the fields the parser's fast path may take: singular numbers, bools, enums.

    They raise ValueError on a bad value; the parser then takes its general path, which says why.
    """
    simple: dict[str, Callable[[str], Any]] = {}
    for field in descriptor.fields:
        if is_repeated(field) or field.containing_oneof is not None:
            continue
        if field.type == FieldDescriptor.TYPE_ENUM:
            simple[field.name] = _enum_parser(field)
        elif field.type in _INT_TYPES:
            simple[field.name] = _INT_TYPES[field.type]
    return simple


def word_value(field: FieldDescriptor, text: str) -> Any:
    """The value of a number, bool or enum field written as the word ``text``."""
    field_type = field.type
    if len(text) > INT_DIGITS and too_long(text) and field_type not in _FLOAT_TYPES:
        from tpuemb_cli.load.problems import number_too_long  # only for a problem

        raise BadValue(number_too_long(text))  # Python's ValueError says to raise its limit
    if field_type == FieldDescriptor.TYPE_ENUM:
        try:
            return _parse_enum(field, text)
        except ValueError:
            # A number that is no value of the enum is out of its range; a name is unknown.
            numeric = text[:1].isdigit() or text[:1] == "-"
            rule = "value-out-of-range" if numeric else "unknown-enum-value"
            from tpuemb_cli.load.problems import not_an_enum_value  # only for a problem

            raise BadValue(not_an_enum_value(enum_type(field), text, "`", rule=rule)) from None
    parse = _INT_TYPES[field_type]
    try:
        return parse(text)
    except ValueError as error:
        reason = str(error)
        rule = "value-out-of-range" if "out of range" in reason else "invalid-value"
        expected = _TYPE_WORDS.get(field_type, "a value")
        from tpuemb_cli.load.problems import not_a_valid_value  # only for a problem

        raise BadValue(
            not_a_valid_value(text, field.name, expected, reason=reason, rule=rule)
        ) from None


def string_value(field: FieldDescriptor, raw: bytes) -> str | bytes:
    """The value of a string or bytes field whose literals hold ``raw``."""
    if field.type == FieldDescriptor.TYPE_BYTES:
        return raw
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        from tpuemb_cli.load.problems import LoadProblem  # only for a problem

        raise BadValue(
            LoadProblem(
                "invalid-value", f"`{field.name}` is not valid UTF-8", fix="use a UTF-8 string"
            )
        ) from None
