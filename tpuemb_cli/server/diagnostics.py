"""Findings as the editor shows them: LSP diagnostics, in the editor's positions."""

from __future__ import annotations

from lsprotocol import types as lsp

from tpuemb_cli.model.findings import Finding, Severity
from tpuemb_cli.rules.docs import url
from tpuemb_cli.server.positions import TextLines

SEVERITIES = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.INFO: lsp.DiagnosticSeverity.Information,
}


def diagnostic(finding: Finding, lines: TextLines) -> lsp.Diagnostic:
    """A finding as the editor shows it: the message, then the field path and the fix in words
    (as the `full` format shows them), its code linked to the rule's documentation."""
    if finding.position is not None:
        start, end = lines.range_of(finding.position)
    else:
        start = end = (0, 0)
    message, field = finding.message, finding.field  # the field path is rendered once
    if field:
        message += f"\nfield: {field}"
    if finding.fix:
        message += f"\nhelp: {finding.fix}"
    tags = [lsp.DiagnosticTag.Unnecessary] if finding.name == "unused-suppression" else None
    link = url(finding.rule, finding.name)  # none unless the package declares its docs
    return lsp.Diagnostic(
        range=lsp.Range(lsp.Position(*start), lsp.Position(*end)),
        message=message,
        severity=SEVERITIES[finding.severity],
        code=finding.rule,
        code_description=lsp.CodeDescription(href=link) if link is not None else None,
        source="tpuemb",
        tags=tags,
        data={"rule": finding.rule, "field": field},
    )


def error_diagnostic(
    message: str, lines: TextLines | None = None, offset: int | None = None
) -> lsp.Diagnostic:
    """The document could not be linted (its configuration is broken, it is too large, it holds
    a character UTF-8 cannot encode): said at that character, or at its start, where the user
    looks, rather than in a log they do not read."""
    start = end = lsp.Position(0, 0)
    if lines is not None and offset is not None:
        start = lsp.Position(*lines.position(offset))
        end = lsp.Position(*lines.position(offset + 1))
    return lsp.Diagnostic(
        range=lsp.Range(start, end),
        message=f"tpuemb could not lint this file: {message}",
        severity=lsp.DiagnosticSeverity.Error,
        source="tpuemb",
    )
