"""The ``.toyemb`` codec: one ``table NAME rows=N dim=D`` a line, ``#`` comments; each table and
value placed where it is written."""

from __future__ import annotations

import re
from typing import Any

from google.protobuf.message import Message

from tpuemb_cli.load.document import Document
from tpuemb_cli.load.encodings import ConversionError
from tpuemb_cli.load.problems import LoadProblem
from tpuemb_cli.load.source import SourceMap

_LINE = re.compile(r"table\s+(?P<name>\w+)\s+rows=(?P<rows>-?\d+)\s+dim=(?P<dim>-?\d+)\s*$")


def load(data: bytes, name: str, message_type: str | None) -> Document:
    from .pb import ToyConfig  # its own message (tpuemb_cli.frontends.toy.pb)

    text = data.decode("utf-8", errors="replace")
    config: Any = ToyConfig()
    spans: dict[tuple[str | int, ...], tuple[int, int]] = {}
    problems = []
    offset = 0
    for line in text.splitlines(keepends=True):
        body = line.split("#", 1)[0].rstrip()
        found = _LINE.match(body)
        if found is not None:
            index = len(config.tables)
            config.tables.add(name=found["name"], rows=int(found["rows"]), dim=int(found["dim"]))
            spans[("tables", index)] = (offset, offset + len(body))
            for field in ("name", "rows", "dim"):
                spans[("tables", index, field)] = (
                    offset + found.start(field),
                    offset + found.end(field),
                )
        elif body.strip():
            problems.append(
                LoadProblem(
                    "invalid-syntax",
                    f"not a table line: {body.strip()!r}",
                    span=(offset, offset + len(body)),
                    fix="write `table NAME rows=N dim=D`",
                )
            )
        offset += len(line)
    return Document(name, "toyemb", "ToyConfig", config, SourceMap(text, spans), problems)


def render(message: Message) -> bytes:
    raise ConversionError("tpuemb reads .toyemb files but does not write them")
