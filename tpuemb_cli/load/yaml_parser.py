"""YAML (for specs), with the position of every field.

PyYAML reads it in safe mode -- plain data only, no Python objects, no tags that run code -- and
its node tree gives every key and value a position. The data then goes through the same
conversion as JSON (protobuf's JSON mapping, ``mapping``), so the two formats accept the same
fields; the positions of the fields come from ``mapping.map_spans`` and the raw spans found here.

PyYAML builds what an alias names once and shares it, but everything after it (the conversion,
the positions, the message) sees it expanded: nested aliases expand exponentially ("billion
laughs"), and an alias inside the node it names is infinite. So the document is composed here,
without recursion, keeping what each anchored node expands to: an alias that would take the
document past ``limits.MAX_ALIAS_NODES`` nodes, or past its nesting limit, or that names a node
still open, stops the parse at the alias (``_Refused``), before anything is expanded.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import yaml
from google.protobuf.message import Message
from yaml.events import AliasEvent, CollectionStartEvent, MappingStartEvent, ScalarEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from tpuemb_cli.load import limits
from tpuemb_cli.load.mapping import ParsedMapping, PlainValueHints, RawSpans, convert_value
from tpuemb_cli.load.problems import LoadProblem, lone_surrogate, number_too_long

_INT = "tag:yaml.org,2002:int"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class _Refused(yaml.MarkedYAMLError):
    """A document tpuemb will not expand: the problem, at the alias or node that shows it."""

    def __init__(self, problem: str, mark: Any, fix: str) -> None:
        super().__init__(problem=problem, problem_mark=mark)
        self.fix = fix


class _Open:
    """A collection being composed: its node, the key waiting for its value (mappings), and the
    size and height it expands to so far."""

    __slots__ = ("anchor", "height", "key", "node", "size")

    def __init__(self, node: Node, anchor: str | None) -> None:
        self.node = node
        self.anchor = anchor
        self.key: Node | None = None
        self.size = 1
        self.height = 1


class _Composing(yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
    """Composing without recursion and with the limits of ``limits``; lone surrogates and
    over-long integers are problems, recorded with their spans. Mixed into PyYAML's safe loader
    (``_Loader``) and into the one that reads its events with libyaml (``_FastLoader``)."""

    # What the parser it is mixed with provides.
    anchors: dict[str, Node]
    get_event: Any
    buffer: Any

    def _limit(self, max_nesting: int) -> None:
        self.max_nesting = max_nesting
        self.problems: list[LoadProblem] = []
        # (size, height) of each anchored node once composed; an anchor without one is open.
        self.measures: dict[str, tuple[int, int]] = {}
        self.expanded = 0  # nodes the aliases have added so far

    def _event(self) -> Any:
        return self.get_event()

    def compose_document(self) -> Node:
        self._event()  # DocumentStart
        node = self._compose()
        self._event()  # DocumentEnd
        self.anchors = {}
        self.measures = {}
        return node

    def _compose(self) -> Node:
        stack: list[_Open] = []
        next_event = self.get_event  # once per event: 200,000 events in a 1 MB spec
        while True:
            event = next_event()
            if isinstance(event, AliasEvent):
                node, size, height = self._alias(event, len(stack))
            elif isinstance(event, ScalarEvent):
                node, size, height = self._scalar(event), 1, 1
                if event.anchor is not None:
                    self.measures[event.anchor] = (1, 1)
            elif isinstance(event, CollectionStartEvent):
                if len(stack) >= self.max_nesting:
                    raise _Refused(
                        f"the YAML nests deeper than {self.max_nesting} levels",
                        event.start_mark,
                        "flatten the document",
                    )
                stack.append(_Open(self._collection(event), event.anchor))
                continue
            else:  # the end of the innermost open collection (the parser checks the nesting)
                done = stack.pop()
                node, size, height = done.node, done.size, done.height
                node.end_mark = event.end_mark
                if done.anchor is not None:
                    # Registered when it opened, so that an alias inside it is found (and
                    # refused); what it expands to is known now.
                    self.measures[done.anchor] = (size, height)
            if not stack:
                return node
            parent = stack[-1]
            parent.size += size
            parent.height = max(parent.height, height + 1)
            if isinstance(parent.node, SequenceNode):
                parent.node.value.append(node)
            elif parent.key is None:
                parent.key = node
            else:
                parent.node.value.append((parent.key, node))
                parent.key = None

    def _alias(self, event: Any, depth: int) -> tuple[Node, int, int]:
        anchor = event.anchor
        if anchor not in self.anchors:
            raise yaml.composer.ComposerError(
                None, None, f"found undefined alias {anchor!r}", event.start_mark
            )
        measure = self.measures.get(anchor)
        if measure is None:
            raise _Refused(
                f"the alias `*{anchor}` is inside the node `&{anchor}` names: it would hold "
                "itself, without end",
                event.start_mark,
                f"refer to an anchor defined outside `&{anchor}`, or write the data out",
            )
        size, height = measure
        self.expanded += size
        if self.expanded > limits.MAX_ALIAS_NODES:
            raise _Refused(
                f"the YAML aliases expand to more than {limits.MAX_ALIAS_NODES:,} nodes",
                event.start_mark,
                "use fewer aliases of large or nested anchors, or write the data out",
            )
        if depth + height > self.max_nesting:
            raise _Refused(
                f"the YAML nests deeper than {self.max_nesting} levels once its aliases are "
                "expanded",
                event.start_mark,
                "use fewer nested aliases",
            )
        return self.anchors[anchor], size, height

    def _check_anchor(self, event: Any) -> None:
        anchor = event.anchor
        if anchor is not None and anchor in self.anchors:
            raise yaml.composer.ComposerError(
                f"found duplicate anchor {anchor!r}; first occurrence",
                self.anchors[anchor].start_mark,
                "second occurrence",
                event.start_mark,
            )

    def _scalar(self, event: Any) -> ScalarNode:
        self._check_anchor(event)
        value = event.value
        if limits.has_surrogates(value):
            escape = limits.lone_surrogate(value)
            if escape is not None:
                start, end = event.start_mark.index, event.end_mark.index
                self.problems.append(lone_surrogate(self._written(event), escape, (start, end)))
            value = limits.repaired(value)
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.resolve(ScalarNode, value, event.implicit)  # type: ignore[no-untyped-call]
        node = ScalarNode(tag, value, event.start_mark, event.end_mark, style=event.style)
        if event.anchor is not None:
            self.anchors[event.anchor] = node
        return node

    def _collection(self, event: Any) -> Node:
        self._check_anchor(event)
        kind = MappingNode if isinstance(event, MappingStartEvent) else SequenceNode
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.resolve(kind, None, event.implicit)  # type: ignore[no-untyped-call]
        node = kind(tag, [], event.start_mark, None, flow_style=event.flow_style)
        if event.anchor is not None:
            self.anchors[event.anchor] = node
        return node

    def _written(self, event: Any) -> str:
        return str(self.buffer[event.start_mark.index : event.end_mark.index])

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        # PyYAML's constructors raise plain errors on a value their tag cannot hold (`!!int foo`,
        # `!!bool maybe`, `!!timestamp x`): a YAML error at the node, as the others are.
        try:
            return super().construct_object(node, deep)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError):
            tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")
            what = f"`{limits.shown(node.value, 40)}`" if isinstance(node, ScalarNode) else "this"
            raise yaml.constructor.ConstructorError(
                None, None, f"{what} is not a valid {tag} value", node.start_mark
            ) from None

    def construct_int(self, node: ScalarNode) -> Any:
        value = str(node.value)
        if limits.too_long(value):
            span = (node.start_mark.index, node.end_mark.index)
            self.problems.append(number_too_long(value, span))
            return limits.OVERSIZED
        return self.construct_yaml_int(node)

    def construct_timestamp(self, node: ScalarNode) -> Any:
        # A date that does not exist (2001-02-30) is a ValueError in PyYAML: read as its text.
        try:
            return self.construct_yaml_timestamp(node)
        except (ValueError, OverflowError):
            return str(node.value)

    # PyYAML's safe constructors, with these two in their place (add_constructor's work).
    yaml_constructors: ClassVar[dict[Any, Any]] = {
        **yaml.constructor.SafeConstructor.yaml_constructors,
        _INT: construct_int,
        _TIMESTAMP: construct_timestamp,
    }


class _Loader(_Composing, yaml.SafeLoader):
    """PyYAML's safe loader, all in Python: the reference for what a document means."""

    def __init__(self, text: str, max_nesting: int) -> None:
        super().__init__(text)
        self._limit(max_nesting)


