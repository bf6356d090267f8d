"""Protobuf's JSON mapping of a message (``json_format.MessageToDict``) made into what the JSON and
YAML writers print, so that it reads back as the message:

- a 32-bit float at its largest magnitude (3.4028235e+38, FLT_MAX): protobuf writes the shortest
  text that rounds to it, a double a little above FLT_MAX, which protobuf's own JSON parser
  (``json_format``: "Float value too large") and tpuemb's refuse; it is written as the double
  FLT_MAX is (3.4028234663852886e+38), which reads back exactly;
- for YAML, 64-bit integers as numbers: the JSON mapping writes them as strings (JavaScript's
  numbers are doubles); YAML has integers of any size, and people write `vocabulary_size: 1000`.
"""

from __future__ import annotations

import math
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

FLOAT32_MAX = float.fromhex("0x1.fffffep+127")
_FLOAT_VALUE = "google.protobuf.FloatValue"
_INT64 = frozenset({3, 4, 6, 16, 18})  # TYPE_INT64, UINT64, FIXED64, SFIXED64, SINT64


def printable(value: Any, descriptor: Any, plain_integers: bool = False) -> Any:
    """``value`` (a message's mapping, changed in place) as the writers print it."""
    if not isinstance(value, dict):
        return value
    fields = {f.json_name: f for f in descriptor.fields}
    fields.update((f.name, f) for f in descriptor.fields)
    for key, item in value.items():
        field = fields.get(key)
        if field is None:
            continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            entry = field.message_type.fields_by_name["value"]
            value[key] = {k: _one(v, entry, plain_integers) for k, v in item.items()}
        elif isinstance(item, list):
            value[key] = [_one(element, field, plain_integers) for element in item]
        else:
            value[key] = _one(item, field, plain_integers)
    return value


def _one(item: Any, field: FieldDescriptor, plain_integers: bool) -> Any:
    # A google.protobuf.FloatValue is mapped to its bare value.
    wrapped = field.message_type is not None and field.message_type.full_name == _FLOAT_VALUE
    if field.message_type is not None and not wrapped:
        return printable(item, field.message_type, plain_integers)
    if (
        (field.type == FieldDescriptor.TYPE_FLOAT or wrapped)
        and isinstance(item, float)
        and math.isfinite(item)
        and abs(item) > FLOAT32_MAX
    ):
        return math.copysign(FLOAT32_MAX, item)
    if plain_integers and field.type in _INT64 and isinstance(item, str):
        return int(item)
    return item
