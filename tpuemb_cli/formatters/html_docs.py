"""A rule's documentation (its module's docstring, Markdown) as HTML for the HTML report: the
few constructs the docstrings use -- ``##`` sections, fenced code, lists, paragraphs, inline
code and links -- and nothing else. Everything is escaped first; a link is kept only when it
is an ``https`` address (the report opens offline; a link is followed only when clicked)."""

from __future__ import annotations

import html
import re

_CODE = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"\[([^\]]+)\]\((https://[^)\s\"]+)\)")
_BARE_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def inline(line: str) -> str:
    """One line of prose: escaped, with its inline code and links."""
    escaped = _CODE.sub(r"<code>\1</code>", html.escape(line, quote=True))
    linked = _LINK.sub(r'<a href="\2" rel="noreferrer">\1</a>', escaped)
    return _BARE_LINK.sub(r"\1", linked)  # a link to a repository file: its words alone


def to_html(doc: str) -> str:
    """The documentation as HTML blocks."""
    out: list[str] = []
    paragraph: list[str] = []
    items: list[list[str]] = []
    code: list[str] | None = None

    def close() -> None:
        if paragraph:
            if all(p.lstrip().startswith("|") for p in paragraph):  # a table, as written
                out.append(f"<pre>{html.escape(chr(10).join(paragraph))}</pre>")
            else:
                out.append("<p>" + " ".join(inline(p) for p in paragraph) + "</p>")
            paragraph.clear()
        if items:
            lis = "".join("<li>" + " ".join(inline(p) for p in item) + "</li>" for item in items)
            out.append(f"<ul>{lis}</ul>")
            items.clear()

    for line in doc.strip().splitlines():
        if code is not None:
            if line.strip().startswith("```"):
                out.append(f"<pre><code>{html.escape(chr(10).join(code))}</code></pre>")
                code = None
            else:
                code.append(line)
        elif line.strip().startswith("```"):
            close()
            code = []
        elif line.startswith("#"):
            close()
            out.append(f"<h4>{inline(line.lstrip('#').strip())}</h4>")
        elif not line.strip():
            close()
        elif line.lstrip().startswith(("- ", "* ")):
            if paragraph:
                close()
            items.append([line.lstrip()[2:]])
        elif items and line.startswith(" "):
            items[-1].append(line.strip())
        else:
            if items:
                close()
            paragraph.append(line)
    if code is not None:  # an unclosed fence: what it holds, still as code
        out.append(f"<pre><code>{html.escape(chr(10).join(code))}</code></pre>")
    close()
    return "".join(out)
