"""Protobuf text format, split into tokens: what the parser, the text editor and the sniffer read.

The token grammar is protobuf's (``text_format.Tokenizer``), so the words found here are the ones
TensorFlow finds. Tokens are tuples, not objects: a large config has millions of them, and the
parser's hot loop compares their fields directly.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from google.protobuf import text_encoding

from tpuemb_cli.load.source import Span

# One pass over the text; each match is the whitespace before a token (skipped within the match,
# which halves the matches to loop over) and the token. Group 1: a comment; 2: identifier;
# 3: number; 4: string (possibly unterminated); 5: any other non-space character, a symbol; or
# the end of the text, so that trailing whitespace is one match (without it, the regex would
# backtrack through the whitespace at every position: quadratic). Identifiers and numbers are
# those of protobuf's tokenizer (text_format.Tokenizer.TOKEN).
TOKEN = re.compile(
    r"""\s*
      (?:(\#[^\n]*)
      |([a-zA-Z_][0-9a-zA-Z_+-]*)
      |((?:[0-9+-]|\.[0-9])[0-9a-zA-Z_.+-]*)
      |("[^"\n\\]*(?:\\.[^"\n\\]*)*(?:"|\\?$)|'[^'\n\\]*(?:\\.[^'\n\\]*)*(?:'|\\?$))
      |(\S)
      |\Z)""",
    re.VERBOSE | re.MULTILINE,
)
# Token kinds: the regex group that matched.
COMMENT, IDENT, NUMBER, STRING, SYMBOL = 1, 2, 3, 4, 5
WORDS = (IDENT, NUMBER)
END = 0  # kind of the sentinel token past the end of the input

Token = tuple[int, str, int, int]  # kind, text, start offset, end offset

# The parser tokenizes this many matches at a time, so that its tokens take memory in proportion
# to a chunk, not to the file (however long its lines).
_CHUNK = 4096
# Tokens the parser may read or consume between two checks that more are needed: a field's name,
# `:`, a value of up to a few tokens, a separator, and two tokens of lookahead.
_MARGIN = 16
NEVER = 1 << 62


class TextSyntaxError(Exception):
    """A syntax error at ``span``: it stops the parse."""

    def __init__(self, message: str, span: Span, fix: str = "") -> None:
        super().__init__(message)
        self.span = span
        self.fix = fix


def _tokenize_some(
    matches: Iterator[re.Match[str]],
    text: str,
    count: int,
    comments: list[tuple[int, str]],
    tokens: list[Token],
) -> bool:
    """Appends the significant tokens of the next ``count`` matches to ``tokens`` (comments go to
    ``comments``); False when the text has ended."""
    append = tokens.append
    for match in islice(matches, count):
        kind = match.lastindex
        if kind is None:  # the end: the pattern matches it once, always
            return False
        begin, end = match.span(kind)
        if kind == 1:
            comments.append((begin, text[begin:end]))
            continue
        append((kind, text[begin:end], begin, end))
    return True


def _end_sentinels(text: str) -> tuple[Token, Token, Token]:
    # Three: the parser looks up to two tokens ahead without bounds checks.
    end = (END, "", len(text), len(text))
    return end, end, end


def tokenize(text: str, comments: list[tuple[int, str]]) -> list[Token]:
    """Every significant token of ``text``, then end sentinels; comments go to ``comments``."""
    tokens: list[Token] = []
    _tokenize_some(TOKEN.finditer(text), text, NEVER, comments, tokens)
    tokens.extend(_end_sentinels(text))
    return tokens


def first_token_start(text: str) -> int:
    """The offset of the first token that is not a comment (the length of the text if none)."""
    for match in TOKEN.finditer(text):
        kind = match.lastindex
        if kind is None:
            break
        if kind != 1:
            return match.start(kind)
    return len(text)


def proto_message_header(text: str) -> str | None:
    """The type named by a ``# proto-message: T`` comment before the first field, if any."""
    # Line by line up to the first field (not text.splitlines(), which splits the whole file).
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start)
        end = size if end < 0 else end
        stripped = text[start:end].strip()
        start = end + 1
        if not stripped:
            continue
        if not stripped.startswith("#"):
            return None
        body = stripped[1:].strip()
        if body.startswith("proto-message:"):
            return body[len("proto-message:") :].strip() or None
    return None


