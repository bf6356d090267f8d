"""Reading an HTML report's figures back (model/html_page.figure): each element with
``data-json`` shows the value at that path of the same command's ``--format json`` document --
its ``data-value`` (JSON) or, without one, its text -- and its text renders it as its
``data-format`` says. The unit tests read them with html.parser, the browser tests from the DOM;
both check them here."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from html.parser import HTMLParser
from typing import Any

from tpuemb_cli.model.memory import size
from tpuemb_cli.model.words import printable

# The keys of a finding or change a report's row may leave to the row above it (the same file,
# rule, severity, message, help or table: the page says it once, its dittos drawn by the style
# sheet), and those it never shows: where a finding ends (only where it starts, as linters say
# it) and a change's rule name (its kind, shown, is the same word).
ONCE = ("file", "help", "message", "name", "kind", "rule", "severity", "table")
NOT_SHOWN = ("end_line", "end_column")
CHANGE_NOT_SHOWN = (*NOT_SHOWN, "name")

VOID = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    }
)
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


def uncovered(
    document: Any, figures: list[Figure], under: str, once: Iterable[str] = ()
) -> set[str]:
    """The scalars under ``under`` that no figure shows (an empty list or string or a null is
    nothing to show). A key in ``once`` -- said once for the rows that repeat it: a file, a rule, a
    message -- counts as shown where the nearest row above it in the page (of the same list)
    shows that key with the same value."""
    shown = {figure.path for figure in figures}
    every = leaves(lookup(document, under), under)
    missing = {
        path
        for path in every
        if path not in shown and lookup(document, path) not in ([], {}, None, "")
        # A list shown by its length and its items: the items are its leaves. An empty string
        # is a finding's field when it is about the whole file: no field to show.
    }
    said_once = set(once)
    if not said_once:
        return missing
    # The rows (``findings[3]``) in the order the page shows them, and for each list and key the
    # last row above that shows it.
    rows: dict[str, None] = {}
    for figure in figures:
        if match := _ROW.match(figure.path):
            rows.setdefault(match[1], None)
    left = {path for path in missing if path.rpartition(".")[2] not in said_once}
    last: dict[tuple[str, str], str] = {}
    for row in rows:
        items = row[: row.rindex("[")]
        for key in said_once:
            path = f"{row}.{key}"
            if path in shown:
                last[items, key] = row
            elif path in missing:
                above = last.get((items, key))
                if above is None or lookup(document, f"{above}.{key}") != lookup(document, path):
                    left.add(path)
    # A missing key of a row no figure of which is shown is not said above either.
    left |= {p for p in missing if p.rpartition(".")[0] not in rows}
    return left


_ROW = re.compile(r"(.*\[\d+\])\.[^.\[\]]+$")
# Elements whose end tag HTML lets a page leave out, and the start tags that end them.
_IMPLIED = {"td": {"td", "th"}, "th": {"td", "th"}, "tr": {"td", "th", "tr"}}
_OPTIONAL = frozenset({"td", "th", "tr", "thead", "tbody"})


class _Figures(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.figures: list[Figure] = []
        # Each open element: its tag, its data-at (a row's path) and, for a figure, its
        # attributes and the text read so far.
        self.open: list[tuple[str, str | None, tuple[dict[str, str], list[str]] | None]] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        named = {k: v or "" for k, v in attrs}
        if tag in VOID:
            return  # no end tag follows
        # A cell or row ends where the next begins, its end tag left out (as HTML allows).
        while self.open and self.open[-1][0] in _IMPLIED.get(tag, ()):
            self._close()
        if "data-json" in named and named["data-json"].startswith("."):
            row = next(at for _, at, _ in reversed(self.open) if at is not None)
            named["data-json"] = row + named["data-json"]
        figure: tuple[dict[str, str], list[str]] | None = None
        if "data-json" in named:
            figure = (named, [])
        self.open.append((tag, named.get("data-at"), figure))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        # Rows and cells left open end with the element around them.
        while self.open[-1][0] != tag:
            assert self.open[-1][0] in _OPTIONAL, (tag, self.open[-1][0])
            self._close()
        self._close()

    def _close(self) -> None:
        _, _, figure = self.open.pop()
        if figure is not None:
            self.figures.append(Figure(figure[0], "".join(figure[1])))

    def handle_data(self, data: str) -> None:
        for _, _, figure in self.open:
            if figure is not None:
                figure[1].append(data)


def parse(page: str) -> tuple[list[Figure], list[str]]:
    """The page's figures and every tag it opens, as html.parser reads them."""
    parser = _Figures()
    parser.feed(page)
    parser.close()
    assert not parser.open, "an element is not closed"
    return parser.figures, parser.tags
