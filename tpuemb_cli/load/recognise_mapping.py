"""Is a JSON or YAML file a TPU embedding document? Its top-level keys (those of a message type
tpuemb reads), and for a type's signature fields, whether their values are what the type's hold:
a GeoJSON's `features`, a dev container's `features`, a training script's `optimizer:` are not a
spec's. JSONC (comments, trailing commas) is judged by its keys like JSON. See ``recognise``.
"""

from __future__ import annotations

import re
from typing import Any

from tpuemb_cli.load.document import MAX_DEPTH
from tpuemb_cli.load.limits import escaped, max_nesting
from tpuemb_cli.load.signatures import PREFIX, Verdict, by_header, fields_of, judge
from tpuemb_cli.model import schema


def judge_json(text: str) -> Verdict:
    import json  # here: a run without JSON files does not pay for it at start-up

    # Numbers are kept as written: only keys decide, and int() refuses more than 4,300 digits
    # (a config with a 5,000-digit `numHosts` is still a config, its number a finding).
    try:
        value = json.loads(text, parse_int=str, parse_float=str)
    except (ValueError, RecursionError):
        try:
            value = json.loads(_without_jsonc(text), parse_int=str, parse_float=str)
        except (ValueError, RecursionError):
            return _unparsed(text, r'"(\w+)"\s*:')
    if not isinstance(value, dict):
        kind = type(value).__name__
        return Verdict(False, reason=f"its top level is a JSON {kind}, not an object")
    if "class_name" in value:  # perhaps a Keras model's config.json: Keras's own format
        from tpuemb_cli.frontends.keras.load.config import is_keras_model, judge

        if is_keras_model(value):
            return judge(value)
    keys = [str(key) for key in value]
    return _fitting(_mapping(keys), keys, _sketch_of(value))


def _without_jsonc(text: str) -> str:
    """``text`` without the comments and trailing commas of JSONC (tsconfig.json, VS Code's and
    dev containers' settings), which JSON refuses: such a file is judged by its top-level keys,
    not by any quoted word in it (a dev container's `"features"` is no spec's). A document
    written so is still linted, and its comments reported."""
    text = _JSONC_COMMENT.sub(lambda match: match.group(1) or " ", text)
    return _TRAILING_COMMA.sub(lambda match: match.group(1) or "", text)


# A string is matched first, so that `//` in a URL or `,]` in a string stays as it is.
_JSON_STRING = r'("(?:[^"\\\n]|\\.)*")'
_JSONC_COMMENT = re.compile(_JSON_STRING + r"|//[^\n]*|/\*.*?\*/", re.DOTALL)
_TRAILING_COMMA = re.compile(_JSON_STRING + r"|,(?=\s*[}\]])")


# What the value of each top-level key shows of its first element (enough to tell a spec's
# `features` from GeoJSON's): the keys of that mapping; False when it is not a mapping; None
# when the value says nothing (`features:` with nothing yet, an alias).
Sketch = dict[str, "list[str] | bool | None"]


def _fitting(verdict: Verdict, keys: list[str], sketch: Sketch) -> Verdict:
    """``verdict``, judged by the top-level ``keys``, unless the values of its signature fields
    are not what the type's hold."""
    if not verdict.ok or not verdict.message_type:
        return verdict
    if _nested_fit(sketch, verdict.message_type):
        return verdict
    shown = ", ".join(f"`{escaped(key)}`" for key in list(dict.fromkeys(keys))[:6])
    return Verdict(False, reason=f"its top-level fields are {shown}, holding other things")


def _nested_fit(sketch: Sketch, type_name: str) -> bool:
    """Whether the signature fields hold what the type's do: for a repeated message
    (`features`), mappings whose keys are mostly that message's fields (GeoJSON has `features`
    too)."""
    descriptor = schema.resolve(type_name).DESCRIPTOR
    fields = fields_of(type_name)
    signature = schema.signature(type_name)
    for key, first in sketch.items():
        name = fields.get(key)
        if name not in signature:
            continue
        nested = descriptor.fields_by_name[name].message_type
        if nested is None or first is None:
            continue
        if first is False:
            return False
        assert isinstance(first, list)
        names = {f.name for f in nested.fields} | {f.json_name for f in nested.fields}
        if first and sum(k in names for k in first) * 2 < len(first):
            return False
    return True