# Where libyaml and PyYAML's scanner part ways (found by comparing their events on random
# documents; tests/test_yaml_libyaml.py keeps comparing): tabs, carriage returns, byte-order
# marks, Unicode line breaks and control characters in the text, ...
_UNSURE_TEXT = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)


class _Unsure(Exception):
    """The document uses YAML that libyaml may read otherwise than PyYAML."""


if yaml.__with_libyaml__:

    class _FastLoader(_Composing, yaml.CSafeLoader):
        """The same composing on libyaml's events (its scanner and parser in C, 30 times
        faster than PyYAML's in Python: a 1.2 MB spec loads in a fifth of the time), used only
        where it reads what PyYAML reads; elsewhere it stops (``_Unsure``) and PyYAML reads the
        document."""

        def __init__(self, text: str, max_nesting: int) -> None:
            super().__init__(text)
            self._limit(max_nesting)
            self.anchors = {}

        # Where else libyaml may read otherwise: block scalars (it reads `>#` as a header),
        # explicit tags (it reads `!` as not implicit, and tag handles PyYAML refuses), plain
        # scalars over several lines (it accepts some PyYAML refuses in flow collections).
        def _scalar(self, event: Any) -> ScalarNode:
            if (
                event.tag is not None
                or event.style in ("|", ">")
                or event.start_mark.line != event.end_mark.line
            ):
                raise _Unsure
            return super()._scalar(event)

        def _collection(self, event: Any) -> Node:
            if event.tag is not None:
                raise _Unsure
            return super()._collection(event)

        def get_single_node(self) -> Node | None:
            node: Node | None = yaml.composer.Composer.get_single_node(self)  # type: ignore[arg-type]
            return node


