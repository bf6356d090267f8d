"""What an input is: from its bytes, its name and a hint (``--type``) to one verdict, decided
before the codec that reads it is chosen.

The verdict (``Identity``) says whether the input is loaded, skipped (found by walking a folder,
not a TPU embedding document) or refused (named, not one); the encoding its content is read in,
and the one its name says (they differ: `misnamed-file`); the message type when the content says
other than the codec's default; which step of the precedence below decided, and why.

``identify`` is the precedence, in order. The checks it calls live beside it: ``recognise``
(text and binary, a header, a .keras archive), ``recognise_mapping`` (JSON and YAML),
``signatures`` (what tells the types apart), ``encodings`` (the extensions, and for a name that
says nothing, the codecs' sniffs); the schema's rows (``model/schema.py``) hold each type's data.
``name_says`` is what a name alone decides, for discovery (a directory walk, a named file of
another language, diff's pairing at a revision).
"""

from __future__ import annotations

import os
from typing import Literal

from tpuemb_cli.load import encodings
from tpuemb_cli.load.signatures import EMPTY, PREFIX, by_header
from tpuemb_cli.load.source import utf8
from tpuemb_cli.model import schema
from tpuemb_cli.model.records import Record

Outcome = Literal["load", "skip", "refuse"]

# The steps of ``identify``, as a verdict names the one that decided.
HINT = "hint"  # the user said the type
CONTENT = "content"  # the content, judged in the encoding its name (or sniff) says
AS_YAML = "as-yaml"  # no name to go by: the content, judged as YAML
NAMED_EMPTY = "named-empty"  # no field, but named as a document (or blank): an empty one
NOT_A_DOCUMENT = "not-a-document"  # the content is something else


class Identity(Record):
    """What an input is. ``outcome``: loaded, skipped (walked) or refused (named). ``encoding``:
    what its content is read as; ``named``: what its name (without one, its content's sniff)
    says -- when they differ the file is misnamed. ``message_type``: the type to load it as
    (None: the codec's own choice, by header, lead field or bytes). ``step``: which step of the
    precedence decided; ``reason``: why (for a skipped or refused input, what it is instead)."""

    outcome: Outcome
    encoding: str
    named: str
    message_type: str | None
    step: str
    reason: str = ""

    @property
    def misnamed(self) -> bool:
        return self.encoding != self.named


def identify(data: bytes, name: str, hint: str | None = None, walked: bool = False) -> Identity:
    """What ``data`` (named ``name``; ``walked``: found in a folder the user named) is. ``hint``:
    the message type the user gave (``--type``). The precedence, first step first:"""
    # 1. The user's word: the type is settled, and whether it is a document is not asked; only
    #    the encoding is left to the name and the content (``_as_told``).
    if hint is not None:
        return _as_told(data, name, hint)
    # 2. The encoding the name's extension says; for a name that says nothing (stdin, a pipe,
    #    `ckpt-1.index`) the codecs' sniffs in their rows' order (a zip before binary).
    named = encodings.detect(name, data).name
    # 3. The content, judged in that encoding (``recognise``): names that are never configs,
    #    a .keras archive's config, text under a binary name and binary under a text name (its
    #    verdict then names the held encoding), a `# proto-message:` header, the signature
    #    fields of the types in the schema's order.
    from tpuemb_cli.load.recognise import recognise

    verdict = recognise(name, data, named)
    # 4. No name to go by, and it is no text format document: a YAML spec reads as broken text
    #    format; judged as YAML, it is what it is. After 3: what reads as text stays text. Not
    #    misnamed (no name said text).
    if not verdict.ok and named == "text" and encodings.for_name(name) is None:
        as_yaml = recognise(name, data, "yaml")
        if as_yaml.ok:
            held = as_yaml.encoding or "yaml"
            return Identity("load", held, "yaml", as_yaml.message_type, AS_YAML, "it reads as YAML")
    # 5. No field at all, in a file the user named whose name says it is one (`x.pbtxt`) or that
    #    is blank: linted as an empty (or broken) document. After 3-4, which found no field;
    #    before 6, which would refuse it; a walked file is skipped (``_named_as_one``).
    if not verdict.ok and not walked and verdict.reason == EMPTY and _named_as_one(name, data):
        return Identity("load", named, named, None, NAMED_EMPTY, EMPTY)
    # 6. Anything else that is no document: skipped when found by walking, refused when named
    #    (its reason then says what it is instead).
    if not verdict.ok:
        outcome: Outcome = "skip" if walked else "refuse"
        return Identity(outcome, named, named, None, NOT_A_DOCUMENT, verdict.reason)
    # 7. A document: in the encoding its content holds, as the type its content says.
    held = verdict.encoding or named
    said = f", not {named} as its name says" if held != named else ""
    return Identity("load", held, named, verdict.message_type, CONTENT, f"it holds {held}{said}")


