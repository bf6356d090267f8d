"""A mapping (parsed JSON or YAML) converted to a protobuf message, by protobuf's JSON rules.

The conversion is the one protobuf's ``json_format.Parse`` applies: field names in lowerCamelCase
or as declared, maps as objects, wrappers as plain values, ``null`` as unset; scalars as
``mapping_values`` says. Every problem is recorded with its field path and conversion goes on,
so one run reports them all. The positions of the fields are mapped here too, from the positions
each format finds for its keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from tpuemb_cli.load.mapping_values import INVALID, ScalarConverter, json_type, written
from tpuemb_cli.load.problems import LoadProblem, oneof_conflict, unknown_field
from tpuemb_cli.load.source import Span
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.pbcompat import is_map_entry, is_repeated, message_type

# Spans keyed by the data's own keys and list indexes, as a format's scanner finds them.
RawSpans = dict[tuple[str | int, ...], Span]

# What to say when a message is given a plain value, not an object: message full name -> (what
# the value is, "an array") -> (message, fix). For a message that stands for an argument the
# user's API takes as a plain value; the codec supplies the table (it is schema knowledge, and the
# converter knows no message type).
PlainValueHints = Mapping[str, Callable[[str], tuple[str, str]]]

_WRAPPERS = {"google.protobuf.FloatValue", "google.protobuf.DoubleValue"}


class ParsedMapping:
    """The data a format read (None if it could not), and the problems found."""

    def __init__(self) -> None:
        self.problems: list[LoadProblem] = []
        self.failed: list[FieldPath] = []  # fields whose integers were too long to read
        self.value: Any = None


def convert_value(
    value: Any,
    message: Message,
    result: ParsedMapping,
    max_depth: int,
    strict: bool = False,
    hints: PlainValueHints | None = None,
) -> None:
    """Fills ``message`` from parsed JSON (or YAML) data, recording problems in ``result``.

    ``strict`` (YAML) refuses a fraction-less float for an integer field: YAML tells ``8`` from
    ``8.0``, and TensorFlow's Python API refuses ``vocabulary_size=8.0``. ``hints``: see
    ``PlainValueHints``.
    """
    if not isinstance(value, dict):
        result.problems.append(
            LoadProblem(
                "invalid-value",
                f"the top level must be an object (a mapping) for {message.DESCRIPTOR.name}, "
                f"not {json_type(value)}",
                fatal=True,
            )
        )
        return
    converter = _Converter(result.problems, max_depth, strict, hints or {})
    converter.failed = result.failed
    converter.message(value, message, (), 0)


class _Converter(ScalarConverter):
    def __init__(
        self, problems: list[LoadProblem], max_depth: int, strict: bool, hints: PlainValueHints
    ) -> None:
        super().__init__(problems, strict)
        self.max_depth = max_depth
        self.hints = hints

    def message(self, value: dict[str, Any], message: Message, path: FieldPath, depth: int) -> None:
        if depth > self.max_depth:
            self.problem("invalid-syntax", f"nesting deeper than {self.max_depth} levels", path)
            return
        descriptor = message.DESCRIPTOR
        by_json = _fields_by_json_name(descriptor)
        for key, item in value.items():
            if not isinstance(key, str):
                # YAML allows numbers, booleans and null as keys; field names are text.
                self.problem(
                    "invalid-value",
                    f"{written(key)} is not a field name of {descriptor.name} (keys must be text)",
                    path + (written(key),),
                )
                continue
            field = by_json.get(key)
            if field is None:
                self.problems.append(unknown_field(descriptor, key, path + (key,), json_names=True))
                continue
            field_path = path + (field.name,)
            if item is None:
                continue  # null means unset
            oneof = field.containing_oneof
            if oneof is not None:
                other = message.WhichOneof(oneof.name)
                if other is not None and other != field.name:
                    self.problems.append(
                        oneof_conflict(descriptor.name, oneof.name, field.name, other, field_path)
                    )
                    continue
            if is_map_entry(field):
                self.map(item, message, field, field_path, depth)
            elif is_repeated(field):
                self.repeated(item, message, field, field_path, depth)
            elif field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
                self.submessage(item, getattr(message, field.name), field, field_path, depth)
            else:
                converted = self.scalar(item, field, field_path)
                if converted is not INVALID:
                    setattr(message, field.name, converted)

    def submessage(
        self, item: Any, child: Message, field: FieldDescriptor, path: FieldPath, depth: int
    ) -> None:
        child_type = message_type(field)
        if child_type.full_name in _WRAPPERS:
            converted = self.scalar(item, child_type.fields_by_name["value"], path)
            if converted is not INVALID:
                child.value = converted  # type: ignore[attr-defined]
            return
        if not isinstance(item, dict):
            given = json_type(item)
            hint = self.hints.get(child_type.full_name)
            if hint is None:
                message, fix = f"`{field.name}` must be {self.an_object}, not {given}", ""
            else:
                message, fix = hint(given)
            self.problem("invalid-value", message, path, fix)
            return
        child.SetInParent()
        self.message(item, child, path, depth + 1)

    def map(
        self, item: Any, message: Message, field: FieldDescriptor, path: FieldPath, depth: int
    ) -> None:
        if not isinstance(item, dict):
            self.problem(
                "invalid-value", f"`{field.name}` is a map and must be {self.an_object}", path
            )
            return
        container = getattr(message, field.name)
        entry_type = message_type(field)
        key_field = entry_type.fields_by_name["key"]
        value_field = entry_type.fields_by_name["value"]
        for raw_key, value in item.items():
            written_key = raw_key if isinstance(raw_key, str) else written(raw_key)
            key = self.scalar(raw_key, key_field, path + (written_key,))
            if key is INVALID or value is None:
                continue
            if value_field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
                if isinstance(value, dict):
                    self.message(value, container[key], path + (str(key),), depth + 1)
                else:
                    self.problem(
                        "invalid-value",
                        f"`{field.name}` values must be objects",
                        path + (str(key),),
                    )
            else:
                converted = self.scalar(value, value_field, path + (str(key),))
                if converted is not INVALID:
                    container[key] = converted

    def repeated(
        self, item: Any, message: Message, field: FieldDescriptor, path: FieldPath, depth: int
    ) -> None:
        if not isinstance(item, list):
            self.problem(
                "invalid-value",
                f"`{field.name}` is repeated and must be {self.an_array}, not {json_type(item)}",
                path,
                f"wrap the value in [ ]: `[{written(item)}]`"
                if not isinstance(item, dict)
                else "wrap the object in [ ]",
            )
            return
        container = getattr(message, field.name)
        is_message = field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE
        for index, element in enumerate(item):
            element_path = path + (len(container),)
            if element is None:
                self.problem("invalid-value", f"`{field.name}` may not hold null", path + (index,))
                continue
            if is_message:
                if not isinstance(element, dict):
                    self.problem(
                        "invalid-value",
                        f"each `{field.name}` must be {self.an_object}, not {json_type(element)}",
                        path + (index,),
                    )
                    continue
                self.message(element, container.add(), element_path, depth + 1)
            else:
                converted = self.scalar(element, field, element_path)
                if converted is not INVALID:
                    container.append(converted)


_BY_JSON: dict[str, dict[str, FieldDescriptor]] = {}


def _fields_by_json_name(descriptor: Any) -> dict[str, FieldDescriptor]:
    """Both spellings protobuf accepts: the JSON name and the declared name."""
    found = _BY_JSON.get(descriptor.full_name)
    if found is None:
        found = {}
        for field in descriptor.fields:
            found[field.name] = field
            found[field.json_name] = field
        _BY_JSON[descriptor.full_name] = found
    return found


def map_spans(value: Any, descriptor: Any, raw: RawSpans) -> dict[FieldPath, Span]:
    """Field-path spans from spans keyed by the data's own keys (JSON names or declared)."""
    spans: dict[FieldPath, Span] = {}
    _map_paths(value, descriptor, (), (), raw, spans)
    return spans


def _map_paths(
    value: Any,
    descriptor: Descriptor,
    raw_path: tuple[str | int, ...],
    path: FieldPath,
    raw: RawSpans,
    spans: dict[FieldPath, Span],
) -> None:
    if not isinstance(value, dict):
        return
    by_json = _fields_by_json_name(descriptor)
    for key, item in value.items():
        field = by_json.get(key)
        key_path = raw_path + (key,)
        field_path = path + ((field.name,) if field is not None else (key,))
        found = raw.get(key_path)
        if found is not None:
            spans[field_path] = found
        if field is None or field.cpp_type != FieldDescriptor.CPPTYPE_MESSAGE:
            if field is not None and isinstance(item, list):
                for index in range(len(item)):
                    element = raw.get(key_path + (index,))
                    if element is not None:
                        spans[field_path + (index,)] = element
            continue
        if isinstance(item, list):
            for index, element in enumerate(item):
                element_span = raw.get(key_path + (index,))
                if element_span is not None:
                    spans[field_path + (index,)] = element_span
                _map_paths(
                    element,
                    message_type(field),
                    key_path + (index,),
                    field_path + (index,),
                    raw,
                    spans,
                )
        else:
            _map_paths(item, message_type(field), key_path, field_path, raw, spans)