class TokenWindow:
    """A window on the tokens of ``text``, refilled in place (``_more``) as a reader consumes
    them; ``pos`` indexes it. Past ``refill_at``, fewer than _MARGIN tokens are left in it. With
    the reads protobuf's tokenizer offers its parser: a symbol, maybe or for sure; string literals.

    The parser is a subclass rather than a holder of a window: it reads ``self.tokens[self.pos]``
    in its hottest loop, and one more attribute lookup there costs measurably on large files.
    """

    def __init__(self, text: str, comments: list[tuple[int, str]]) -> None:
        self.text = text
        self.comments = comments
        self.tokens: list[Token] = []
        self.pos = 0
        self.matches: Iterator[re.Match[str]] | None = TOKEN.finditer(text)  # None: all read
        self.refill_at = -1
        self.chunk = _CHUNK  # matches per refill; smaller just after a restart
        self._more()

    def restart(self, offset: int, previous: Token) -> None:
        """Goes on reading at ``offset``, as if ``previous`` (whose end offset the parser may
        read) were the last token consumed. The window is refilled a little at first and more
        each time, so that restarting often (after each short run skipped) does not tokenize a
        full chunk each time only to drop it."""
        self.tokens[:] = [previous]  # in place: the parser's frames hold the list
        self.pos = 1
        self.matches = TOKEN.finditer(self.text, offset)
        self.chunk = _MARGIN * 2
        self._more()

    def _more(self) -> None:
        """Drops the tokens consumed (but the last, whose end offset the parser may read) and
        tokenizes a chunk at a time until _MARGIN tokens are ahead or the text ends."""
        tokens = self.tokens
        drop = self.pos - 1
        if drop > 0:
            del tokens[:drop]
            self.pos -= drop
        comments = self.comments
        while len(tokens) - self.pos < _MARGIN * 2:
            chunk = self.chunk
            if chunk < _CHUNK:
                self.chunk = chunk * 2
            if self.matches is None or not _tokenize_some(
                self.matches, self.text, chunk, comments, tokens
            ):
                self.matches = None
                tokens.extend(_end_sentinels(self.text))
                self.refill_at = NEVER  # the end is in the window
                return
        self.refill_at = len(tokens) - _MARGIN

    def finish(self) -> None:
        """Collects the comments of any text the parse did not reach (after a syntax error)."""
        scratch: list[Token] = []
        if self.matches is not None:
            while _tokenize_some(self.matches, self.text, _CHUNK, self.comments, scratch):
                scratch.clear()
            self.matches = None

    # -- reading tokens: protobuf's Tokenizer.TryConsume, Consume and ConsumeByteString ---------
    def _expected(self, what: str) -> TextSyntaxError:
        kind, text, start, end = self.tokens[self.pos]
        found = "end of input" if kind == END else f"`{text}`"
        return TextSyntaxError(f"expected {what}, found {found}", (start, end if kind else start))

    def _try(self, symbol: str) -> bool:
        token = self.tokens[self.pos]
        if token[0] == SYMBOL and token[1] == symbol:
            self.pos += 1
            return True
        return False

    def _consume(self, symbol: str, what: str | None = None) -> Token:
        token = self.tokens[self.pos]
        if token[0] == SYMBOL and token[1] == symbol:
            self.pos += 1
            return token
        raise self._expected(what or f"`{symbol}`")

    def _string_bytes(self, name: str) -> bytes:
        """The content of the adjacent string literals ahead, which protobuf concatenates."""
        parts: list[bytes] = []
        while True:
            if self.pos > self.refill_at:
                self._more()
            kind, text, start, end = self.tokens[self.pos]
            if kind != STRING:
                if parts:
                    return b"".join(parts)
                raise self._expected(f"a string for `{name}`")
            if len(text) < 2 or text[-1] != text[0]:
                raise TextSyntaxError("string is missing its closing quote", (start, end))
            try:
                parts.append(text_encoding.CUnescape(text[1:-1]))
            except UnicodeEncodeError as error:
                # A \u escape of a UTF-16 surrogate (protobuf's unescaping refuses even a pair).
                escape = f"\\u{ord(error.object[error.start]):04x}"
                raise TextSyntaxError(
                    f"bad escape in string: `{escape}` is half of a UTF-16 surrogate pair, not a "
                    "character; protobuf's text format refuses it (write the character itself, "
                    "or `\\U` and its eight hex digits)",
                    (start, end),
                ) from None
            except ValueError as error:
                raise TextSyntaxError(f"bad escape in string: {error}", (start, end)) from None
            self.pos += 1
