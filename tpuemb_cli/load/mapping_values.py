"""Scalar values of parsed JSON or YAML converted to a field's type, by protobuf's JSON rules.

Integers as numbers with no fraction or as strings, floats as finite numbers or ``"NaN"``,
``"Infinity"``, ``"-Infinity"``, enums by name or number, bytes as base64. A value that does not
fit its field is recorded as a problem and converts to ``INVALID``.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import json
import math
import re
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from tpuemb_cli.load.limits import OVERSIZED, integer_text, shown, too_long
from tpuemb_cli.load.problems import (
    LoadProblem,
    not_a_valid_value,
    not_an_enum_value,
    number_too_long,
)
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.pbcompat import enum_type

_FLOAT32_MAX = 3.4028234663852886e38
_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1, "a 32-bit integer"),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1, "a 32-bit integer"),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1, "a 32-bit integer"),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1, "a 64-bit integer"),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1, "a 64-bit integer"),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1, "a 64-bit integer"),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1, "an unsigned 32-bit integer"),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1, "an unsigned 32-bit integer"),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1, "an unsigned 64-bit integer"),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1, "an unsigned 64-bit integer"),
}

INVALID = object()  # what a value converts to when it cannot (a problem says why)


def json_type(value: Any) -> str:
    """What ``value`` is, in JSON's words, for messages (and YAML's, for what JSON has not)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)) or value is OVERSIZED:
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, datetime.date):
        return "a date"
    if isinstance(value, bytes):
        return "binary data"
    return "a set" if isinstance(value, set) else "a value"


def written(value: Any) -> str:
    """``value`` for a message, as JSON writes it (YAML's dates, binary data and sets as Python
    does), shortened when long."""
    if isinstance(value, int) and not isinstance(value, bool):
        return integer_text(value)
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = str(value) if isinstance(value, (datetime.date, bytes)) else json_type(value)
    return shown(text)


