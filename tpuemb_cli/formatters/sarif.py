"""SARIF 2.1.0, as GitHub code scanning reads it.

``tool.driver`` carries the tool version, the rule-set version and each rule that has a result
(id, name, short and full description, the rule's documentation as help text and markdown, which
code scanning shows without a link, and default level); a rule's link (``helpUri``) and the
tool's (``informationUri``) only when the package declares where they are (``[project.urls]``:
``Documentation``, ``Homepage``). Each result has its rule, level, message, a physical location
with the full region (``endColumn`` is the column after the last character; columns count
Unicode code points, as ``columnKind`` says), the field path as a logical location, and a partial
fingerprint that survives lines moving. Paths are relative to the repository root (the nearest
folder above the working directory holding ``.git``). A finding in an archive's member (a
``.keras`` file's config.json) is located at the archive, the only file there is; the message
names the member and the place in it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tpuemb_cli import __version__
from tpuemb_cli.formatters import Report, transition
from tpuemb_cli.model.findings import Finding, Position, Severity
from tpuemb_cli.rules import RULESET_VERSION, all_rules
from tpuemb_cli.rules.docs import homepage, url

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def repo_root(start: Path) -> Path:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def relative_uri(file: str, root: Path) -> str:
    path = Path(file)
    absolute = path if path.is_absolute() else Path.cwd() / path
    try:
        relative = Path(os.path.relpath(absolute, root))
    except ValueError:  # another drive on Windows
        return absolute.as_uri()
    if relative.parts and relative.parts[0] == "..":
        return Path(os.path.normpath(absolute)).as_uri()
    # The name's bytes, percent-encoded: a file name that is not UTF-8 (its undecodable bytes
    # are surrogates in the str) is a valid URI too, as as_uri() makes it for absolute paths.
    return quote(os.fsencode(relative.as_posix()))


def _rule(rule: Any) -> dict[str, Any]:
    body = rule.doc.strip().split("\n", 1)
    full = (
        body[1].split("## What it does", 1)[-1].split("\n## ", 1)[0].strip()
        if len(body) > 1
        else ""
    )
    described: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": " ".join(full.split()) or rule.summary},
        "help": {"text": rule.doc.strip(), "markdown": rule.doc.strip()},
    }
    link = url(rule.code, rule.name)
    if link is not None:
        described["helpUri"] = link
    described["defaultConfiguration"] = {"level": LEVELS[rule.severity]}
    described["properties"] = {"tags": ["tpu-embedding"]}
    return described


def fingerprint(*parts: str) -> str:
    """A result's stable fingerprint from what identifies it (rule, file, field path, message):
    stable when lines move, different for each field."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def location(file: str, position: Position | None, field: str, root: Path) -> dict[str, Any]:
    """A result's location: its region in ``file`` (relative to ``root``) and its field path as
    a logical location."""
    uri = relative_uri(file, root)
    physical: dict[str, Any] = {"artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}}
    if position is not None:
        physical["region"] = {
            "startLine": position.line,
            "startColumn": position.column,
            "endLine": position.end_line,
            "endColumn": position.end_column,
        }
    else:
        # Binary input has no lines; the field path (below) says where.
        physical["region"] = {"startLine": 1}
    placed: dict[str, Any] = {"physicalLocation": physical}
    if field:
        placed["logicalLocations"] = [{"fullyQualifiedName": field, "kind": "member"}]
    return placed


def _result(finding: Finding, index: dict[str, int], root: Path) -> dict[str, Any]:
    # A member's lines are not the archive's: the place in it goes into the message.
    position = finding.position if not finding.member else None
    placed = location(finding.archive, position, finding.field, root)
    uri = placed["physicalLocation"]["artifactLocation"]["uri"]
    changed = f": {transition(finding)}" if transition(finding) else ""
    text = finding.message + (f" ({finding.field}{changed})" if finding.field else "")
    if finding.member:
        at = finding.position
        text = f"{finding.member}{f':{at.line}:{at.column}' if at else ''}: {text}"
    if finding.fix:
        text += f". Fix: {finding.fix}"
    return {
        "ruleId": finding.rule,
        "ruleIndex": index[finding.rule],
        "level": LEVELS[finding.severity],
        "message": {"text": text},
        "locations": [placed],
        "partialFingerprints": {
            "tpuembFinding/v1": fingerprint(finding.rule, uri, finding.field, finding.message)
        },
    }


def format_report(report: Report, color: bool) -> str:
    root = repo_root(Path.cwd())
    # The rules that have results: each carries its documentation, and all 130 would make the
    # log of a few findings hundreds of kilobytes.
    reported = {finding.rule for finding in report.findings}
    rules = tuple(rule for rule in all_rules() if rule.code in reported)
    index = {rule.code: number for number, rule in enumerate(rules)}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "tpuemb",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_rule(rule) for rule in rules],
                "properties": {"rulesetVersion": RULESET_VERSION},
            }
        },
    }
    information = homepage()
    if information is not None:
        run["tool"]["driver"]["informationUri"] = information
    if report.command != "check":
        # Code scanning keeps one set of alerts per category: diff's apart from check's.
        run["automationDetails"] = {"id": f"tpuemb-{report.command}/"}
    run["originalUriBaseIds"] = {"%SRCROOT%": {"uri": root.as_uri() + "/"}}
    run["columnKind"] = "unicodeCodePoints"
    run["results"] = [_result(finding, index, root) for finding in report.findings]
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
