"""The JSON report: a stable, versioned contract (README.md, "JSON output").

    {"version": 1,
     "findings": [{"file", "rule", "name", "severity", "message", "help", "field",
                   "line", "column", "end_line", "end_column"}],
     "summary": {"files_checked", "files_with_findings", "errors", "warnings", "infos"}}

Positions are 1-based; ``end_column`` is the column after the last character; all four are null
for binary input.

The report of ``tpuemb diff`` (docs/diff.md) keeps its own documented keys:

    {"version": 1,
     "changes": [{"kind", "table", "field", "old", "new", "message", "file", "line", "column",
                  and a finding's other keys: "rule", "name", "severity", "help", "end_line",
                  "end_column"}],
     "findings": [what is not a change: an acknowledgement that matched nothing],
     "summary": {"<kind>": count}}
"""

from __future__ import annotations

import json
from typing import Any

from tpuemb_cli.formatters import Report
from tpuemb_cli.model.findings import Finding, Severity
from tpuemb_cli.rules import CHANGES

VERSION = 1


def finding_dict(finding: Finding) -> dict[str, Any]:
    position = finding.position
    return {
        "file": finding.file,
        "rule": finding.rule,
        "name": finding.name,
        "severity": str(finding.severity),
        "message": finding.message,
        "help": finding.fix or None,
        "field": finding.field,
        "line": position.line if position else None,
        "column": position.column if position else None,
        "end_line": position.end_line if position else None,
        "end_column": position.end_column if position else None,
    }


def summary_dict(report: Report) -> dict[str, int]:
    return {
        "files_checked": report.files_checked,
        "files_with_findings": report.files_with_findings,
        "errors": report.count(Severity.ERROR),
        "warnings": report.count(Severity.WARNING),
        "infos": report.count(Severity.INFO),
    }


def change_dict(finding: Finding) -> dict[str, Any]:
    """A change as ``tpuemb diff``'s JSON has always written it, then the keys of a finding."""
    found = finding_dict(finding)
    change = finding.change
    written = {
        "kind": finding.name if change is not None else None,  # null: not a change
        "table": change.table if change is not None else None,
        "field": found["field"],
        "old": change.old if change is not None else None,
        "new": change.new if change is not None else None,
        "message": finding.message,
        "file": finding.file,
        "line": found["line"],
        "column": found["column"],
    }
    return {**written, **{key: value for key, value in found.items() if key not in written}}


def _diff_report(report: Report) -> dict[str, Any]:
    summary = {entry.name: 0 for entry in CHANGES}  # every kind, zeros included
    for finding in report.findings:
        if finding.change is not None:
            summary[finding.name] += 1
    return {
        "version": VERSION,
        "changes": [change_dict(f) for f in report.findings if f.change is not None],
        "findings": [finding_dict(f) for f in report.findings if f.change is None],
        "summary": summary,
    }


def format_report(report: Report, color: bool) -> str:
    if report.command == "diff":
        return json.dumps(_diff_report(report), indent=2, ensure_ascii=False) + "\n"
    document = {
        "version": VERSION,
        "findings": [finding_dict(finding) for finding in report.findings],
        "summary": summary_dict(report),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