def _as_told(data: bytes, name: str, hint: str) -> Identity:
    """An input whose type the user gave, read in the encoding its content holds."""
    from tpuemb_cli.load.recognise import held_encoding

    named = encodings.detect(name, data).name
    # a. No name to go by: a spec (YAML's type) that reads as YAML is YAML (``_reads_as_yaml``).
    if (
        named == "text"
        and encodings.for_name(name) is None
        and schema.lookup(hint).name == schema.DEFAULT_YAML_TYPE
        and _reads_as_yaml(data, name, hint)
    ):
        named = "yaml"
    # b. Text saved under a binary name, or bytes that are not UTF-8 but parse as the type
    #    under a text name: the encoding it holds (misnamed).
    held = held_encoding(data, named, hint) or named
    return Identity("load", held, named, hint, HINT, f"--type {hint}")


def _named_as_one(name: str, data: bytes) -> bool:
    """Whether a named input with no field in it is linted as an (empty, or broken) document:
    its name says it is one (``x.pbtxt``), or it is blank. Text without a field in a file the
    content alone was to decide on (``LICENSE``, a pipe) is no document."""
    return encodings.for_name(name) is not None or not data.strip()


def _reads_as_yaml(data: bytes, name: str, message_type: str) -> bool:
    """Whether an input without a name to go by is YAML: one YAML recognises, unless a
    ``# proto-message:`` header is all YAML recognised it by (a header names the type, not the
    encoding) and the text format reads it. (The one check that reads with a codec: whether
    text format reads it is what its parser says.)"""
    from tpuemb_cli.load.document import UnknownHeaderType, is_fatal
    from tpuemb_cli.load.recognise import recognise

    if not recognise(name, data, "yaml").ok:
        return False
    if by_header(utf8(data, errors="replace")) is None:
        return True  # recognised by its keys: YAML's parser read it
    try:
        read = encodings.get("text").load(data, name, message_type)
    except UnknownHeaderType:
        return True  # a header naming no type tpuemb reads: fatal, as ``load_bytes`` says
    return is_fatal(read.problems)


# What a name alone says, for discovery (``name_says``).
NameSays = Literal["ours", "headed", "silent", "foreign"]


def name_says(name: str) -> NameSays:
    """What ``name`` says before any byte is read. "ours": an extension tpuemb reads (a walk
    takes it); "headed": one that is ours only under a `# proto-message:` header (``.txt``: a
    walk reads its start, ``headed``); "silent": no extension (named, its content decides; a walk
    skips it); "foreign": another extension (``NOTES.md``: skipped, named or walked)."""
    if encodings.for_name(name) is not None:
        return "ours"
    if encodings.for_headed_name(name) is not None:
        return "headed"
    base = os.path.basename(name)  # noqa: PTH119 -- PurePath costs more per file
    return "foreign" if os.path.splitext(base)[1] else "silent"  # noqa: PTH122


def headed(data: bytes) -> bool:
    """Whether ``data`` (the start of a file is enough) opens with a `# proto-message:` header
    naming a type tpuemb reads: what makes a ``.txt`` file one of ours in a directory walk."""
    verdict = by_header(utf8(data[:PREFIX], errors="replace"))
    return verdict is not None and verdict.ok
