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
from tpuemb_cli.model.html_page import STATUS_MARKS, attr, figure, long_table, page, status, text
from tpuemb_cli.rules import CHANGES, load

SEVERITIES = (Severity.ERROR, Severity.WARNING, Severity.INFO)
AS_ABOVE = "\0"  # a help or message the row before gives


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
    by_table: dict[str | None, list[tuple[int, Finding]]] = {}
    for index, finding in enumerate(changes):
        assert finding.change is not None
        by_table.setdefault(finding.change.table, []).append((index, finding))
    groups = []
    said = _Said()
    for table, group in sorted(by_table.items(), key=lambda item: (item[0] is None, item[0] or "")):
        first = group[0][0]
        named = (
            figure(f"changes[{first}].table", table, css="mono")
            if table is not None
            else "the layout (no one table)"
        )
        groups.append((named, [(f"changes[{i}]", _change_row(f)) for i, f in said.once(group)]))
    if groups:
        out.append("<h2>Changes by table</h2>")
        out.append(_table(CHANGE_COLUMNS, groups, css="changes"))
    out += _by_file(list(enumerate(others)), "findings", "Other findings by file")
    out += _rules(report.findings)
    return out


class _Said:
    """What the rows before said: a finding's help, file, message and rule name are cleared
    when the row before it (in its table) says the same -- a report of 10,000 changes would say
    its one acknowledgement 10,000 times, and 10,000 findings of one rule its name as often."""

    def __init__(self) -> None:
        self.help = self.file = self.message = self.rule = ""

    def once(self, group: Sequence[tuple[int, Finding]]) -> list[tuple[int, Finding]]:
        out = []
        for index, finding in group:
            shown = finding._replace(
                fix=AS_ABOVE if finding.fix and finding.fix == self.help else finding.fix,
                file="" if finding.file == self.file else finding.file,
                message=AS_ABOVE if finding.message == self.message else finding.message,
                # A rule's name once for the rows of one rule in a row (its code on each).
                name="" if finding.rule == self.rule else finding.name,
            )
            self.help, self.file = finding.fix, finding.file
            self.message, self.rule = finding.message, finding.rule
            out.append((index, shown))
        return out


def _change_row(finding: Finding) -> list[str]:
    """A change's cells; its figures' paths are under its row's (``changes[i]``)."""
    change = finding.change
    assert change is not None
    return [
        _rule_cell("", finding, name="kind"),
        status(".severity", str(finding.severity)),
        figure(".field", finding.field),
        figure(".old", change.old),
        figure(".new", change.new),
        _said("", finding, field=False),
        _place("", finding),
    ]


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
        rows = [
            (
                f"{key}[{index}]",
                [
                    _place("", finding, file=False),
                    status(".severity", str(finding.severity)),
                    _rule_cell("", finding),
                    _said("", finding),
                ],
            )
            for index, finding in said.once(group)
        ]
        groups.append((named, rows))
    return [f"<h2>{title}</h2>", _table(FINDING_COLUMNS, groups)]


def _place(at: str, finding: Finding, file: bool = True) -> str:
    position = finding.position
    line = figure(f"{at}.line", position.line if position else None)
    column = figure(f"{at}.column", position.column if position else None)
    where = f"{line}:{column}"  # where it starts, as every linter says it (not its end)
    if not file or not finding.file:  # no file, or the row before's
        return where
    return figure(f"{at}.file", finding.file, css="file") + " " + where


def _rule_cell(at: str, finding: Finding, name: str = "name") -> str:
    """The rule's code, linked to its documentation below, and its name (a change's kind)."""
    code = figure(f"{at}.rule", finding.rule, tag="a", extra=f' href="#rule-{attr(finding.rule)}"')
    if not finding.name:  # the row before's rule: its name said there
        return code
    return f"{code} {figure(f'{at}.{name}', finding.name)}"


def _said(at: str, finding: Finding, field: bool = True) -> str:
    """The message, then the field and the help, each on a line the style sheet labels (as few
    elements as can be: a page of 10,000 findings must lay out in seconds)."""
    if finding.message == AS_ABOVE:
        said = '<span class="above">as above</span>'
    else:
        said = figure(f"{at}.message", finding.message)
    if finding.field and field:
        said += figure(f"{at}.field", finding.field, css="field")
    if finding.fix == AS_ABOVE:
        said += '<span class="help">as above</span>'
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
    ("rule and kind", "13rem"),
    ("severity", "8rem"),
    ("field", "12rem"),
    ("old", "6rem"),
    ("new", "6rem"),
    ("what", ""),
    ("where", "12rem"),
)


def _table(
    columns: Sequence[tuple[str, str]],
    groups: Iterable[tuple[str, Sequence[tuple[str, Sequence[str]]]]],
    css: str = "findings",
) -> str:
    """One table of groups: each a heading row then its rows, each row with the JSON path its
    figures are under (``data-at``)."""
    body = []
    for named, rows in groups:
        body.append(f'<tr class="group"><th colspan="{len(columns)}">{named}</th></tr>')
        body += (
            f'<tr data-at="{at}">' + "".join(f"<td>{c}</td>" for c in row) + "</tr>"
            for at, row in rows
        )
    return long_table(css, [h for h, _ in columns], [w for _, w in columns], body)
