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
from tpuemb_cli.model.html_page import STATUS_MARKS, attr, figure, page, status, text
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
    by_table: dict[str | None, list[tuple[int, Finding]]] = {}
    for index, finding in enumerate(changes):
        assert finding.change is not None
        by_table.setdefault(finding.change.table, []).append((index, finding))
    if by_table:
        out.append("<h2>Changes by table</h2>")
    for table, group in sorted(by_table.items(), key=lambda item: (item[0] is None, item[0] or "")):
        first = group[0][0]
        named = (
            figure(f"changes[{first}].table", table, css="mono")
            if table is not None
            else "the layout (no one table)"
        )
        out.append(f'<section class="table"><h3>{named}</h3>')
        head = ("rule and kind", "severity", "field", "old", "new", "what", "where")
        body = [_change_row(index, finding) for index, finding in group]
        out.append(_table(head, body) + "</section>")
    out += _by_file(list(enumerate(others)), "findings", "Other findings by file")
    out += _rules(report.findings)
    return out


def _change_row(index: int, finding: Finding) -> list[str]:
    at = f"changes[{index}]"
    change = finding.change
    assert change is not None
    return [
        _rule_cell(at, finding, name="kind"),
        status(f"{at}.severity", str(finding.severity)),
        figure(f"{at}.field", finding.field, css="mono"),
        figure(f"{at}.old", change.old, css="mono"),
        figure(f"{at}.new", change.new, css="mono"),
        _said(at, finding, field=False),
        _place(at, finding),
    ]


def _by_file(numbered: Sequence[tuple[int, Finding]], key: str, title: str) -> list[str]:
    """Findings (each with its index in the JSON's ``key`` list) grouped by file, in order."""
    if not numbered:
        return []
    groups: dict[str, list[tuple[int, Finding]]] = {}
    for index, finding in numbered:
        groups.setdefault(finding.file, []).append((index, finding))
    out = [f"<h2>{title}</h2>"]
    head = ("where", "severity", "rule", "what")
    for file, group in groups.items():
        named = figure(f"{key}[{group[0][0]}].file", file, css="file")
        body = [
            [
                _place(f"{key}[{index}]", finding, file=False),
                status(f"{key}[{index}].severity", str(finding.severity)),
                _rule_cell(f"{key}[{index}]", finding),
                _said(f"{key}[{index}]", finding),
            ]
            for index, finding in group
        ]
        out.append(f'<section class="file"><h3>{named}</h3>{_table(head, body)}</section>')
    return out


def _place(at: str, finding: Finding, file: bool = True) -> str:
    position = finding.position
    line = figure(f"{at}.line", position.line if position else None)
    column = figure(f"{at}.column", position.column if position else None)
    end_line = figure(f"{at}.end_line", position.end_line if position else None)
    end_column = figure(f"{at}.end_column", position.end_column if position else None)
    where = f'<span class="nowrap">{line}:{column}\u2013{end_line}:{end_column}</span>'
    return (figure(f"{at}.file", finding.file, css="file") + " " + where) if file else where


def _rule_cell(at: str, finding: Finding, name: str = "name") -> str:
    """The rule's code, linked to its documentation below, and its name (a change's kind)."""
    code = figure(f"{at}.rule", finding.rule)
    named = figure(f"{at}.{name}", finding.name)
    return f'<a href="#rule-{attr(finding.rule)}">{code}</a> {named}'


def _said(at: str, finding: Finding, field: bool = True) -> str:
    said = figure(f"{at}.message", finding.message)
    if finding.field and field:
        said += '<br><span class="muted">field</span> '
        said += figure(f"{at}.field", finding.field, css="mono")
    if finding.fix:
        said += '<br><span class="muted">help</span> ' + figure(f"{at}.help", finding.fix)
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


def _table(head: Sequence[str], body: Iterable[Sequence[str]]) -> str:
    th = "".join(f"<th>{h}</th>" for h in head)
    rows = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in body)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{rows}</tbody></table>"
