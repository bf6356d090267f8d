"""Which message type an input holds, when neither ``--type`` nor a header says."""

from __future__ import annotations

import os

from google.protobuf.message import DecodeError

from tpuemb_cli.load.text_tokenizer import first_token_start
from tpuemb_cli.model import schema


def text_type(text: str) -> str:
    """GraphDef when the text starts like one (`node {`), SparseCoreTableLayouts when it starts
    `tables {` with a layout's `table_name` in it, else the default config type."""
    # The tokenizer's own skipping of blanks and comments (an earlier pattern of the form
    # (whitespace | comment)* backtracked exponentially: fuzz/regressions/).
    index = first_token_start(text)
    for word in ("node", "library", "versions"):
        if text.startswith(word, index):
            rest = text[index + len(word) : index + len(word) + 64].lstrip()
            if rest[:1] in (":", "{", "<"):
                return "GraphDef"
    if text.startswith("tables", index):
        from tpuemb_cli.load.recognise import PREFIX, looks_like_layouts

        if looks_like_layouts(text[index : index + PREFIX]):
            return "SparseCoreTableLayouts"
    return schema.DEFAULT_TYPE


def binary_type(name: str, data: bytes) -> str:
    """SavedModel for saved_model.pb; GraphDef for bytes that read as a graph; SparseCore layouts
    for bytes that read as layouts and not as a config; else a config.

    A graph's bytes read as a GraphDef whose every node has a name and an op; a config's do
    not (its table descriptors' second field is a number, where a node's op is text).
    """
    if os.path.basename(name) == "saved_model.pb":  # noqa: PTH119 -- cheaper than PurePath
        return "SavedModel"
    if data[:1] != b"\n":
        return schema.DEFAULT_TYPE
    graph = schema.resolve("GraphDef")()
    try:
        graph.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError):
        return _layouts_or_config(data)
    nodes = graph.node  # type: ignore[attr-defined]
    if nodes and all(node.name and node.op for node in nodes):
        return "GraphDef"
    return _layouts_or_config(data)


def _layouts_or_config(data: bytes) -> str:
    """SparseCore layouts when ``data`` reads as layouts and not as a config (a config's tables
    read as layouts only with unknown fields: their second field is a number)."""
    from tpuemb_cli.load.recognise import is_binary  # only for bytes that are not a graph

    if not is_binary(schema.DEFAULT_TYPE, data) and is_binary("SparseCoreTableLayouts", data):
        return "SparseCoreTableLayouts"
    return schema.DEFAULT_TYPE