def _sketch_of(value: dict[Any, Any]) -> Sketch:
    """The sketch of a parsed JSON object."""
    sketch: Sketch = {}
    for key, item in value.items():
        elements = item if isinstance(item, list) else [item]
        first = elements[0] if elements else {}
        if item is None:
            sketch[str(key)] = None
        else:
            sketch[str(key)] = [str(k) for k in first] if isinstance(first, dict) else False
    return sketch


class _Frame:
    """A mapping or sequence open in the YAML event stream."""

    __slots__ = ("collect", "expect_key", "mapping", "owner")

    def __init__(self, mapping: bool, collect: list[str] | None, owner: str | None) -> None:
        self.mapping = mapping
        self.expect_key = mapping
        self.collect = collect  # where its keys go (the first element of a top-level value)
        self.owner = owner  # a top-level value's sequence whose first element is still to come


_NULLS = ("", "~", "null", "Null", "NULL")


def judge_yaml(text: str) -> Verdict:
    """The verdict on a YAML file, from one pass over its parser's events (libyaml's, when
    PyYAML has it): the top-level keys, and a sketch of their values' first elements. Nothing is
    composed or constructed, so aliases are never expanded here."""
    headed = by_header(text)
    if headed is not None:
        return headed
    import yaml

    keys: list[str] = []
    sketch: Sketch = {}
    frames: list[_Frame] = []
    current: str | None = None  # the top-level key whose value is being read
    try:
        for event in yaml.parse(text, Loader=_yaml_loader(yaml)):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                mapping = isinstance(event, yaml.MappingStartEvent)
                depth = len(frames)
                collect: list[str] | None = None
                owner = None
                if depth == 0 and not mapping:
                    return Verdict(False, reason="its top level is a list, not a mapping")
                if depth == 1 and current is not None and not frames[0].expect_key:
                    collect = sketch[current] = []
                    if not mapping:
                        collect, owner = None, current
                elif depth == 2 and frames[1].owner is not None:
                    if mapping:
                        collect = sketch[frames[1].owner] = []
                    else:
                        sketch[frames[1].owner] = False
                    frames[1].owner = None
                frames.append(_Frame(mapping, collect, owner))
                if len(frames) > _DEEPEST:
                    # Whether libyaml stops here depends on its version (0.2.5 builds differ):
                    # judged the same everywhere, as a file the loader will refuse for its depth.
                    return _unparsed(text, r"^(\w+)\s*:")
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                frames.pop()
                if not frames:
                    break  # the first document only
                if frames[-1].mapping:
                    frames[-1].expect_key = not frames[-1].expect_key
            elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)) and frames:
                frame, scalar = frames[-1], isinstance(event, yaml.ScalarEvent)
                value = event.value if isinstance(event, yaml.ScalarEvent) else None
                if frame.mapping:
                    if frame.expect_key:
                        if len(frames) == 1:
                            current = value
                            if current is not None:
                                keys.append(current)
                        elif frame.collect is not None and value is not None:
                            frame.collect.append(value)
                    elif len(frames) == 1 and current is not None:
                        null = isinstance(event, yaml.ScalarEvent) and (
                            event.implicit[0] and event.value in _NULLS
                        )
                        sketch[current] = None if null or not scalar else False
                    frame.expect_key = not frame.expect_key
                elif frame.owner is not None:
                    sketch[frame.owner] = False if scalar else None
                    frame.owner = None
    except yaml.YAMLError:
        return _unparsed(text, r"^(\w+)\s*:")
    if not keys:
        return Verdict(False, reason="it is not a mapping")
    # The keys say a spec (`features:`, `optimizer:` -- a training script's params.yaml has them
    # too): whether their values are a spec's takes the sketch.
    return _fitting(_mapping(keys), keys, sketch)


# Nesting the loader refuses (TE001): deeper, the file is judged as one that does not parse.
_DEEPEST = max_nesting(MAX_DEPTH)


def _yaml_loader(yaml: Any) -> Any:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _mapping(keys: list[str]) -> Verdict:
    return judge(keys, schema.tried("mapping"))


def _unparsed(text: str, key: str) -> Verdict:
    """A file that does not parse: a document if a signature field of a type JSON and YAML may
    hold shows (its syntax error is then worth reporting), else not. (Not GraphDef's: `node` is
    a word too common in other files to vouch for a broken one.)"""
    found = re.findall(key, text[:PREFIX], re.MULTILINE)
    for row in schema.tried("mapping"):
        fields, signature = fields_of(row.name), schema.signature(row.name)
        if any(fields.get(name) in signature for name in found):
            return Verdict(True)
    return Verdict(False, reason="it does not parse and names no field of a TPU embedding document")
