"""Where the cursor is in a document's schema: the field names enclosing it, whether it is on a
field's name or its value, and the names already written beside it (the language server's hover
and completion ask).

Completion is asked for while the user types, so the text usually does not parse: the source map
is no help. The text is scanned instead, forgivingly -- text format and JSON by their braces,
YAML by its indentation and then its flow braces. The tokens are the text-format tokenizer's
(``text_tokenizer.TOKEN``: its strings, comments and words; JSON's tokens are a subset of them),
read as half-typed text needs: the pieces of a word that is not one yet run together, a
bracketed name on one line (``[type.googleapis.com/T]``) is one word, and in JSON a string left
open at the cursor is the word being typed. Names are returned as written (JSON and YAML may use
a field's JSON name). Repeated fields' indexes do not matter here: the schema is the same for
every element.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from tpuemb_cli.load.text_tokenizer import COMMENT, IDENT, NUMBER, SYMBOL, TOKEN

# The symbols that give text format (and JSON, and YAML's flow style) its structure; any other
# symbol is part of a word, however ill-formed.
_STRUCTURE = frozenset("{}<>:[],;")
_OPENS, _CLOSES = frozenset("{<["), frozenset("}>]")
_BRACKETED = 0  # the kind of a bracketed name, as _pieces yields it
_WORD = re.compile(r"[\w.-]*")


class Context(NamedTuple):
    """The cursor's place: ``path`` names the enclosing fields from the root; ``key`` is the
    field whose value the cursor is on (None when the cursor is where a field name goes);
    ``prefix`` is what is typed of the word so far. ``written`` holds the names already written
    in the cursor's message, before and after it (not the word being typed); ``span`` is the
    word a completion replaces (the whole word around the cursor, with its quotes in JSON, and
    a name's colon if one follows)."""

    path: tuple[str, ...]
    key: str | None
    prefix: str
    written: frozenset[str] = frozenset()
    span: tuple[int, int] = (0, 0)


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


def _name(token: str) -> str:
    """A name as written: a quoted one (JSON's keys) without its quotes."""
    if len(token) >= 2 and token[0] in "\"'" and token[-1] == token[0]:
        return token[1:-1]
    return token


def _open_string(token: str) -> bool:
    """Whether a string token is left open (the tokenizer's strings may run to the line's end)."""
    if token[:1] not in ("'", '"'):
        return False
    if len(token) < 2 or token[-1] != token[0]:
        return True
    inside = token[1:-1]
    return (len(inside) - len(inside.rstrip("\\"))) % 2 == 1  # the last quote is escaped


def _scan(text: str, path: list[str], strings: bool = False) -> tuple[Context, str]:
    """Follows ``text`` (everything before the cursor) from a place where a field name goes,
    inside the fields ``path`` names; the context (its ``written``: the names before the cursor in
    its message) and the quote the word being typed opened. ``strings``: a string left open at
    the end is the word being typed (JSON, whose names and enum values are strings)."""
    tokens = _tokens(text)
    prefix = quote = ""
    if tokens and tokens[-1][2] == len(text):
        last = tokens[-1][0]
        if _WORD.fullmatch(last):
            prefix = tokens.pop()[0]  # the word being typed
        elif strings and _open_string(last):
            tokens.pop()
            prefix, quote = last[1:], last[0]
    # What each open bracket is: a message (with the field it is the value of, if named, and the
    # names written in it) or a list (of the values of a field).
    top: set[str] = set()
    stack: list[tuple[str, str | None, set[str]]] = []
    pending: str | None = None  # a field name just written
    key: str | None = None  # the field whose value comes next (after `name:`, or in a list)
    expecting_key = True
    colon_end = 0  # where the last `:` ends

    def names() -> set[str]:
        return next((found for kind, _, found in reversed(stack) if kind == "message"), top)

    def reset() -> None:
        nonlocal pending, key, expecting_key
        pending, key, expecting_key = None, None, True
        if stack and stack[-1][0] == "list":
            key, expecting_key = stack[-1][1], False

    previous = ""
    for token, _start, end in tokens:
        if token == ":" and pending is None and previous and previous not in _STRUCTURE:
            # `name value name:` (a comma or a colon not typed yet): the word before is the name
            pending = _name(previous)
            names().add(pending)
        previous = token
        if token in ("{", "<"):
            name = key if key is not None else pending
            stack.append(("message", name, set()))
            if name is not None:
                path.append(name)
            pending, key, expecting_key = None, None, True
        elif token in _CLOSES:
            if stack:
                kind, name, _ = stack.pop()
                if kind == "message" and name is not None and path:
                    path.pop()
            reset()
        elif token == "[":
            stack.append(("list", key if key is not None else pending, set()))
            key, expecting_key = stack[-1][1], False
        elif token == ":":
            key, expecting_key, colon_end = pending, False, end
        elif token in (",", ";"):
            reset()
        elif expecting_key:
            pending, key, expecting_key = _name(token), None, False
            names().add(pending)
        elif key is None and pending is not None:
            reset()  # `name value`: a scalar field without its colon
        elif not (stack and stack[-1][0] == "list"):
            reset()  # the value ends the field
    written = frozenset(names())

    def context(key: str | None) -> tuple[Context, str]:
        return Context(tuple(path), key, prefix, written), quote

    if (
        not strings
        and key is not None
        and prefix
        and "\n" in text[colon_end : len(text) - len(prefix)]
    ):
        # `name:` with its value still to write, and a word typed on a line of its own below:
        # text format would read it as the value, but the user is starting another field.
        return context(None)
    if key is not None:
        return context(key)
    if not expecting_key and pending is not None:
        # `name |`: its value follows (text format lets a message field omit the colon)
        return context(pending)
    return context(None)


_COLON = re.compile(r"[ \t]*:[ \t]*")


def _span(text: str, offset: int, prefix: str, quote: str, name: bool) -> tuple[int, int]:
    """The word around the cursor: what is typed of it (and the quote it opened), and the rest of
    it after the cursor (and the quote that closes it); for a ``name``, the colon after it too,
    which a completion writes again."""
    rest = _WORD.match(text, offset)
    end = rest.end() if rest is not None else offset
    if quote and text.startswith(quote, end):
        end += 1
    colon = _COLON.match(text, end) if name else None
    return offset - len(prefix) - len(quote), colon.end() if colon is not None else end


def _written_after(text: str, start: int) -> set[str]:
    """The names written from ``start`` to the end of the message it is in: each word (or
    string) followed by `:` or an opening brace, at the message's own depth."""
    found: set[str] = set()
    depth = 0
    tokens = _tokens(text[start:])
    for index, (token, _start, _end) in enumerate(tokens):
        if token in _OPENS:
            depth += 1
        elif token in _CLOSES:
            depth -= 1
            if depth < 0:
                break
        elif (
            depth == 0
            and token not in _STRUCTURE
            and index + 1 < len(tokens)
            and tokens[index + 1][0] in (":", "{", "<")
        ):
            found.add(_name(token))
    return found


def _braced(text: str, offset: int, strings: bool) -> Context:
    context, quote = _scan(text[:offset], [], strings)
    span = _span(text, offset, context.prefix, quote, context.key is None)
    written = context.written
    if context.key is None:
        written |= _written_after(text, span[1])
    return context._replace(written=written, span=span)


def text_format_context(text: str, offset: int) -> Context:
    """The cursor's place in text format, ``offset`` characters into ``text``."""
    return _braced(text, offset, strings=False)


def json_context(text: str, offset: int) -> Context:
    """The cursor's place in JSON, ``offset`` characters into ``text``: as in text format (JSON's
    tokens are a subset of its), a string left open at the cursor being the word typed."""
    return _braced(text, offset, strings=True)


_YAML_KEY = re.compile(r"(?P<indent>[ ]*(?:-[ ]+)*)(?P<key>[\w.-]+)[ \t]*:(?P<rest>.*)\Z")


def _yaml_indent(line: str) -> int:
    """The column where a line's content starts; a list item's `- ` counts as indentation."""
    match = re.match(r"[ ]*(?:-[ ]+)*", line)
    return match.end() if match else 0


def _blank(rest: str) -> bool:
    stripped = rest.strip()
    return not stripped or stripped.startswith("#")


def _skipped(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#") or stripped == "---"


def _dash(line: str) -> int:
    """The column of a list item's dash, -1 on a line that starts no item."""
    stripped = line.lstrip()
    return len(line) - len(stripped) if stripped.startswith("-") else -1


def _yaml_path(lines: list[str], limit: int) -> list[str]:
    """The keys that enclose content at column ``limit`` below ``lines``, from the root."""
    path: list[str] = []
    # Up through the lines above: a key indented less than everything seen so far encloses the
    # cursor; a list item's dash is where its element starts.
    for above in reversed(lines):
        if limit == 0:
            break
        if _skipped(above):
            continue
        content, dash = _yaml_indent(above), _dash(above)
        match = _YAML_KEY.match(above)
        if match is None:
            if content < limit or above.strip() == "-":
                limit = min(limit, dash if dash >= 0 else content)
            continue
        if content >= limit:
            continue
        if _blank(match.group("rest")):
            path.insert(0, match.group("key"))
        limit = dash if dash >= 0 else content
    return path


def _yaml_siblings(above: list[str], below: list[str], column: int, item: bool) -> set[str]:
    """The keys at ``column`` in the block mapping between ``above`` and ``below`` (the lines
    before and after the cursor's); ``item``: the cursor's line starts a list item, so nothing
    above it is in its mapping."""
    found: set[str] = set()
    for line in [] if item else reversed(above):
        if _skipped(line):
            continue
        content, match = _yaml_indent(line), _YAML_KEY.match(line)
        if content < column:
            break
        if content == column and match is not None:
            found.add(match.group("key"))
        if content == column and 0 <= _dash(line) < column:
            break  # the item's first line
    for line in below:
        if _skipped(line):
            continue
        content, match = _yaml_indent(line), _YAML_KEY.match(line)
        if content < column or 0 <= _dash(line) < column:
            break  # the mapping ends, or the next item starts
        if content == column and match is not None:
            found.add(match.group("key"))
    return found


def _flow_start(text: str, offset: int) -> int | None:
    """Where the YAML flow collection the cursor is in opens (its outermost bracket left open
    before the cursor); None in block style. Anything at the start of a line ends a flow: YAML
    reads no flow collection there, and a stray bracket (in a block scalar) must not take the
    rest of the document with it."""
    depth, start = 0, None
    for token, begin, _end in _tokens(text[:offset]):
        if begin == 0 or text[begin - 1] == "\n":
            depth, start = 0, None
        if token in ("{", "["):
            if depth == 0:
                start = begin
            depth += 1
        elif token in ("}", "]") and depth > 0:
            depth -= 1
            if depth == 0:
                start = None
    return start


def yaml_context(text: str, offset: int) -> Context:
    """The cursor's place in a YAML document: block style by indentation, and the flow
    collections (on one line or several) by their brackets."""
    flow = _flow_start(text, offset)
    line_start = text.rfind("\n", 0, offset if flow is None else flow) + 1
    line_end = text.find("\n", offset)
    lines = text[:line_start].split("\n")[:-1]
    column = _yaml_indent(text[line_start:offset])
    path = _yaml_path(lines, column)
    context, _ = _scan(text[line_start + column : offset], path)
    span = _span(text, offset, context.prefix, "", context.key is None)
    if flow is not None:
        after = _written_after(text, span[1]) if context.key is None else set()
        written = context.written | after
    else:
        below = [] if line_end < 0 else text[line_end + 1 :].split("\n")
        item = _dash(text[line_start:offset]) >= 0
        written = context.written | _yaml_siblings(lines, below, column, item)
    return context._replace(written=frozenset(written), span=span)