class ScalarConverter:
    """Converts scalars, recording a problem for each that does not fit its field.

    ``strict`` (YAML) refuses a fraction-less float for an integer field: YAML tells ``8`` from
    ``8.0``, and TensorFlow's Python API refuses ``vocabulary_size=8.0``.
    """

    def __init__(self, problems: list[LoadProblem], strict: bool) -> None:
        self.problems = problems
        self.strict = strict
        # The words of the encoding the user wrote, in messages.
        self.an_object = "a YAML mapping" if strict else "a JSON object"
        self.an_array = "a YAML sequence (a list)" if strict else "a JSON array"
        self.a_string = "a YAML string" if strict else "a JSON string"
        self.failed: list[FieldPath] = []  # fields whose integers were too long to read

    def problem(self, rule: str, message: str, path: FieldPath, fix: str = "") -> None:
        self.problems.append(LoadProblem(rule, message, path, fix=fix))

    def scalar(self, item: Any, field: FieldDescriptor, path: FieldPath) -> Any:
        if item is OVERSIZED:
            self.failed.append(path)  # what follows from it gives way to the parser's problem
            return INVALID  # reported where it is written, by the format's parser
        field_type = field.type
        name = field.name
        if field_type in _INT_RANGES:
            low, high, words = _INT_RANGES[field_type]
            if isinstance(item, str) and too_long(item):
                self.problems.append(number_too_long(item, path=path))
                return INVALID
            number = None if self.strict and isinstance(item, float) else _as_integer(item)
            if number is None:
                self.problems.append(not_a_valid_value(written(item), name, words, path))
                return INVALID
            if not low <= number <= high:
                self.problem(
                    "value-out-of-range",
                    f"{integer_text(number)} is out of range for `{name}` ({words}: {low} to "
                    f"{high})",
                    path,
                    f"give `{name}` a value from {low} to {high}",
                )
                return INVALID
            return number
        if field_type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
            return self.floating(item, field, path)
        if field_type == FieldDescriptor.TYPE_BOOL:
            if isinstance(item, bool):
                return item
            fix = f"write `{name}` as true or false, without quotes"
            self.problems.append(
                not_a_valid_value(written(item), name, "true or false", path, fix=fix)
            )
            return INVALID
        if field_type == FieldDescriptor.TYPE_ENUM:
            return self.enum(item, field, path)
        if field_type == FieldDescriptor.TYPE_STRING:
            if isinstance(item, str):
                return item
            self.problem(
                "invalid-value", f"`{name}` must be {self.a_string}, not {json_type(item)}", path
            )
            return INVALID
        if field_type == FieldDescriptor.TYPE_BYTES:
            # protobuf's JSON mapping: base64, standard or URL-safe, padding optional.
            if isinstance(item, str):
                try:
                    text = item.replace("-", "+").replace("_", "/")
                    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
                except (ValueError, binascii.Error):
                    pass
            self.problem("invalid-value", f"`{name}` must be base64 bytes in {self.a_string}", path)
            return INVALID
        self.problem("invalid-value", f"`{name}` has a type tpuemb does not read from JSON", path)
        return INVALID

    def floating(self, item: Any, field: FieldDescriptor, path: FieldPath) -> Any:
        # As json_format._ConvertFloat: a JSON number must be finite (NaN and Infinity are
        # written as the strings "NaN", "Infinity", "-Infinity"); a string is read by float().
        # YAML (``strict``) has its own non-finite numbers.
        name = field.name
        value: float | None = None
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            try:
                value = float(item)
            except OverflowError:  # an integer beyond any float
                self.problem(
                    "value-out-of-range",
                    f"{integer_text(int(item))} is too large for `{name}` (a float)",
                    path,
                    f"give `{name}` a smaller number",
                )
                return INVALID
            if not math.isfinite(value) and not self.strict:
                # YAML writes them as numbers (`.nan`, `.inf`, `-.inf`): read as written, so
                # the rules judge the value (a NaN learning rate) as in any other encoding.
                self.problem(
                    "invalid-value",
                    f"`{name}` is {item} as a bare JSON number; protobuf's JSON reads NaN and "
                    'infinity only as the strings "NaN", "Infinity" and "-Infinity"',
                    path,
                    f'quote it: `"{name}": "NaN"`, or use a finite number',
                )
                return INVALID
        elif isinstance(item, str) and item != "nan":
            try:
                value = float(item)
            except ValueError:
                value = None
        if value is None:
            expected = 'a number, or "NaN", "Infinity", "-Infinity"'
            fix = f"give `{name}` a number"
            self.problems.append(not_a_valid_value(written(item), name, expected, path, fix=fix))
            return INVALID
        if (
            field.type == FieldDescriptor.TYPE_FLOAT
            and math.isfinite(value)
            and abs(value) > _FLOAT32_MAX
        ):
            self.problem(
                "value-out-of-range",
                f"{written(item)} is too large for `{name}` (a 32-bit float, at most "
                f"{_FLOAT32_MAX!r}; protobuf's JSON parser refuses it: \"Float value too "
                'large")',
                path,
            )
            return INVALID
        return value

    def enum(self, item: Any, field: FieldDescriptor, path: FieldPath) -> Any:
        enum = enum_type(field)
        if isinstance(item, str):
            found = enum.values_by_name.get(item)
            if found is not None:
                return found.number
            self.problems.append(not_an_enum_value(enum, item, '"', path))
            return INVALID
        if isinstance(item, int) and not isinstance(item, bool):
            if -(2**31) <= item < 2**31:
                return item
            self.problem(
                "value-out-of-range",
                f"{integer_text(item)} is out of range for the enum `{field.name}`",
                path,
            )
            return INVALID
        self.problem(
            "invalid-value",
            f"`{field.name}` must be an enum name or number, not {json_type(item)}",
            path,
        )
        return INVALID


def _as_integer(item: Any) -> int | None:
    """An integer as protobuf's JSON reader accepts it: a number with no fraction, or a string."""
    if isinstance(item, bool):
        return None
    if isinstance(item, int):
        return item
    if isinstance(item, float) and math.isfinite(item) and item.is_integer():
        return int(item)
    if isinstance(item, str) and re.fullmatch(r"-?\d+", item.strip()):
        return int(item)
    return None