def _walk(
    node: Any,
    path: tuple[str | int, ...],
    raw: RawSpans,
    problems: list[LoadProblem],
    seen: set[int],
) -> None:
    if isinstance(node, MappingNode):
        first = id(node) not in seen  # an aliased mapping: its keys are judged once
        seen.add(id(node))
        names: set[str] = set()
        for key, value in node.value:
            name = key.value
            if first and isinstance(name, str) and name != "<<":
                if name in names:
                    # As in JSON: the last value is read, the key is reported (PyYAML keeps
                    # the last silently, and a diff would miss the first value's change).
                    problems.append(
                        LoadProblem(
                            "duplicate-field",
                            f"the key `{name}` appears more than once in one mapping; only the "
                            "last is read",
                            span=(key.start_mark.index, key.end_mark.index),
                            fix=f"keep one `{name}`",
                        )
                    )
                names.add(name)
            raw.setdefault(path + (name,), (key.start_mark.index, value.end_mark.index))
            _walk(value, path + (name,), raw, problems, seen)
    elif isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            raw[path + (index,)] = (item.start_mark.index, item.end_mark.index)
            _walk(item, path + (index,), raw, problems, seen)


def parse_yaml(
    text: str, message: Message, max_depth: int = 100, hints: PlainValueHints | None = None
) -> tuple[ParsedMapping, RawSpans]:
    """Parses ``text`` into ``message``; never raises on bad input. ``hints``: see
    ``PlainValueHints``."""
    result = ParsedMapping()
    raw: RawSpans = {}
    # A message nested max_depth deep is a mapping in a list in a mapping...: twice as deep.
    read = _read_fast(text, limits.max_nesting(max_depth))
    if read is not None:
        problems, node, value = read
        return _converted(result, raw, problems, node, value, message, max_depth, hints)
    loader = None
    try:
        loader = _Loader(text, limits.max_nesting(max_depth))
        node = loader.get_single_node()
        value = loader.construct_document(node) if node is not None else None
    except yaml.reader.ReaderError as error:
        # A character YAML does not allow (a control character): where it is.
        result.problems.append(
            LoadProblem(
                "invalid-syntax",
                f"not valid YAML: {error.reason} (character U+{error.character:04X})",
                span=(error.position, error.position + 1),
                fix="remove the character, or escape it in a double-quoted string",
                fatal=True,
            )
        )
        return result, raw
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        offset = mark.index if mark is not None else 0
        problem = error.problem or error.context or "invalid YAML"
        refused = error if isinstance(error, _Refused) else None
        result.problems.append(
            LoadProblem(
                "invalid-syntax",
                problem if refused else f"not valid YAML: {problem}",
                span=(offset, offset + 1),
                fix=refused.fix if refused else "",
                fatal=True,
            )
        )
        return result, raw
    except (yaml.YAMLError, RecursionError) as error:
        result.problems.append(
            LoadProblem("invalid-syntax", f"not valid YAML: {error}", fatal=True)
        )
        return result, raw
    finally:
        if loader is not None:
            loader.dispose()
    return _converted(result, raw, loader.problems, node, value, message, max_depth, hints)


def _read_fast(text: str, max_nesting: int) -> tuple[list[LoadProblem], Node | None, Any] | None:
    """The problems, node tree and value libyaml reads, or None where PyYAML must read the
    document: libyaml is not installed, the document uses YAML the two may read differently,
    or it has an error (said in PyYAML's words, at PyYAML's place)."""
    if not yaml.__with_libyaml__ or _UNSURE_TEXT.search(text):
        return None
    loader = _FastLoader(text, max_nesting)
    try:
        node = loader.get_single_node()
        value = loader.construct_document(node) if node is not None else None
    except Exception:  # any doubt at all: PyYAML reads it from the start
        return None
    finally:
        loader.dispose()
    return loader.problems, node, value


def _converted(
    result: ParsedMapping,
    raw: RawSpans,
    problems: list[LoadProblem],
    node: Node | None,
    value: Any,
    message: Message,
    max_depth: int,
    hints: PlainValueHints | None,
) -> tuple[ParsedMapping, RawSpans]:
    result.problems.extend(problems)
    if value is None:
        value = {}
    if node is not None:
        _walk(node, (), raw, result.problems, set())
    result.value = value
    convert_value(value, message, result, max_depth, strict=True, hints=hints)
    return result, raw
