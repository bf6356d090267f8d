"""The input encodings: one row each, and one codec module each that reads, edits and writes it.

A row says what the CLI and discovery need before any codec is imported: the encoding's name
(``--to``, ``lint_string(format=...)``), the file extensions it owns, those it owns only under a
``# proto-message:`` header naming a type tpuemb reads (``.txt``), its codec module. The codec
module (``load/encodings/<name>.py``) defines:

- ``load(data, name, message_type) -> Document``: the message, its source map and problems;
- ``render(message) -> bytes``: the message in this encoding, or ``ConversionError`` rather than
  lose data;
- ``sniff(data) -> bool`` (optional): for input without a known extension (stdin), whether the
  content is in this encoding; rows are asked in order, and the last row that has none is the
  fallback;
- ``text_edits(fix, source_map) -> list[TextEdit]`` (optional): a fix as minimal edits of the
  text; without it, files in this encoding get no fixes.

To add an encoding: write its codec module and add its row here (or call ``register``); a
front-end's formats are its record's ``formats``, registered after these.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from tpuemb_cli.frontends import formats
from tpuemb_cli.model.pbcompat import is_map_entry, is_repeated
from tpuemb_cli.model.records import Record

if TYPE_CHECKING:
    from google.protobuf.message import Message

    from tpuemb_cli.load.document import Document
    from tpuemb_cli.load.source import SourceMap
    from tpuemb_cli.model.edits import Fix, TextEdit

    Editor = Callable[[Fix, SourceMap], Sequence[TextEdit]]


class ConversionError(Exception):
    """The message cannot be written in the asked encoding without losing data."""


def lossless(
    output: bytes, message: Message, read_back: Callable[[Message], object], name: str
) -> bytes:
    """``output``, once ``read_back`` (which parses it into the empty message it is given) gives
    the same wire bytes as ``message``; else a ConversionError: text formats cannot carry unknown
    fields (the content of user_defined_program.program, which tpuemb keeps opaque).

    A message is read back only when it holds an unknown field or a NaN, or its type an ``Any``
    or extensions: protobuf's text and JSON printers write every other value so that their
    parsers read it back as it was (a float's NaN loses its payload bits), and reading back costs
    20 times the printing (200 MB of SparseCore layouts: 40 s; the 10,000 stacks of a JAX
    EmbeddingSpecProto, whose learning rates are floats: most of a conversion's 10 s)."""
    if _printable_type(message.DESCRIPTOR) and not _unprintable_values(message):
        return output
    back = type(message)()
    read_back(back)
    if back.SerializeToString(deterministic=True) != message.SerializeToString(deterministic=True):
        raise ConversionError(
            f"the {message.DESCRIPTOR.name} holds data that {name} format cannot represent "
            "(unknown fields, such as the content of user_defined_program.program, which tpuemb "
            "keeps opaque); convert to binary instead"
        )
    return output


_FLOATING = (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE)


def _unprintable_values(message: Message) -> bool:
    """Whether ``message`` or a message in it holds fields its type does not declare, or a NaN
    in a float or double field."""
    from google.protobuf.unknown_fields import UnknownFieldSet

    waiting = [message]
    while waiting:
        current = waiting.pop()
        if len(UnknownFieldSet(current)):
            return True
        for field, value in current.ListFields():
            nested = field.message_type
            if nested is not None and is_map_entry(field):
                entry = nested.fields_by_name["value"]
                if entry.message_type is not None:
                    waiting.extend(value.values())
                elif entry.type in _FLOATING and any(v != v for v in value.values()):
                    return True
            elif nested is not None:
                if is_repeated(field):
                    waiting.extend(value)
                else:
                    waiting.append(value)
            elif field.type in _FLOATING:
                values = value if is_repeated(field) else (value,)
                if any(v != v for v in values):  # NaN, the one value unequal to itself
                    return True
    return False


@functools.cache
def _printable_type(descriptor: Descriptor) -> bool:
    """Whether no message ``descriptor`` can hold has an ``Any`` (whose printing depends on the
    types the printer knows) or extensions."""
    seen = {descriptor.full_name}
    waiting = [descriptor]
    while waiting:
        current = waiting.pop()
        if current.full_name == "google.protobuf.Any" or current.extension_ranges:
            return False
        for field in current.fields:
            nested = field.message_type
            if nested is not None and nested.full_name not in seen:
                seen.add(nested.full_name)
                waiting.append(nested)
    return True


class Encoding(Record):
    name: str
    extensions: tuple[str, ...]
    codec: str  # the module that reads, writes and edits it
    # Why its files get no fixes, when its codec has no text_edits.
    no_fixes: str = ""
    # Whether tpuemb writes it (`--to`): an archive it only reads is not offered.
    writable: bool = True
    # An archive: its codec's ``members_of_file(path, limit)`` reads the members it needs from a
    # file on disk, so that the rest (a model's weights) is never read.
    archive: bool = False
    # Whether its files are text: an editor can hold one in a buffer, and the language server
    # lints that buffer. Binary and archives are never read from an editor's text, which shows
    # their bytes mangled (issue 36, point 12).
    text: bool = True
    # Extensions other files share (``.txt``): a file of one is this encoding's when its
    # ``# proto-message:`` header names a type tpuemb reads (``load.recognise.headed``).
    headed: tuple[str, ...] = ()

    def module(self) -> ModuleType:
        # sys.modules first: import_module's machinery, even for a module already imported,
        # is called for every file.
        return sys.modules.get(self.codec) or importlib.import_module(self.codec)

    def load(self, data: bytes, name: str, message_type: str | None) -> Document:
        document: Document = self.module().load(data, name, message_type)
        return document

    def render(self, message: Message) -> bytes:
        output: bytes = self.module().render(message)
        return output

    def editor(self) -> Editor | None:
        return getattr(self.module(), "text_edits", None)


_CODECS = "tpuemb_cli.load.encodings"
ENCODINGS: dict[str, Encoding] = {}
EXTENSIONS: dict[str, Encoding] = {}
HEADED: dict[str, Encoding] = {}


def register(encoding: Encoding) -> Encoding:
    """Adds ``encoding`` (a later row with the same name or extension replaces the earlier)."""
    ENCODINGS[encoding.name] = encoding
    for extension in encoding.extensions:
        EXTENSIONS[extension] = encoding
    for extension in encoding.headed:
        HEADED[extension] = encoding
    return encoding


for _row in (
    Encoding(
        "text", (".pbtxt", ".textproto", ".txtpb", ".prototxt"), f"{_CODECS}.text", headed=(".txt",)
    ),
    Encoding("json", (".json",), f"{_CODECS}.json"),
    Encoding(
        "binary",
        (".pb", ".binpb"),
        f"{_CODECS}.binary",
        no_fixes="binary files get no fixes (convert to text to fix them)",
        text=False,
    ),
    Encoding(
        "yaml",
        (".yaml", ".yml"),
        f"{_CODECS}.yaml",
        no_fixes="YAML files get no automatic fixes (apply them by hand)",
    ),
):
    register(_row)
# The front-ends' own formats (a front-end's record: `formats`), after tpuemb's or before the
# one a format names (the order names are listed and content is sniffed in).
for _format in formats():
    _fields = _format._asdict()
    _before = _fields.pop("before")
    register(Encoding(**_fields))
    if _before in ENCODINGS:
        _order = [name for name in ENCODINGS if name != _format.name]
        _order.insert(_order.index(_before), _format.name)
        _rows = [ENCODINGS[name] for name in _order]
        for _table in (ENCODINGS, EXTENSIONS, HEADED):
            _table.clear()
        for _row in _rows:
            register(_row)


def names() -> list[str]:
    return list(ENCODINGS)


def writable_names() -> list[str]:
    """The encodings tpuemb writes (``--to``)."""
    return [name for name, encoding in ENCODINGS.items() if encoding.writable]


def get(name: str) -> Encoding:
    """The encoding called ``name``; KeyError names the known ones."""
    try:
        return ENCODINGS[name]
    except KeyError:
        raise KeyError(f"unknown format {name!r} (known: {', '.join(ENCODINGS)})") from None


def for_name(name: str) -> Encoding | None:
    """The encoding a file name's extension says, if any."""
    # not PurePath(name).suffix, which costs ten times as much per file
    return EXTENSIONS.get(os.path.splitext(name)[1].lower())  # noqa: PTH122


def for_headed_name(name: str) -> Encoding | None:
    """The encoding a file name's extension says when a `# proto-message:` header backs it
    (``.txt``), if any."""
    return HEADED.get(os.path.splitext(name)[1].lower())  # noqa: PTH122


def discovered(extensions: dict[str, Encoding] | None = None) -> str:
    """The names a directory walk takes, for messages: every extension, then the headed ones."""
    said = " ".join(sorted(extensions if extensions is not None else EXTENSIONS))
    headed = " ".join(sorted(HEADED))
    return f"{said}; {headed} under a `# proto-message:` header" if headed else said


def detect(name: str, data: bytes) -> Encoding:
    """By extension; for other names (stdin), by content, asking each codec that can tell."""
    by_name = for_name(name)
    if by_name is not None:
        return by_name
    fallback = None
    for encoding in ENCODINGS.values():
        sniff = getattr(encoding.module(), "sniff", None)
        if sniff is None:
            fallback = fallback or encoding
        elif sniff(data):
            return encoding
    return fallback or ENCODINGS["text"]
