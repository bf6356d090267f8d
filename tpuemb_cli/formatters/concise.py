"""One line per finding: ``file:line:col: CODE [severity] message``, then a summary line.

A change (``tpuemb diff``) says its kind before its message: ``CODE [severity] kind: message``.
A finding that ``--fix`` would fix has ``[*]`` after its code, as in ruff:
``file:line:col: CODE [*] [severity] message``. ``--quiet`` leaves the summary out.

The default when stdout is not a terminal; easy to grep and for editors to parse. Binary input
has no lines, so its findings name the field instead: ``file: CODE [severity] message (at path)``.
Control characters in names and messages are escaped (``style.printable``): one finding, one line.
"""

from __future__ import annotations

from tpuemb_cli.formatters import Report, location, summary
from tpuemb_cli.formatters.style import paint, printable


def format_report(report: Report, color: bool) -> str:
    lines = []
    for finding in report.findings:
        at = f" (at {finding.field})" if finding.position is None and finding.field else ""
        severity = paint(str(finding.severity), finding.severity, color)
        code = paint(finding.rule, None, color, bold=True)
        mark = " [*]" if report.fixable_now(finding) else ""
        # A change (`tpuemb diff`) says its kind: the word its gate (`--fail-on`) uses.
        kind = f"{finding.name}: " if finding.change is not None else ""
        where, message = printable(location(finding)), printable(kind + finding.message + at)
        lines.append(f"{where}: {code}{mark} [{severity}] {message}")
    if not report.quiet:
        lines.append(summary(report))
    return "\n".join(lines) + "\n" if lines else ""
