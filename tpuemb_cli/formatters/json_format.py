"""The JSON report: a stable, versioned contract (docs/usage.md, "JSON output").

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
    """A change as ``tpuemb diff``'s JSON has always written it, then the other keys of a
    finding, in ``finding_dict``'s order (written at once: a report may hold 20,000 changes)."""
    position = finding.position
    change = finding.change
    return {
        "kind": finding.name if change is not None else None,  # null: not a change
        "table": change.table if change is not None else None,
        "field": finding.field,
        "old": change.old if change is not None else None,
        "new": change.new if change is not None else None,
        "message": finding.message,
        "file": finding.file,
        "line": position.line if position else None,
        "column": position.column if position else None,
        "rule": finding.rule,
        "name": finding.name,
        "severity": str(finding.severity),
        "help": finding.fix or None,
        "end_line": position.end_line if position else None,
        "end_column": position.end_column if position else None,
    }


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
        return dumps(_diff_report(report)) + "\n"
    document = {
        "version": VERSION,
        "findings": [finding_dict(finding) for finding in report.findings],
        "summary": summary_dict(report),
    }
    return dumps(document) + "\n"


# The types json writes as one token; a non-empty dict with string keys and values of these alone
# is flat.
_SCALARS = frozenset({str, int, float, bool, type(None)})
_STR = frozenset({str})
# Writes NUL between items, which its output holds nowhere else: json escapes every control
# character in a string. In a list of flat dicts, `}` NUL `{` is between two dicts and nowhere
# else: within a flat dict, a separator follows a value (a string ends with its quote, other
# values with a letter or digit) and precedes a key, which starts with a quote.
_ITEMS = json.JSONEncoder(ensure_ascii=False, separators=("\x00", ": "))


def dumps(value: object) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``, byte for byte, several times faster
    for the lists of flat dicts (findings, changes) that reports are made of.

    With ``indent``, json writes with its pure-Python encoder (its C encoder takes no indent):
    the report of 20,000 changes took 0.4 s to write. A list of flat dicts is written here by
    one call of the C encoder, with NUL as the separator, which is then replaced by a newline
    and the indentation of its level; anything else is written by json.dumps itself and
    indented to its level (json escapes every newline in a string, so each newline of its
    output starts an indented line)."""
    chunks: list[str] = []
    _write(value, "", chunks)
    return "".join(chunks)


def _is_flat(value: object) -> bool:
    return (
        type(value) is dict
        and bool(value)
        and _STR.issuperset(map(type, value))
        and _SCALARS.issuperset(map(type, value.values()))
    )


def _write(value: object, pad: str, chunks: list[str]) -> None:
    """Appends ``value`` as json.dumps writes it at the indentation ``pad`` (its first line's
    indentation is the caller's)."""
    inner = pad + "  "
    if _is_flat(value):
        items = _ITEMS.encode(value)[1:-1].replace("\x00", ",\n" + inner)
        chunks += ("{\n", inner, items, "\n", pad, "}")
    elif type(value) is list and value and all(map(_is_flat, value)):
        deeper = inner + "  "
        between = f"\n{inner}}},\n{inner}{{\n{deeper}"
        items = (
            _ITEMS.encode(value)[2:-2].replace("}\x00{", between).replace("\x00", ",\n" + deeper)
        )
        chunks += ("[\n", inner, "{\n", deeper, items, "\n", inner, "}\n", pad, "]")
    elif type(value) is dict and value and _STR.issuperset(map(type, value)):
        separator = "{\n" + inner
        for key, item in value.items():
            chunks += (separator, json.dumps(key, ensure_ascii=False), ": ")
            _write(item, inner, chunks)
            separator = ",\n" + inner
        chunks += ("\n", pad, "}")
    elif type(value) is list and value:
        separator = "[\n" + inner
        for item in value:
            chunks.append(separator)
            _write(item, inner, chunks)
            separator = ",\n" + inner
        chunks += ("\n", pad, "]")
    else:
        # A scalar, an empty dict or list, or what the cases above leave to json (dicts with keys
        # that are not strings, tuples, subclasses).
        chunks.append(json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + pad))
