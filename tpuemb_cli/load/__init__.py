"""Reading inputs: bytes in, a message with a source map (and the problems found) out.

This is the only package that looks at text. Each encoding (text format, JSON, binary, YAML) is a
row of ``encodings`` and a codec module; ``source.py`` maps field paths to places in the text;
``problems.py`` is what a codec reports; ``identify.py`` decides what an input is (loaded as
what, skipped or refused, and why) before a codec reads it. Rules see
messages; the engine asks the source map where a field path lies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.protobuf.message import Message

from tpuemb_cli.load import encodings
from tpuemb_cli.load.document import Document, UnknownHeaderType
from tpuemb_cli.load.source import SourceMap, utf8
from tpuemb_cli.model import schema
from tpuemb_cli.model.records import Record

if TYPE_CHECKING:
    from tpuemb_cli.load.problems import LoadProblem

__all__ = [
    "Document",
    "LoadProblem",
    "Skipped",
    "encodings",
    "load_bytes",
    "load_input",
    "load_message",
]


def __getattr__(name: str) -> Any:
    # Lazy: a clean file does not pay for the problems module (see its docstring).
    if name == "LoadProblem":
        from tpuemb_cli.load.problems import LoadProblem

        return LoadProblem
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Skipped(Record):
    """A file found by walking a directory that is not a TPU embedding document, and why."""

    name: str
    reason: str


def load_input(
    data: bytes, name: str, message_type: str | None = None, walked: bool = False
) -> Document | Skipped:
    """Loads a file the user named (``walked``: one found in a directory they named) as
    ``load.identify`` says it is: a TPU embedding document, by its content, unless the user said
    its type (``message_type``); else Skipped when walked, and when named a Document whose only
    problem says what it is instead (`not-an-embedding-document`). Text format saved under a
    binary name is read as text, and binary under a text name as binary, with a note
    (`misnamed-file`), with ``message_type`` or not.
    """
    from tpuemb_cli.load.identify import NAMED_EMPTY, identify

    identity = identify(data, name, message_type, walked)
    if identity.outcome == "skip":
        return Skipped(name, identity.reason)
    if identity.outcome == "refuse":
        from tpuemb_cli.load.problems import LoadProblem  # only for a problem

        problem = LoadProblem(
            "not-an-embedding-document",
            f"not a TPU embedding document: {identity.reason}",
            fix=f"pass --type if it is one (tpuemb reads: {', '.join(schema.known_names())})",
            fatal=True,
        )
        return Document(name, identity.named, schema.DEFAULT_TYPE, None, None, [problem])
    loaded = load_bytes(data, name, identity.encoding, identity.message_type)
    document = _misnamed(loaded, identity.named, identity.encoding)
    if identity.step == NAMED_EMPTY and _empty(document):
        return _emptied(document)
    return document if message_type is None else _other_type(document, data)


def _empty(document: Document) -> bool:
    """A document that parsed to nothing: no field set, no problem."""
    message = document.message
    return message is not None and not document.problems and not message.ListFields()


def _emptied(document: Document) -> Document:
    """A file named as a document that holds no field (blank, or comments alone): one finding
    that says so, not one from each rule a config without fields breaks (issue 38: four)."""
    from tpuemb_cli.load.problems import LoadProblem  # only for a problem

    problem = LoadProblem(
        "not-an-embedding-document",
        "not a TPU embedding document: it has no fields (an empty or emptied file?)",
        fix="write the config's tables, features and topology, or remove the file",
        span=(0, 0),
        fatal=True,
    )
    return document._replace(message=None, problems=[problem])


def _other_type(document: Document, data: bytes) -> Document:
    """``document``, whose type the user gave (--type), with a problem when in binary it reads
    as that type only with fields the type does not define but is another type tpuemb reads."""
    message = document.message
    if document.format != "binary" or message is None:
        return document
    from tpuemb_cli.load import recognise

    if not recognise.has_unknown_fields(message, data):
        return document
    other = recognise.other_binary_type(data, message.DESCRIPTOR.name)
    if other is None:
        return document  # fields of a newer TensorFlow, or opaque ones (user_defined_program)
    from tpuemb_cli.load.encodings.binary import parses_as
    from tpuemb_cli.load.problems import LoadProblem

    problem = LoadProblem(
        "unknown-field",
        f"the file has fields that {message.DESCRIPTOR.name} does not define" + parses_as(other),
        fix=f"pass `--type {other}`",
    )
    return document._replace(problems=[problem, *document.problems])


def _misnamed(document: Document, named: str, held: str) -> Document:
    """``document`` with a note when its content (``held``) is in another encoding than its
    name says (``named``)."""
    if held == named:
        return document
    from tpuemb_cli.load.problems import LoadProblem  # only for a problem

    note = LoadProblem(
        "misnamed-file",
        f"this file holds {held} format, not {named}; read as {held}",
        fix=f"rename it to say what it holds (tpuemb reads {held} from "
        f"{' '.join(encodings.get(held).extensions)})",
    )
    return document._replace(problems=[note, *document.problems])


def load_bytes(
    data: bytes, name: str, fmt: str | None = None, message_type: str | None = None
) -> Document:
    """Loads ``data``; ``fmt`` (an encoding's name) defaults to what ``name`` and the content say.

    ``message_type`` defaults to the text format's ``# proto-message:`` header, then to what the
    content looks like (a graph, a spec in YAML), then to TPUEmbeddingConfiguration. Never raises
    on bad input: problems are in the result. Raises KeyError for an unknown ``message_type`` or
    ``fmt``, which is a usage error, not an input error.
    """
    encoding = encodings.get(fmt) if fmt else encodings.detect(name, data)
    try:
        return encoding.load(data, name, message_type)
    except UnknownHeaderType as error:
        # The type came from the file's own `# proto-message:` header: an input problem.
        from tpuemb_cli.load.problems import LoadProblem

        text = utf8(data, errors="replace")
        at = max(text.find("proto-message"), 0)
        problem = LoadProblem(
            "invalid-value",
            f"the `# proto-message:` header names {error.args[0]!r}, which tpuemb does not know",
            span=(at, at + len("proto-message")),
            fix=_use_type(error.args[0]),
            fatal=True,
        )
        return Document(name, encoding.name, schema.DEFAULT_TYPE, None, SourceMap(text), [problem])


def _use_type(written: str) -> str:
    from tpuemb_cli.model.nearest import nearest  # only for a header that names no type

    close = nearest(written.rsplit(".", 1)[-1], schema.known_names())
    return f"use `{close}`" if close else f"use one of: {', '.join(schema.known_names())}"


def load_message(message: Message, name: str = "<message>") -> Document:
    """Wraps a message object: ours, or TensorFlow's own (converted through the wire format)."""
    ours = schema.resolve(message.DESCRIPTOR.full_name)()
    if type(message) is type(ours):
        ours.CopyFrom(message)
    else:
        ours.ParseFromString(message.SerializeToString())
    return Document(name, "binary", ours.DESCRIPTOR.name, ours, None)
