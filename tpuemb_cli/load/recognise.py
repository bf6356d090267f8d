"""Is this file a TPU embedding document? Decided by content, before it is linted (step 3 of
``load.identify``, which asks it).

A repository holds many files with tpuemb's extensions that are something else: npm and editor
JSON, Compose, Kubernetes and CI YAML, other projects' textprotos (TF Serving, TFX, Object
Detection, MediaPipe, Caffe), SavedModel fingerprints. A file is a document when its top-level
field names are those of a message type tpuemb reads -- at least one field that only that type
has (its signature) and no more unknown names than known ones, or every name known; in JSON and
YAML its signature fields must hold what that type's do too -- or when a `# proto-message:`
header names such a type, or, in binary, when it parses as one with no unknown field. JSONC
(comments, trailing commas) is judged by its keys like JSON (``recognise_mapping`` judges JSON
and YAML). Only the start of a text file is read for this (a config's first top-level field
settles it), so recognising costs little beside linting.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from tpuemb_cli.load.signatures import (
    EMPTY,
    PREFIX,
    UNSIGNED,
    Verdict,
    by_header,
    has_unknown_fields,
    judge,
    parse_binary,
    text_check,
)
from tpuemb_cli.load.source import utf8
from tpuemb_cli.load.text_tokenizer import TOKEN
from tpuemb_cli.model import schema

# Re-exported: the loader and tests ask this module.
__all__ = ["EMPTY", "Verdict", "has_unknown_fields", "recognise"]

# Files that are never configs, whatever their content: a fast path, not the rule.
_NOT_CONFIGS = {
    "fingerprint.pb": "a SavedModel fingerprint",
    "keras_metadata.pb": "Keras metadata of a SavedModel",
    "saved_model_config.pb": "a SavedModel's runtime configuration",
}


def recognise(name: str, data: bytes, encoding: str) -> Verdict:
    """Whether ``data`` (named ``name``, in ``encoding`` by its name) is a TPU embedding
    document."""
    base = os.path.basename(name)  # noqa: PTH119 -- a tenth of PurePath(name).name's cost per file
    if base in _NOT_CONFIGS:
        return Verdict(False, reason=_NOT_CONFIGS[base])
    if encoding == "keras":
        from tpuemb_cli.frontends.keras.load.config import judge_archive  # only for .keras archives

        return judge_archive(data)
    if encoding == "binary":
        text = _as_text(data)
        if text is None:
            return _binary(base, data)
        verdict = _text(text)
        return verdict._replace(encoding="text") if verdict.ok else verdict
    try:
        text = utf8(data)
    except UnicodeDecodeError:
        # Binary saved under a text name (the mirror of text in a .pb)?
        verdict = _binary(base, data)
        if verdict.ok:
            return verdict._replace(encoding="binary")
        return Verdict(False, reason="it is not UTF-8 text, nor a binary TPU embedding message")
    if encoding == "text":
        return _text(text)
    if encoding in ("json", "yaml"):
        from tpuemb_cli.load import recognise_mapping  # only for JSON and YAML files

        return (
            recognise_mapping.judge_json(text)
            if encoding == "json"
            else recognise_mapping.judge_yaml(text)
        )
    return Verdict(True)  # an encoding tpuemb does not know how to sniff: take it as it is


def _text(text: str) -> Verdict:
    headed = by_header(text)
    if headed is not None:
        return headed
    types = schema.tried("text")
    first = schema.signature(types[0].name)
    names, nested = _text_names(text[:PREFIX], first)
    if len(names) == 1 and names[0] in first:
        # What judge says, without its sets: most files are configs, the first type tried.
        verdict = Verdict(True, message_type=types[0].name)
    else:
        verdict = judge(names, types)
    row = schema.BY_NAME.get(verdict.message_type or "")
    if row is None:
        return verdict
    refused: Verdict | None = None
    while row is not None and row.text_check:
        if text_check(row.text_check)(text[:PREFIX], nested):
            break
        # Not one after all (another type's `tables` are not a layout's): the types after it are
        # tried, and the first refusal is said when none fits.
        refused = refused or Verdict(False, reason=row.text_unlike)
        types = tuple(other for other in types if other is not row)
        verdict = judge(names, types)
        row = schema.BY_NAME.get(verdict.message_type or "")
    if row is None:
        return refused or verdict
    if row.name == schema.DEFAULT_TYPE:
        return verdict._replace(message_type=None)  # the loader's default
    return verdict


def _text_names(text: str, settles: frozenset[str]) -> tuple[list[str], Mapping[str, list[str]]]:
    """The field names at the top level of a text-format ``text`` (up to the first, when it is
    one of ``settles``), and by top-level field name those inside its blocks (to tell a GraphDef
    from other graphs by its `node`s')."""
    names: list[str] = []
    nested: dict[str, list[str]] = {}
    block: list[str] | None = None  # the names inside the top-level block being read
    depth = 0
    previous = ""
    for match in TOKEN.finditer(text):
        kind = match.lastindex
        if kind is None:
            break
        token = match.group(kind)
        if kind == 5 and token in "{<":
            if depth == 0:
                block = nested.setdefault(previous, [])
            depth += 1
        elif kind == 5 and token in "}>":
            depth = max(depth - 1, 0)
            if depth == 0:
                block = None
        elif kind == 2:
            rest = text[match.end() : match.end() + 64].lstrip()[:1]
            if rest in (":", "{", "<"):
                if depth == 0:
                    names.append(token)
                    if token in settles and len(names) == 1:
                        break  # a config's first field: settled
                elif depth == 1 and block is not None and len(block) < 64:
                    block.append(token)
        if kind != 1:
            previous = token
    return names, nested


def _as_text(data: bytes) -> str | None:
    """``data`` as text when it is text format saved under a binary name: UTF-8 with no control
    characters but whitespace, starting with a field name or a comment."""
    try:
        text = utf8(data)
    except UnicodeDecodeError:
        return None
    if re.search(r"[\x00-\x08\x0b\x0e-\x1f\x7f]", text[:PREFIX]):
        return None
    first = text.lstrip()[:1]
    return text if first.isalpha() or first in "#_" else None


def _binary(base: str, data: bytes) -> Verdict:
    if any(row.file_name == base for row in schema.TYPES if row.file_name):
        return Verdict(True)  # the loader reads it as its name says (sniff)
    types = schema.tried("binary")
    unsigned = []
    for row in types:
        outcome = parse_binary(row.name, data)
        if outcome == "":
            default = row.name == schema.DEFAULT_TYPE
            return Verdict(True, message_type=None if default else row.name)
        if outcome == UNSIGNED:
            unsigned.append(row)
    if unsigned:
        row = unsigned[0]
        return Verdict(False, reason=f"it parses as {row.name} but has {row.binary_missing}")
    names = [row.name for row in types]
    tried = ", ".join(names[:-1]) + f" or {names[-1]}"
    return Verdict(False, reason=f"it parses as no {tried} without unknown fields")


def other_binary_type(data: bytes, other_than: str) -> str | None:
    """The message type tpuemb reads from binary, other than ``other_than``, that ``data`` is
    (it parses with no unknown field and has a field that makes one), if any: what to suggest
    when it does not read as the type it was read as."""
    for row in schema.tried("binary"):
        if row.name != other_than and parse_binary(row.name, data) == "":
            return row.name
    return None


def held_encoding(data: bytes, encoding: str, message_type: str) -> str | None:
    """The encoding ``data`` holds when its name says ``encoding`` but it is the other one, for
    an input whose type the user gave (--type): text in a binary name; bytes that are not UTF-8
    but parse as a binary ``message_type`` in a text name. None: as the name says."""
    if encoding == "binary":
        return "text" if _as_text(data) is not None else None
    try:
        utf8(data)
    except UnicodeDecodeError:
        parsed = parse_binary(schema.lookup(message_type).name, data)
        return "binary" if parsed in ("", UNSIGNED) else None
    return None
