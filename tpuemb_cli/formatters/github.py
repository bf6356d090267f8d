"""GitHub Actions workflow commands: each finding an annotation on the file and line.

    ::error file=a.pbtxt,line=3,col=5,endLine=3,endColumn=9,title=TE407 table-id-out-of-range::...

A finding in an archive's member (``m.keras!config.json``) is annotated on the archive, with the
member and its line and column at the head of the message.

Picked automatically when ``GITHUB_ACTIONS=true`` and no format is given. Errors come first.
GitHub shows at most 10 error and 10 warning annotations per step; when there are more, a final
notice says how many were not shown. Control characters in names and messages are escaped
(``style.printable``) before the workflow-command escaping: the log shows them as written.
"""

from __future__ import annotations

from tpuemb_cli.formatters import Report, transition
from tpuemb_cli.formatters.style import printable
from tpuemb_cli.model.findings import Finding, Severity
from tpuemb_cli.model.words import plural

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
SHOWN_PER_STEP = 10


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    # A member of an archive (a `.keras` file's config.json) is annotated on the archive, the
    # file the repository holds; its lines are not the archive's, so the place goes in the text.
    properties = [f"file={escape_property(printable(finding.archive))}"]
    position = finding.position
    if position is not None and not finding.member:
        properties += [
            f"line={position.line}",
            f"col={position.column}",
            f"endLine={position.end_line}",
            f"endColumn={position.end_column}",
        ]
    properties.append(f"title={escape_property(f'{finding.rule} {finding.name}')}")
    message = printable(finding.message)
    if finding.member:
        at = f":{position.line}:{position.column}" if position is not None else ""
        message = f"{printable(finding.member)}{at}: {message}"
    if finding.field:
        changed = f": {printable(transition(finding))}" if transition(finding) else ""
        message += f" ({printable(finding.field)}{changed})"
    if finding.fix:
        message += f"\nhelp: {printable(finding.fix)}"
    return f"::{COMMANDS[finding.severity]} {','.join(properties)}::{escape_data(message)}"


def format_report(report: Report, color: bool) -> str:
    ordered = sorted(report.findings, key=lambda f: -f.severity)  # stable: keeps file order
    lines = [annotation(finding) for finding in ordered]
    hidden = [
        plural(report.count(severity) - SHOWN_PER_STEP, str(severity))
        for severity in (Severity.ERROR, Severity.WARNING)
        if report.count(severity) > SHOWN_PER_STEP
    ]
    if hidden:
        lines.append(
            "::notice title=tpuemb::"
            + escape_data(
                f"{' and '.join(hidden)} not shown: GitHub shows {SHOWN_PER_STEP} error and "
                f"{SHOWN_PER_STEP} warning annotations per step. Run tpuemb locally or upload "
                "SARIF for the full list."
            )
        )
    return "".join(line + "\n" for line in lines)
