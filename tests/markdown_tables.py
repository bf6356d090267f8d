"""Reading the Markdown reports back: their tables' cells as GitHub splits them (at a `|` that is
not escaped) and as it shows them (escapes and entities undone), to compare with the JSON."""

from __future__ import annotations

import html
import re

from tpuemb_cli.model.markdown import LIMIT

# Names that would break a table, run HTML, format text or notify someone, were they not escaped.
HOSTILE = [
    "a|b",
    "`code` and ``two``",
    "<script>alert(1)</script>",
    "line\nbreak\r\n| forged | row |",
    "@octocat and @org/team",
    "#1 and owner/repo#2",
    "\x1b[31mred\x07\u202eevil",
    "*em* _em_ ~~s~~ [link](javascript:alert(1)) ![img](x) $x^2$",
    "&lt; &#64;user \\| \\",
    "<!-- comment --> <details>",
]
DELIMITER = re.compile(r"^\|(?:\s*:?-+:?\s*\|)+$")
# What a page may hold that GitHub would act on: raw HTML but the <details> tpuemb writes, a
# mention or issue reference, an unescaped code span.
RAW_HTML = re.compile(r"<(?!/?(?:details|summary)>)[A-Za-z/!?]")
MENTION = re.compile(r"(?<![\w`&])[@#][A-Za-z0-9]")


def split(line: str) -> list[str]:
    """A table row's cells, split as GFM splits them: at each `|` not escaped."""
    cells, cell, escaped = [], "", False
    for char in line.strip(" ")[1:-1]:
        if char == "|" and not escaped:
            cells.append(cell.strip(" "))
            cell = ""
            continue
        cell += char
        escaped = char == "\\" and not escaped
    return [*cells, cell.strip(" ")]


def shown(cell: str) -> str:
    """A cell's text as GitHub shows it: the zero-width breaks, escapes and entities undone."""
    return html.unescape(re.sub(r"\\(.)", r"\1", cell.replace("&#8203;", "")))


def tables(page: str) -> list[list[dict[str, str]]]:
    """Every table of ``page``: its rows as {column: shown cell}, in order."""
    lines = page.split("\n")
    found = []
    for index, line in enumerate(lines):
        if index and DELIMITER.match(line) and lines[index - 1].startswith("| "):
            columns = [shown(cell) for cell in split(lines[index - 1])]
            rows = []
            for body in lines[index + 1 :]:
                if not body.startswith("| "):
                    break
                cells = split(body)
                assert len(cells) == len(columns), body
                rows.append(dict(zip(columns, map(shown, cells), strict=True)))
            found.append(rows)
    return found


def within_limits(page: str) -> None:
    """A page GitHub takes as a comment and a step summary, that pings nobody and runs no HTML."""
    assert len(page.encode()) <= LIMIT
    # tpuemb's own words (the rules' documentation) quote code: what is in it is not acted on.
    outside_code = re.sub(r"```.*?```", "", page.replace("\\`", ""), flags=re.DOTALL)
    outside_code = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", outside_code, flags=re.DOTALL)
    assert not RAW_HTML.search(outside_code), RAW_HTML.search(outside_code)
    assert not MENTION.search(outside_code), MENTION.search(outside_code)
