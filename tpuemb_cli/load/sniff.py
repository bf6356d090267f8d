"""Which message type an input holds, when neither ``--type`` nor a header says: the schema's
rows that say how their type is told from its first field (``text_leads``) or from its bytes
(``binary_sniff``, ``file_name``), tried in their order for the encoding."""

from __future__ import annotations

import os

from tpuemb_cli.load.signatures import PREFIX, binary_sniff, text_check
from tpuemb_cli.load.text_tokenizer import first_token_start
from tpuemb_cli.model import schema


def text_type(text: str) -> str:
    """The type whose lead field the text starts with (`node {`: a GraphDef; `tables {` with a
    layout's `table_name` in it: SparseCore layouts), else the default config type."""
    # The tokenizer's own skipping of blanks and comments (an earlier pattern of the form
    # (whitespace | comment)* backtracked exponentially: fuzz/regressions/).
    index = first_token_start(text)
    for row in schema.tried("text"):
        for word in row.text_leads:
            if text.startswith(word, index) and _leads(row, text, index, index + len(word)):
                return row.name
    return schema.DEFAULT_TYPE


def _leads(row: schema.MessageType, text: str, index: int, end: int) -> bool:
    """Whether the field at ``index`` (its name ending at ``end``) says ``row``'s type: its
    ``lead_check`` passes, or without one the field opens."""
    if row.lead_check:
        return text_check(row.lead_check)(text[index : index + PREFIX], {})
    return text[end : end + 64].lstrip()[:1] in (":", "{", "<")


def binary_type(name: str, data: bytes) -> str:
    """The type a file's name says (saved_model.pb: a SavedModel), or whose ``binary_sniff``
    says its bytes are one (a graph's, SparseCore layouts'), else the default config type."""
    base = os.path.basename(name)  # noqa: PTH119 -- cheaper than PurePath
    for row in schema.TYPES:
        if row.file_name and row.file_name == base:
            return row.name
    for row in schema.tried("binary"):
        if row.binary_sniff and binary_sniff(row.binary_sniff)(data):
            return row.name
    return schema.DEFAULT_TYPE
