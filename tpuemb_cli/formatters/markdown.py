"""GitHub-flavoured Markdown, for a job's step summary and a pull request's comment:

    tpuemb check configs/ --format markdown >> "$GITHUB_STEP_SUMMARY"

The summary line (``summary``, the words every format ends with), then for each file a table of
its findings -- for ``tpuemb diff``, its changes, each table's together, then what is not a
change -- and the documentation of each rule that has one, folded (``<details>``). Every string
from the input is escaped (``model.markdown``: a table named ``a|b`` or ``@team`` cannot break a
row or notify anyone). The page stays within GitHub's limits: whole rows are cut, and its last
line says how many and how to see them all.
"""

from __future__ import annotations

import re

from tpuemb_cli.formatters import Report, summary, transition
from tpuemb_cli.model.findings import Finding
from tpuemb_cli.model.markdown import Lazy, Rows, header, inline, page, row
from tpuemb_cli.rules import all_rules
from tpuemb_cli.rules.base import Rule

FINDING_COLUMNS = ("line", "rule", "severity", "message", "field", "help")
CHANGE_COLUMNS = ("table", "kind", "severity", "field", "old -> new", "message", "line")


def _place(finding: Finding) -> str:
    position = finding.position
    return f"{position.line}:{position.column}" if position is not None else ""


def _finding_row(finding: Finding) -> str:
    return row(
        [
            _place(finding),
            f"{finding.rule} {finding.name}",
            str(finding.severity),
            inline(finding.message),
            inline(finding.field),
            inline(finding.fix or ""),
        ]
    )


def _change_row(finding: Finding) -> str:
    assert finding.change is not None
    return row(
        [
            inline(finding.change.table or ""),
            finding.name,
            str(finding.severity),
            inline(finding.field),
            inline(transition(finding)),
            inline(finding.message),
            _place(finding),
        ]
    )


def _file_tables(file: str, findings: list[Finding]) -> list[Rows]:
    """A file's findings under its name; a diff's changes first, each table's together (in the
    order their tables first appear), then the other findings."""
    heading = [f"### {inline(file)}", ""]
    changes = [finding for finding in findings if finding.change is not None]
    first: dict[str | None, int] = {}
    for finding in changes:
        assert finding.change is not None
        first.setdefault(finding.change.table, len(first))
    changes.sort(key=lambda f: first[f.change.table if f.change is not None else None])
    others = [finding for finding in findings if finding.change is None]
    tables = []
    if changes:
        head = [*heading, *header(CHANGE_COLUMNS)]
        tables.append(Rows("change", head, Lazy(changes, _change_row)))
        heading = ["Not changes:", ""]
    if others:
        head = [*heading, *header(FINDING_COLUMNS)]
        tables.append(Rows("finding", head, Lazy(others, _finding_row)))
    return tables


# A reference link's definition in a rule's documentation: ``[ops]: https://...``.
_DEFINITION = re.compile(r"^\[([^\]]+)\]:", re.MULTILINE)


def documentation(rule: Rule) -> str:
    """A rule's documentation folded in ``<details>``: its sections a level below the page's,
    its reference links' labels its own (two rules' ``[ops]`` would otherwise be one link)."""
    body = rule.doc.strip().partition("\n")[2].strip()
    body = re.sub(r"^## ", "#### ", body, flags=re.MULTILINE)
    for label in set(_DEFINITION.findall(body)):
        own = f"{rule.code.lower()}-{label}"
        body = body.replace(f"[{label}]:", f"[{own}]:").replace(f"][{label}]", f"][{own}]")
    said = f"{rule.code} {rule.name} ({rule.severity}): {rule.summary}"
    return f"<details><summary>{said}</summary>\n\n{body}\n\n</details>\n"


def format_report(report: Report, color: bool) -> str:
    parts: list[str | Rows] = [f"## tpuemb {report.command}", ""]
    if not report.quiet:
        for line in summary(report).split("\n"):
            parts += [line, ""]
    by_file: dict[str, list[Finding]] = {}
    for finding in report.findings:
        by_file.setdefault(finding.file, []).append(finding)
    for file, findings in by_file.items():
        parts += _file_tables(file, findings)
    reported = {finding.rule for finding in report.findings}
    rules = [rule for rule in all_rules() if rule.code in reported]
    if rules:
        head = ["### Rules", ""]
        docs = Lazy(rules, documentation)
        parts.append(Rows("rule's documentation", head, docs, many="rules' documentation"))
    see_all = (
        f"`tpuemb {report.command} --format json` lists them all; `tpuemb rule CODE` prints "
        "a rule's documentation."
    )
    return page(parts, see_all)
