"""Where the cursor is in a document's schema: the field names enclosing it, and whether it is on
a field's name or its value (the language server's hover and completion ask).

Completion is asked for while the user types, so the text usually does not parse: the source map
is no help. The text before the cursor is scanned instead, forgivingly -- text format by its
braces, YAML by its indentation and then its flow braces on the cursor's line. The tokens are the
text-format tokenizer's (``text_tokenizer.TOKEN``: its strings, comments and words), read as
half-typed text needs: the pieces of a word that is not one yet run together, and a bracketed
name on one line (``[type.googleapis.com/T]``) is one word. Repeated fields' indexes do not
matter here: the schema is the same for every element.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from tpuemb_cli.load.text_tokenizer import COMMENT, IDENT, NUMBER, SYMBOL, TOKEN

# The symbols that give text format (and YAML's flow style) its structure; any other symbol is
# part of a word, however ill-formed.
_STRUCTURE = frozenset("{}<>:[],;")
_BRACKETED = 0  # the kind of a bracketed name, as _pieces yields it
_WORD = re.compile(r"[\w.-]*")


class Context(NamedTuple):
    """The cursor's place: ``path`` names the enclosing fields from the root; ``key`` is the
    field whose value the cursor is on (None when the cursor is where a field name goes);
    ``prefix`` is what is typed of the word so far."""

    path: tuple[str, ...]
    key: str | None
    prefix: str


def _pieces(text: str) -> Iterator[tuple[int, int, int]]:
    """The tokenizer's tokens of ``text`` as (kind, start, end), but a ``[`` closed on its line:
    that is one bracketed name, up to the first ``]``."""
    offset = 0
    while True:
        for match in TOKEN.finditer(text, offset):
            kind = match.lastindex
            if kind is None:  # the end of the text
                return
            start, end = match.span(kind)
            if kind == SYMBOL and text[start] == "[":
                line_end = text.find("\n", end)
                close = text.find("]", end, len(text) if line_end < 0 else line_end)
                if close >= 0:
                    yield _BRACKETED, start, close + 1
                    offset = close + 1
                    break  # go on after the name
            yield kind, start, end
        else:
            return


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """The tokens the cursor reads, as (text, start, end): strings, structure, bracketed names and
    words, each word the touching identifiers, numbers and other symbols (``gs://a/b``, a
    half-typed ``foo.``); comments are left out."""
    tokens: list[tuple[str, int, int]] = []
    word_end = -1  # where the last word ends: a piece that starts there goes on with it
    for kind, start, end in _pieces(text):
        if kind == COMMENT:
            continue
        if kind in (IDENT, NUMBER) or (kind == SYMBOL and text[start] not in _STRUCTURE):
            if start == word_end:
                begin = tokens[-1][1]
                tokens[-1] = (text[begin:end], begin, end)
            else:
                tokens.append((text[start:end], start, end))
            word_end = end
        else:
            tokens.append((text[start:end], start, end))
    return tokens


def _scan(text: str, path: list[str]) -> Context:
    """Follows ``text`` (everything before the cursor) from a place where a field name goes,
    inside the fields ``path`` names."""
    tokens = _tokens(text)
    prefix = ""
    if tokens and tokens[-1][2] == len(text) and _WORD.fullmatch(tokens[-1][0]):
        prefix = tokens.pop()[0]  # the word being typed
    # What each open bracket is: a message (with the field it is the value of, if named) or a
    # list (of the values of a field).
    stack: list[tuple[str, str | None]] = []
    pending: str | None = None  # a field name just written
    key: str | None = None  # the field whose value comes next (after `name:`, or in a list)
    expecting_key = True
    colon_end = 0  # where the last `:` ends

    def reset() -> None:
        nonlocal pending, key, expecting_key
        pending, key, expecting_key = None, None, True
        if stack and stack[-1][0] == "list":
            key, expecting_key = stack[-1][1], False

    for token, _start, end in tokens:
        if token in ("{", "<"):
            name = key if key is not None else pending
            stack.append(("message", name))
            if name is not None:
                path.append(name)
            pending, key, expecting_key = None, None, True
        elif token in ("}", ">", "]"):
            if stack:
                kind, name = stack.pop()
                if kind == "message" and name is not None and path:
                    path.pop()
            reset()
        elif token == "[":
            stack.append(("list", key if key is not None else pending))
            key, expecting_key = stack[-1][1], False
        elif token == ":":
            key, expecting_key, colon_end = pending, False, end
        elif token in (",", ";"):
            reset()
        elif expecting_key:
            pending, key, expecting_key = token, None, False
        elif key is None and pending is not None and token not in ("{", "<"):
            reset()  # `name value`: a scalar field without its colon
        elif not (stack and stack[-1][0] == "list"):
            reset()  # the value ends the field
    if key is not None and prefix and "\n" in text[colon_end : len(text) - len(prefix)]:
        # `name:` with its value still to write, and a word typed on a line of its own below:
        # text format would read it as the value, but the user is starting another field.
        return Context(tuple(path), None, prefix)
    if key is not None:
        return Context(tuple(path), key, prefix)
    if not expecting_key and pending is not None:
        # `name |`: its value follows (text format lets a message field omit the colon)
        return Context(tuple(path), pending, prefix)
    return Context(tuple(path), None, prefix)


def text_format_context(text: str, offset: int) -> Context:
    """The cursor's place in text format, ``offset`` characters into ``text``."""
    return _scan(text[:offset], [])


_YAML_KEY = re.compile(r"(?P<indent>[ ]*(?:-[ ]+)*)(?P<key>[\w.-]+)[ \t]*:(?P<rest>.*)\Z")


def _yaml_indent(line: str) -> int:
    """The column where a line's content starts; a list item's `- ` counts as indentation."""
    match = re.match(r"[ ]*(?:-[ ]+)*", line)
    return match.end() if match else 0


def _blank(rest: str) -> bool:
    stripped = rest.strip()
    return not stripped or stripped.startswith("#")


def yaml_context(text: str, offset: int) -> Context:
    """The cursor's place in a YAML document (block style, and flow mappings on its line)."""
    line_start = text.rfind("\n", 0, offset) + 1
    line = text[line_start:offset]
    limit = _yaml_indent(line)
    path: list[str] = []
    # Up through the lines above: a key indented less than everything seen so far encloses the
    # cursor; a list item's dash is where its element starts.
    for above in reversed(text[:line_start].split("\n")):
        if limit == 0:
            break
        stripped = above.strip()
        if not stripped or stripped.startswith("#") or stripped == "---":
            continue
        content = _yaml_indent(above)
        dash = above.find("-") if above.lstrip().startswith("-") else -1
        match = _YAML_KEY.match(above)
        if match is None:
            if content < limit or stripped == "-":
                limit = min(limit, dash if dash >= 0 else content)
            continue
        if content >= limit:
            continue
        if _blank(match.group("rest")):
            path.insert(0, match.group("key"))
        limit = dash if dash >= 0 else content
    return _scan(line[_yaml_indent(line) :], path)
