"""``--format html``: the report as one self-contained HTML page (model/html_page: inline style,
no script, nothing fetched), for a CI artifact. ``check``'s findings are grouped by file;
``diff``'s changes by the table they are about (the layout's own, such as its topology, apart),
its other findings by file. The documentation of each rule that has a result follows, as
``sarif`` carries it. Every figure carries its path in the ``json`` format's document of the
same report (formatters/json_format), so the page can be checked against it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tpuemb_cli.formatters import Report
from tpuemb_cli.formatters.html_docs import to_html
from tpuemb_cli.model.findings import Finding, Severity
from tpuemb_cli.model.html_page import (
    CHUNK,
    STATUS_MARKS,
    attr,
    attribute,
    figure,
    long_table,
    page,
    status,
    text,
)
from tpuemb_cli.rules import CHANGES, load

SEVERITIES = (Severity.ERROR, Severity.WARNING, Severity.INFO)


def format_report(report: Report, color: bool) -> str:
    if report.command == "diff":
        return page("tpuemb diff", _diff(report))
    return page("tpuemb check", _check(report))


def _check(report: Report) -> list[str]:
    counts = [
        ("files checked", figure("summary.files_checked", report.files_checked, kind="count")),
        (
            "files with findings",
            figure("summary.files_with_findings", report.files_with_findings, kind="count"),
        ),
    ]
    for severity in SEVERITIES:
        word = f"{severity}s"
        counts.append(
            (
                _mark(str(severity)) + " " + word,
                figure(f"summary.{word}", report.count(severity), kind="count"),
            )
        )
    out = ["<h1>tpuemb check</h1>", _facts(counts)]
    numbered = list(enumerate(report.findings))
    out += _by_file(numbered, "findings", "Findings by file")
    out += _rules(report.findings)
    return out


def _diff(report: Report) -> list[str]:
    changes = [f for f in report.findings if f.change is not None]
    others = [f for f in report.findings if f.change is None]
    kinds = {entry.name: 0 for entry in CHANGES}
    for finding in changes:
        kinds[finding.name] += 1
    counts = [(text(kind), figure(f"summary.{kind}", n, kind="count")) for kind, n in kinds.items()]
    out = ["<h1>tpuemb diff</h1>", "<h2>Changes by kind</h2>", _facts(counts)]
    # By table (the layout's own changes, which are about no one table, last), each table's in
    # the report's order.
    ordered = sorted(
        enumerate(changes),
        key=lambda item: (_table_of(item[1]) is None, _table_of(item[1]) or ""),
    )
    if ordered:
        said = _Said()
        rows = [(f"changes[{i}]", _change_row(f, above)) for i, f, above in said.once(ordered)]
        out.append("<h2>Changes by table</h2>")
        out.append(_table(CHANGE_COLUMNS, [("", rows)], css="changes"))
    out += _by_file(list(enumerate(others)), "findings", "Other findings by file")
    out += _rules(report.findings)
    return out


def _table_of(finding: Finding) -> str | None:
    assert finding.change is not None
    return finding.change.table


_NOTHING = object()  # what no row says


class _Said:
    """What the rows above said: a finding's table, rule (its code, name and severity), file,
    message and help are left to the row above when it says the same -- a report of 10,000
    changes would say its one acknowledgement 10,000 times, and 10,000 findings of one rule its
    name as often. A row under a heading (a file's) or at the top of one of a long table's
    tables (model/html_page.long_table: ``CHUNK`` rows each, the heading rows counted) says
    everything again: nothing is above it in its table."""

    def __init__(self) -> None:
        self.last: dict[str, object] = {}
        self.rows = 0  # the rows of the table so far, headings included

    def heading(self) -> None:
        self.rows += 1
        self.last = {}

    def once(self, group: Sequence[tuple[int, Finding]]) -> list[tuple[int, Finding, set[str]]]:
        """Each finding with the keys (``table``, ``rule``, ``file``, ``message``, ``help``)
        the row above says the same of."""
        out = []
        for index, finding in group:
            if self.rows % CHUNK == 0:
                self.last = {}
            self.rows += 1
            said: dict[str, object] = {
                "table": finding.change.table if finding.change is not None else None,
                "rule": (finding.rule, finding.severity),
                "file": finding.file,
                "message": finding.message,
                "help": finding.fix,
            }
            above = {key for key, value in said.items() if self.last.get(key, _NOTHING) == value}
            if not finding.fix:
                above.discard("help")  # no help is none to repeat
            if finding.change is None:
                above.discard("table")
            self.last = said
            out.append((index, finding, above))
        return out


def _change_row(finding: Finding, above: set[str]) -> list[str]:
    """A change's cells; its figures' paths are under its row's (``changes[i]``)."""
    change = finding.change
    assert change is not None
    if "table" in above:
        table = DITTO
    elif change.table is None:
        table = "<td class=muted>the layout (no one table)"
    else:
        table = _cell(".table", change.table)  # monospace: the style sheet's
    return [
        table,
        *_rule_cells(finding, above, name="kind"),
        _cell(".field", finding.field),
        _cell(".old", change.old),
        _cell(".new", change.new),
        "<td>" + _said("", finding, above, field=False),
        "<td>" + _place("", finding, file="file" not in above),
    ]


# A cell that leaves its value to the row above: empty, and no figure, the style sheet draws a
# ditto mark in it (a figure's cell with an empty value is not empty: it has ``data-json``).
DITTO = "<td>"


def _cell(at: str, value: object) -> str:
    """A cell that is one figure (``<td data-json=...>``)."""
    return figure(at, value, tag="td", end=False)


def _by_file(numbered: Sequence[tuple[int, Finding]], key: str, title: str) -> list[str]:
    """Findings (each with its index in the JSON's ``key`` list) grouped by file, in order."""
    if not numbered:
        return []
    by_file: dict[str, list[tuple[int, Finding]]] = {}
    for index, finding in numbered:
        by_file.setdefault(finding.file, []).append((index, finding))
    groups = []
    said = _Said()
    for file, group in by_file.items():
        named = figure(f"{key}[{group[0][0]}].file", file, css="file")
        said.heading()
        rows = [
            (
                f"{key}[{index}]",
                [
                    "<td>" + _place("", finding, file=False),
                    *_rule_cells(finding, above),
                    "<td>" + _said("", finding, above),
                ],
            )
            for index, finding, above in said.once(group)
        ]
        groups.append((named, rows))
    return [f"<h2>{title}</h2>", _table(FINDING_COLUMNS, groups)]


def _place(at: str, finding: Finding, file: bool = True) -> str:
    position = finding.position
    line = figure(f"{at}.line", position.line if position else None)
    column = figure(f"{at}.column", position.column if position else None)
    where = f"{line}:{column}"  # where it starts, as every linter says it (not its end)
    if not file or not finding.file:  # no file, or the row above's
        return where
    return figure(f"{at}.file", finding.file, css="file") + " " + where


def _rule_cells(finding: Finding, above: set[str], name: str = "name") -> list[str]:
    """The severity; the rule's code, linked to its documentation below, and its name (a
    change's kind) -- both dittos for the row above's rule and severity."""
    if "rule" in above:
        return [DITTO, DITTO]
    code = figure(".rule", finding.rule, tag="a", extra=attribute("href", f"#rule-{finding.rule}"))
    return [
        "<td>" + status(".severity", str(finding.severity)),
        f"<td>{code} {figure(f'.{name}', finding.name)}",
    ]


def _said(at: str, finding: Finding, above: set[str], field: bool = True) -> str:
    """The message, then the field and the help, each on a line the style sheet labels (as few
    elements as can be: a page of 10,000 findings must lay out in seconds). A finding of the
    whole file (no field) has no field line."""
    if "message" in above:
        said = "<span class=above></span>"  # the style sheet says "as above"
    else:
        said = figure(f"{at}.message", finding.message)
    if finding.field and field:
        said += figure(f"{at}.field", finding.field, css="field")
    if "help" in above:
        said += '<span class="help above"></span>'
    elif finding.fix:
        said += figure(f"{at}.help", finding.fix, css="help")
    return said


def _rules(findings: Iterable[Finding]) -> list[str]:
    """The documentation of each rule that has a result (never all of them: a report of a few
    findings stays small)."""
    codes = sorted({finding.rule for finding in findings})
    if not codes:
        return []
    out = ["<h2>The rules reported</h2>"]
    for code in codes:
        rule = load(code)
        out.append(
            f'<details id="rule-{attr(code)}" class="rule"><summary><b>{text(code)}</b> '
            f"{text(rule.name)} ({_mark(str(rule.severity))} {rule.severity}): "
            f"{text(rule.summary)}</summary>{to_html(rule.doc)}</details>"
        )
    return out


def _mark(severity: str) -> str:
    return f'<span aria-hidden="true" class="st-{severity}">{STATUS_MARKS[severity]}</span>'


def _facts(pairs: Sequence[tuple[str, str]]) -> str:
    return '<dl class="facts">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in pairs) + "</dl>"


# Each table's columns, and their widths once it is long (model/html_page.long_table).
FINDING_COLUMNS = (("where", "6rem"), ("severity", "8rem"), ("rule", "15rem"), ("what", ""))
CHANGE_COLUMNS = (
    ("table", "8rem"),
    ("severity", "7rem"),
    ("rule and kind", "10rem"),
    ("field", "10rem"),
    ("old", "4.5rem"),
    ("new", "4.5rem"),
    ("what", ""),
    ("where", "8rem"),
)


def _table(
    columns: Sequence[tuple[str, str]],
    groups: Iterable[tuple[str, Sequence[tuple[str, Sequence[str]]]]],
    css: str = "findings",
) -> str:
    """One table of groups: each a heading row (none for a heading of "") then its rows, each
    row with the JSON path its figures are under (``data-at``) and its cells (``<td>...``).
    Their end tags are left out, as HTML lets a table's rows and cells leave them out: a
    quarter of the markup of a page of 10,000 rows."""
    body = []
    for named, rows in groups:
        if named:
            body.append(f"<tr class=group><th colspan={len(columns)}>{named}")
        body += (f"<tr{attribute('data-at', at)}>" + "".join(row) for at, row in rows)
    return long_table(css, [h for h, _ in columns], [w for _, w in columns], body)
