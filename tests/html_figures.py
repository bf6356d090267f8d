"""Reading an HTML report's figures back (model/html_page.figure): each element with
``data-json`` shows the value at that path of the same command's ``--format json`` document --
its ``data-value`` (JSON) or, without one, its text -- and its text renders it as its
``data-format`` says. The unit tests read them with html.parser, the browser tests from the DOM;
both check them here."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

from tpuemb_cli.model.memory import size
from tpuemb_cli.model.words import printable

VOID = frozenset({"meta", "br", "hr", "img", "input", "link", "wbr"})
_STEP = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")


class Figure:
    """One figure as the page has it: its attributes (``data-json`` made absolute: a row's path,
    ``data-at``, before a relative one) and its text."""

    def __init__(self, attrs: dict[str, str], text: str) -> None:
        self.attrs = attrs
        self.text = text

    @property
    def path(self) -> str:
        return self.attrs["data-json"]

    def __repr__(self) -> str:
        return f"Figure({self.attrs!r}, {self.text!r})"


def lookup(document: Any, path: str) -> Any:
    """The value at ``path`` (``summary.stacks[0].bytes``) of a JSON document."""
    value = document
    for key, index in _STEP.findall(path):
        value = value[int(index)] if index else value[key]
    return value


def expected(document: Any, figure: Figure) -> Any:
    """What the figure must equal: the value at its path, or what is derived from it (a
    headroom, ``data-minus``; a share of another figure, ``data-per``; a list's length)."""
    value = lookup(document, figure.path)
    if "data-minus" in figure.attrs:
        return value - lookup(document, figure.attrs["data-minus"])
    if "data-per" in figure.attrs:
        return value / lookup(document, figure.attrs["data-per"])
    if figure.attrs.get("data-format") == "length":
        return len(value)
    return value


def check(document: Any, figure: Figure) -> None:
    """Fails unless the figure shows its value: the exact value, and the text rendering it."""
    want = expected(document, figure)
    raw = figure.attrs.get("data-value")
    # Without data-value, the text is the value: a string as it is, an integer as JSON has it.
    got = json.loads(raw) if raw is not None else figure.text
    if raw is None and isinstance(want, int) and re.fullmatch(r"-?\d+", figure.text):
        got = int(figure.text)
    assert got == want and type(got) is type(want), (figure, want)
    shown = figure.text
    kind = figure.attrs.get("data-format")
    if want is None:
        assert shown == "\u2014", figure
    elif kind == "bytes":
        assert isinstance(want, int) and shown == size(want), figure
    elif kind == "share":
        assert shown == f"{want:.1%}", figure
    elif kind in ("count", "length"):
        assert shown == f"{want:,}", figure
    elif isinstance(want, str):
        # A string is shown as it is, but for its control characters, escaped (\x1b).
        assert shown == printable(want), figure
    else:
        assert shown == json.dumps(want), figure


def leaves(value: Any, path: str) -> set[str]:
    """Every scalar's path under ``path`` (an empty list or dict is a leaf of its own)."""
    if isinstance(value, dict) and value:
        return set().union(*(leaves(v, f"{path}.{k}" if path else k) for k, v in value.items()))
    if isinstance(value, list) and value:
        return set().union(*(leaves(v, f"{path}[{i}]") for i, v in enumerate(value)))
    return {path}


def uncovered(document: Any, figures: list[Figure], under: str) -> set[str]:
    """The scalars under ``under`` that no figure shows (an empty list or a null is nothing to
    show)."""
    shown = {figure.path for figure in figures}
    every = leaves(lookup(document, under), under)
    return {
        path
        for path in every
        if path not in shown and lookup(document, path) not in ([], {}, None)
        # A list shown by its length and its items: the items are its leaves.
    }


class _Figures(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.figures: list[Figure] = []
        # Each open element: its data-at (a row's path) and, for a figure, its attributes and
        # the text read so far.
        self.open: list[tuple[str | None, tuple[dict[str, str], list[str]] | None]] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        named = {k: v or "" for k, v in attrs}
        if tag in VOID:
            return  # no end tag follows
        if "data-json" in named and named["data-json"].startswith("."):
            row = next(at for at, _ in reversed(self.open) if at is not None)
            named["data-json"] = row + named["data-json"]
        self.open.append((named.get("data-at"), (named, []) if "data-json" in named else None))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        _, figure = self.open.pop()
        if figure is not None:
            self.figures.append(Figure(figure[0], "".join(figure[1])))

    def handle_data(self, data: str) -> None:
        for _, figure in self.open:
            if figure is not None:
                figure[1].append(data)


def parse(page: str) -> tuple[list[Figure], list[str]]:
    """The page's figures and every tag it opens, as html.parser reads them."""
    parser = _Figures()
    parser.feed(page)
    parser.close()
    assert not parser.open, "an element is not closed"
    return parser.figures, parser.tags
