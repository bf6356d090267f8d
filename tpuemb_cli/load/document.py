"""A loaded input, and what every codec of text shares: decoding, the `# proto-message:` header."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from google.protobuf.message import Message

from tpuemb_cli.load.source import SourceMap, utf8
from tpuemb_cli.load.text_tokenizer import proto_message_header
from tpuemb_cli.model import schema
from tpuemb_cli.model.paths import FieldPath
from tpuemb_cli.model.records import Record

if TYPE_CHECKING:
    from tpuemb_cli.load.problems import LoadProblem
    from tpuemb_cli.model.findings import Position

MAX_DEPTH = 100  # protobuf's own default recursion limit


class Document(Record):
    """One input, loaded.

    ``format`` is the name of its encoding (``load/encodings``). ``message`` is None when the input
    could not be parsed at all; ``problems`` then holds why. ``source_map`` is None for binary
    input, which has no lines.
    """

    name: str
    format: str
    message_type: str
    message: Message | None
    source_map: SourceMap | None
    problems: Sequence[LoadProblem] = ()
    comments: Sequence[tuple[int, str]] = ()
    text: str | None = None
    # Fields whose values did not load and that no problem's path names (an integer too long to
    # read is reported where it is written, by the parser, before its field is known).
    failed: Sequence[FieldPath] = ()
    # The archive member the text is of (``config.json`` of a ``.keras``): ``name`` is then
    # ``<archive>!<member>``, as findings name it.
    member: str = ""

    def on_disk(self) -> str:
        """The file the document was read from, as configuration names it (``per-file-ignores``,
        ``[[suppress]]`` entries): ``name``, or an archive member's archive."""
        if self.member and self.name.endswith(f"!{self.member}"):
            return self.name[: -len(self.member) - 1]
        return self.name

    def located(self, path: FieldPath) -> tuple[FieldPath, Position | None]:
        """``path`` and where it lies in the text (None for binary input): how a comparison's
        side places a change in its file."""
        return path, self.source_map.position(path) if self.source_map is not None else None


class UnknownHeaderType(Exception):
    """A `# proto-message:` header names a type tpuemb does not know (an input problem)."""


def decode(data: bytes, name: str, fmt: str, message_type: str | None) -> str | Document:
    """``data`` as text, or a Document whose problem says where it is not UTF-8."""
    try:
        return utf8(data)
    except UnicodeDecodeError as error:
        from tpuemb_cli.load.problems import LoadProblem  # only for a problem

        prefix = utf8(data[: error.start], errors="replace")
        problem = LoadProblem(
            "invalid-syntax",
            f"the file is not UTF-8 text: byte 0x{data[error.start]:02x} at offset {error.start}",
            span=(len(prefix), len(prefix) + 1),
            fix="save the file as UTF-8, or give binary input a .pb or .binpb extension",
            fatal=True,
        )
        source = SourceMap(utf8(data, errors="replace"))
        return Document(name, fmt, message_type or schema.DEFAULT_TYPE, None, source, [problem])


def header_type(text: str) -> str | None:
    """The type a `# proto-message:` header names; raises UnknownHeaderType for an unknown one."""
    header = proto_message_header(text)
    if header is None:
        return None
    try:
        schema.resolve(header)
    except KeyError:
        raise UnknownHeaderType(header) from None
    return header


def is_fatal(problems: Sequence[LoadProblem]) -> bool:
    return any(problem.fatal for problem in problems)
