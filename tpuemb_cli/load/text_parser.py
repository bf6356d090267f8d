"""Protobuf text format, parsed with the position of every field.

protobuf's own ``text_format.Parse`` keeps no positions, so we parse the text ourselves and build
the message as we go. The tokens are protobuf's (``text_tokenizer``), values are converted by
protobuf's own functions (``text_values``; strings by ``CUnescape``), so what parses here parses
in TensorFlow and means the same. Where protobuf stops at the first semantic error (an unknown
field, a misspelled enum name, two members of a oneof, a value out of range, a field given
twice), we record a problem, skip that field and go on, so one run reports them all. A syntax
error stops the parse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from tpuemb_cli.load.source import Span
from tpuemb_cli.load.text_tokenizer import (
    END,
    IDENT,
    NUMBER,
    STRING,
    SYMBOL,
    WORDS,
    TextSyntaxError,
    Token,
    TokenWindow,
)
from tpuemb_cli.load.text_values import BadValue, simple_scalars, string_value, word_value
from tpuemb_cli.model.paths import FieldPath, render
from tpuemb_cli.model.pbcompat import is_map_entry, is_repeated

if TYPE_CHECKING:
    from tpuemb_cli.load.problems import LoadProblem


class ParsedText:
    """The result of parsing: the message, the spans of its fields, comments and problems."""

    def __init__(self) -> None:
        self.spans: dict[FieldPath, Span] = {}
        # (start offset, text) of every comment, for suppressions and the proto-message header.
        self.comments: list[tuple[int, str]] = []
        self.problems: list[LoadProblem] = []


class _Wanted(dict):  # type: ignore[type-arg]
    """Only the spans of some paths kept: the few a large file's findings point at, or none (the
    first parse of a file needs none unless there is a finding)."""

    def __init__(self, wanted: frozenset[FieldPath]) -> None:
        super().__init__()
        self.wanted = wanted
        # How many wanted paths have no span yet (the root never has one).
        self.missing = len(wanted) - (() in wanted)

    def __setitem__(self, key: FieldPath, value: Span) -> None:
        if key in self.wanted:
            if key not in self:
                self.missing -= 1
            super().__setitem__(key, value)


class _Parser(TokenWindow):
    def __init__(
        self, text: str, result: ParsedText, max_depth: int, keep_spans: bool | frozenset[FieldPath]
    ) -> None:
        self.result = result
        # The paths looked for (with their ancestors), when looking for a few.
        self.wanted: frozenset[FieldPath] | None = None
        # False: no span is kept, and the hot paths skip even building the keys.
        self.keeping = keep_spans is not False
        self.looking: _Wanted | None = None  # the spans found, when looking for a few
        if keep_spans is False:
            result.spans = _Wanted(frozenset())
        elif keep_spans is not True:
            result.spans = self.looking = _Wanted(keep_spans)
            self.wanted = keep_spans
        # For each path, the names wanted just under it; the paths with wanted paths further
        # down (``text_skipping.scan_element`` finds the spans of an element's own fields only).
        self.children: dict[FieldPath, set[str | int]] = {}
        self.deep: set[FieldPath] = set()
        for wanted_path in self.wanted or ():
            if wanted_path:
                self.children.setdefault(wanted_path[:-1], set()).add(wanted_path[-1])
            if len(wanted_path) > 1:
                self.deep.add(wanted_path[:-2])
        self.map_entries = False  # whether a map entry was read
        self.max_depth = max_depth
        super().__init__(text, result.comments)

    def _too_deep(self) -> TextSyntaxError:
        _, _, start, end = self.tokens[self.pos]
        return TextSyntaxError(
            f"nesting deeper than {self.max_depth} levels (protobuf's recursion limit)",
            (start, end),
            "no valid config nests this deep",
        )

    # -- messages ------------------------------------------------------------------------------
    def parse(self, message: Message) -> None:
        self._message_body(message, (), None, 0)

    def _unclosed(self, opener: Token, path: FieldPath) -> TextSyntaxError:
        """The end of the input inside a message. Placed where protobuf places it, at the last
        token (after it, on a line of its own or past the last line, would point at nothing the
        user wrote), and naming the line of the brace that is never closed."""
        close = ">" if opener[1] == "<" else "}"
        line = self.text.count("\n", 0, opener[2]) + 1
        what = f"`{render(path)}`" if path else "the map entry"
        _, _, start, end = self.tokens[self.pos - 1]
        return TextSyntaxError(
            f"expected `{close}` to close {what}, opened with `{opener[1]}` on line {line}, "
            "found end of input",
            (start, end),
            f"add the missing `{close}` (the `{opener[1]}` on line {line} is never closed)",
        )

    def _message_body(
        self, message: Message, path: FieldPath, opener: Token | None, depth: int
    ) -> int:
        """Parses fields until the closer of ``opener`` (without one: the end); returns the end
        offset of the closer."""
        if depth > self.max_depth:
            raise self._too_deep()
        close = None if opener is None else ">" if opener[1] == "<" else "}"
        descriptor = message.DESCRIPTOR
        fields = descriptor.fields_by_name
        simple = simple_scalars(descriptor)
        tokens = self.tokens
        spans = self.result.spans
        keeping = self.keeping
        seen: set[str] = set()
        while True:
            if self.pos > self.refill_at:
                self._more()
            kind, name, start, end = tokens[self.pos]
            # Fast path for the common case, `name: value` of a singular scalar outside a oneof.
            # Anything unusual (an error, a string, a list) falls through to the general path.
            convert = simple.get(name)
            if convert is not None and name not in seen:
                colon, value = tokens[self.pos + 1], tokens[self.pos + 2]
                if colon[1] == ":" and colon[0] == SYMBOL and value[0] in WORDS:
                    try:
                        converted = convert(value[1])
                    except ValueError:
                        pass
                    else:
                        setattr(message, name, converted)
                        if keeping:
                            spans[path + (name,)] = (start, value[3])
                        seen.add(name)
                        self.pos += 3
                        separator = tokens[self.pos]
                        if separator[0] == SYMBOL and separator[1] in ",;":
                            self.pos += 1
                        continue
            if (
                self.wanted is not None
                and kind == IDENT
                and self._fast_forward(message, path, seen)
            ):
                continue
            if kind == SYMBOL and name == close:
                self.pos += 1
                return end
            if kind == END:
                if opener is None:
                    return end
                raise self._unclosed(opener, path)
            if kind != IDENT:
                if kind == SYMBOL and name == "[":
                    raise TextSyntaxError(
                        f"extensions and Any type URLs are not part of {descriptor.name}",
                        (start, end),
                    )
                raise self._expected("a field name")
            self.pos += 1
            field = fields.get(name)
            if field is None:
                from tpuemb_cli.load.problems import unknown_field  # only for a problem

                self.result.problems.append(
                    unknown_field(descriptor, name, path + (name,), (start, end))
                )
                self._skip_field_value(depth)
            else:
                self._field(message, field, path, (start, end), seen, depth)
            if not self._try(","):
                self._try(";")

    def _fast_forward(self, message: Message, path: FieldPath, seen: set[str]) -> bool:
        """Looking for a few paths: passes over the message fields ahead that are not on their way
        by their braces alone (``text_skipping``), counting repeated elements and marking singular
        ones set, as the token-by-token skip does, and over the repeated elements whose wanted
        paths are their own and their scalar fields', recording the spans the parse would
        (``text_skipping.scan_element``); False when there is none to pass.

        Going on after a pass costs a window of tokens (``restart``): placing the 10,000 renamed
        tables of a config (each table's name wanted) took 0.6 s when each wanted table was read
        token by token, most of it in those windows."""
        # Imported here: only a second, partial parse (a file with findings) skips this way.
        from tpuemb_cli.load.text_skipping import (
            after_separator,
            body_end,
            message_head,
            scan_element,
        )

        text, wanted, spans = self.text, self.wanted, self.result.spans
        assert wanted is not None
        if (
            not path
            and self.looking is not None
            and not self.looking.missing
            and not self.map_entries
        ):
            # Every wanted span is recorded, and nothing after changes one (a second value of a
            # singular field, or of a oneof, is refused; a repeated field's span is its first
            # element's): the rest of the file is not read. Only a map entry with the same key
            # would replace one.
            self.restart(len(text), self.tokens[self.pos])
            return True
        fields = message.DESCRIPTOR.fields_by_name
        # name -> its field and its repeated container (None: singular), for the fields that may
        # be passed
        passable: dict[str, tuple[Any, Any]] = {}
        field: Any
        offset = self.tokens[self.pos][2]
        closed = -1
        while True:
            head = message_head(text, offset)
            if head is None:
                break
            name, start, body = head
            if name in passable:
                field, container = passable[name]
            else:
                field = fields.get(name)
                if (
                    field is None
                    or field.cpp_type != FieldDescriptor.CPPTYPE_MESSAGE
                    or field.containing_oneof is not None
                    or is_map_entry(field)
                ):
                    break
                container = getattr(message, name) if is_repeated(field) else None
                passable[name] = field, container
            field_path = path + (name,)
            if container is not None:
                if field_path in wanted and field_path not in spans:
                    break
                element = field_path + (len(container),)
                if element not in wanted:
                    body_closed = body_end(text, body)
                elif element in self.deep:
                    break  # a path in it lies deeper than its scan finds
                else:
                    scanned = scan_element(
                        text, field.message_type, body, self.children.get(element, ())
                    )
                    if scanned is None:
                        break
                    body_closed, found = scanned
                    spans[element] = (start, body_closed)
                    for child, span in found.items():
                        spans[element + (child,)] = span
            elif field_path in wanted or name in seen:
                break
            else:
                body_closed = body_end(text, body)
            if body_closed < 0:
                break
            closed = body_closed
            if container is not None:
                container.add()
            else:
                getattr(message, name).SetInParent()
                seen.add(name)
            offset = after_separator(text, closed)
        if closed < 0:
            return False
        self.restart(offset, (SYMBOL, "}", closed - 1, closed))
        return True

    def _field(
        self,
        message: Message,
        field: Any,
        path: FieldPath,
        name_span: Span,
        seen: set[str],
        depth: int,
    ) -> None:
        name = field.name
        repeated = is_repeated(field)
        field_path = path + (name,)
        oneof = field.containing_oneof
        if oneof is not None:
            other = message.WhichOneof(oneof.name)
            if other is not None and other != name:
                from tpuemb_cli.load.problems import oneof_conflict  # only for a problem

                self.result.problems.append(
                    oneof_conflict(
                        message.DESCRIPTOR.name, oneof.name, name, other, field_path, name_span
                    )
                )
                self._skip_field_value(depth)
                return
        if not repeated and name in seen:
            self._problem(
                "duplicate-field",
                f"`{name}` is given more than once in {message.DESCRIPTOR.name}; protobuf rejects "
                "a second value for a singular field",
                field_path,
                name_span,
                f"keep one `{name}`",
            )
            self._skip_field_value(depth)
            return
        seen.add(name)
        is_message = field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE
        if is_message:
            self._try(":")
        else:
            self._consume(":", f"`:` after `{name}`")
        spans = self.result.spans
        if repeated and self._try("["):
            container = getattr(message, name)
            if not self._try("]"):
                while True:
                    if self.pos > self.refill_at:
                        self._more()
                    self._one_value(message, field, container, field_path, name_span, depth, True)
                    if self._try("]"):
                        break
                    self._consume(",", "`,` or `]` in the list")
            if field_path not in spans:
                spans[field_path] = (name_span[0], self.tokens[self.pos - 1][3])
            return
        container = getattr(message, name) if repeated else None
        end = self._one_value(message, field, container, field_path, name_span, depth, False)
        if repeated and field_path not in spans:
            spans[field_path] = (name_span[0], end)

    def _one_value(
        self,
        message: Message,
        field: FieldDescriptor,
        container: Any,
        field_path: FieldPath,
        name_span: Span,
        depth: int,
        in_list: bool,
    ) -> int:
        """Parses one value of ``field``; records its span; returns its end offset.

        A field's span starts at its name; inside ``name: [a, b]`` each element's span is its own.
        """
        spans = self.result.spans
        value_start = self.tokens[self.pos][2]
        span_start = value_start if in_list else name_span[0]
        if field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
            if not self._try("<"):
                self._consume("{", f"`{{` to open `{field.name}`")
            if container is not None and is_map_entry(field):
                # A map entry: parsed on its own, then stored under its key, which is also how
                # its position is addressed (attr["config"] is `attr.config`).
                entry = container.GetEntryClass()()
                self.map_entries = True
                scratch: dict[FieldPath, Span] = {}
                # Parsed whole even when looking for a few paths: its own paths start at the
                # entry (``value``...), which the paths looked for do not name.
                self.result.spans, saved = scratch, spans
                self.wanted, wanted = None, self.wanted
                problems = len(self.result.problems)
                try:
                    end = self._message_body(entry, (), self.tokens[self.pos - 1], depth + 1)
                finally:
                    self.result.spans = saved
                    self.wanted = wanted
                key = entry.key
                path = field_path + (str(key),)
                # The entry's problems are at its own paths (``value``): put them at the map's,
                # so that what follows from a value that did not load gives way to its problem.
                for index in range(problems, len(self.result.problems)):
                    problem = self.result.problems[index]
                    self.result.problems[index] = problem._replace(
                        path=_in_map(problem.path, field_path, path) or path,
                        failed=_in_map(problem.failed, field_path, path),
                    )
                if entry.DESCRIPTOR.fields_by_name["value"].message_type is not None:
                    container[key].CopyFrom(entry.value)
                else:
                    container[key] = entry.value
                spans[path] = (span_start, end)
                for inner, inner_span in scratch.items():
                    if len(inner) > 1 and inner[0] == "value":
                        spans[path + inner[1:]] = inner_span
                return end
            if container is not None:
                child = container.add()
                path = field_path + (len(container) - 1,)
            else:
                child = getattr(message, field.name)
                child.SetInParent()
                path = field_path
            if self.wanted is not None and path not in self.wanted:
                # Looking for a few paths, none in here: skip the tokens, keep the structure
                # (the element counted, the oneof member set), so that the paths after it are
                # the ones the first parse gave.
                return self._skip_body(self.tokens[self.pos - 1], depth + 1)
            end = self._message_body(child, path, self.tokens[self.pos - 1], depth + 1)
            if self.keeping:
                spans[path] = (span_start, end)
            return end
        start = self.tokens[self.pos][2]
        try:
            value = self._scalar(field)
        except BadValue as error:
            path = field_path + (len(container),) if container is not None else field_path
            end = self.tokens[self.pos - 1][3]
            self.result.problems.append(error.problem._replace(path=path, span=(start, end)))
            return end
        end = self.tokens[self.pos - 1][3]
        if container is not None:
            container.append(value)
            if self.keeping:
                spans[field_path + (len(container) - 1,)] = (span_start, end)
        else:
            setattr(message, field.name, value)
            if self.keeping:
                spans[field_path] = (span_start, end)
        return end

    def _scalar(self, field: FieldDescriptor) -> Any:
        kind, text, _, _ = self.tokens[self.pos]
        if kind in (END, SYMBOL) and not (kind == SYMBOL and text == "-"):
            raise self._expected(f"a value for `{field.name}`")
        field_type = field.type
        if (
            field_type == FieldDescriptor.TYPE_STRING
            and kind == STRING
            and "\\" not in text
            and len(text) > 1
            and text[-1] == text[0]
            and self.tokens[self.pos + 1][0] != STRING
        ):
            # Fast path: one literal with no escapes is its own content.
            self.pos += 1
            return text[1:-1]
        if field_type in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
            return string_value(field, self._string_bytes(field.name))
        self.pos += 1
        return word_value(field, text)

    # -- skipping a field we could not use -----------------------------------------------------
    def _skip_field_value(self, depth: int) -> None:
        if self._try(":"):
            if self._try("["):
                if not self._try("]"):
                    while True:
                        if self.pos > self.refill_at:
                            self._more()
                        self._skip_value(depth)
                        if self._try("]"):
                            break
                        self._consume(",", "`,` or `]` in the list")
                return
            self._skip_value(depth)
            return
        self._skip_message(depth)

    def _skip_value(self, depth: int) -> None:
        kind, text, _, _ = self.tokens[self.pos]
        if kind == SYMBOL and text in "{<":
            self._skip_message(depth)
        elif kind == STRING:
            while self.tokens[self.pos][0] == STRING:
                self.pos += 1
                if self.pos > self.refill_at:
                    self._more()
        elif kind in (IDENT, NUMBER):
            self.pos += 1
        else:
            raise self._expected("a value")

    def _skip_message(self, depth: int) -> None:
        opener = self.tokens[self.pos]
        if not self._try("{"):
            self._consume("<", "`{` or `:`")
        self._skip_body(opener, depth)

    def _skip_body(self, opener: Token, depth: int) -> int:
        """Skips a message's fields and its closer (the opener is consumed); returns its end."""
        level = 1
        while level:
            if self.pos > self.refill_at:
                self._more()
            kind, text, _, _ = self.tokens[self.pos]
            if kind == END:
                raise TextSyntaxError(f"`{opener[1]}` is never closed", (opener[2], opener[3]))
            if kind == SYMBOL:
                if text in "{<":
                    level += 1
                    if depth + level > self.max_depth:
                        raise self._too_deep()
                elif text in "}>":
                    level -= 1
            self.pos += 1
        return self.tokens[self.pos - 1][3]

    def _problem(self, rule: str, message: str, path: FieldPath, span: Span, fix: str) -> None:
        from tpuemb_cli.load.problems import LoadProblem  # only for a problem

        self.result.problems.append(LoadProblem(rule, message, path, span, fix))


def parse_text(
    text: str,
    message: Message,
    max_depth: int = 100,
    keep_spans: bool | frozenset[FieldPath] = True,
) -> ParsedText:
    """Parses ``text`` into ``message`` (which should be empty); never raises on bad input.

    ``keep_spans``: True for every field's span, a set of field paths for theirs only, False for
    none -- a second parse finds them when needed, which spares a clean file a map entry for
    every field (most of the memory of a large parse). With a set, the parse stops once it has
    found them all: the problems and comments are then those of the text before.
    """
    result = ParsedText()
    parser = _Parser(text, result, max_depth, keep_spans)
    try:
        parser.parse(message)
    except TextSyntaxError as error:
        from tpuemb_cli.load.problems import LoadProblem  # only for a problem

        result.problems.append(
            LoadProblem("invalid-syntax", str(error), (), error.span, error.fix, fatal=True)
        )
    parser.finish()
    if keep_spans is not True:
        result.spans = dict(result.spans)
    return result


def _in_map(inner: FieldPath | None, field_path: FieldPath, path: FieldPath) -> FieldPath | None:
    """A map entry's own path (``value``..., ``key``) as a path of the map's: its value's under
    the entry's key, its key's the map itself."""
    if inner is None:
        return None
    if inner[:1] == ("value",):
        return path + inner[1:]
    return field_path
