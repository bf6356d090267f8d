"""Output formats: one module each, found by name in this registry (never an if/elif chain).

A formatter turns the findings of a run into one output format and nothing else. Modules are
imported only when their format is used, so unused formats cost no start-up time.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Protocol

from tpuemb_cli.model.findings import Finding, Severity
from tpuemb_cli.model.records import Record
from tpuemb_cli.model.words import count, plural


class Report(Record):
    """What a formatter gets.

    ``findings``: every finding, sorted; ``files_checked``: how many inputs were read;
    ``sources``: the text of each text input by file name, for formats that quote it;
    ``unreadable``: how many inputs could not be read (each reported on stderr);
    ``unsafe_fixes``: whether unsafe fixes are enabled (their findings are marked fixable);
    ``fixed``: how many fixes ``--fix`` made (None: the run fixed nothing);
    ``skipped``: how many named or found inputs were skipped, not being TPU embedding
    documents; ``quiet``: the findings alone, no summary; ``command``: the command whose report
    it is: ``check``, or ``diff``, whose findings are changes (``files_checked`` counts the
    pairs of files compared).
    """

    findings: Sequence[Finding]
    files_checked: int
    sources: Mapping[str, str] = {}
    unreadable: int = 0
    unsafe_fixes: bool = False
    fixed: int | None = None
    # Rules whose fixes this run does not apply (--fixable / --unfixable): not marked fixable.
    unfixable: frozenset[str] = frozenset()
    skipped: int = 0
    quiet: bool = False
    command: str = "check"

    def count(self, severity: Severity) -> int:
        return sum(1 for finding in self.findings if finding.severity is severity)

    @property
    def files_with_findings(self) -> int:
        return len({finding.file for finding in self.findings})

    def fixable_now(self, finding: Finding) -> bool:
        """Whether this run's ``--fix`` (with its ``--unsafe-fixes``) would fix ``finding``:
        what the ``[*]`` mark says."""
        fix = finding.autofix
        return (
            fix is not None
            and (fix.safe or self.unsafe_fixes)
            and finding.rule not in self.unfixable
        )

    @property
    def fixable(self) -> int:
        """How many findings this run's ``--fix`` would fix (those marked ``[*]``)."""
        return sum(1 for finding in self.findings if self.fixable_now(finding))

    @property
    def hidden_fixes(self) -> int:
        """How many findings have an unsafe fix that ``--unsafe-fixes`` would enable."""
        if self.unsafe_fixes:
            return 0
        return sum(
            1
            for f in self.findings
            if f.autofix is not None and not f.autofix.safe and f.rule not in self.unfixable
        )


class Formatter(Protocol):
    def __call__(self, report: Report, color: bool) -> str: ...


FORMATS: dict[str, str] = {
    "full": "tpuemb_cli.formatters.full",
    "concise": "tpuemb_cli.formatters.concise",
    "json": "tpuemb_cli.formatters.json_format",
    "json-lines": "tpuemb_cli.formatters.json_lines",
    "sarif": "tpuemb_cli.formatters.sarif",
    "github": "tpuemb_cli.formatters.github",
    "markdown": "tpuemb_cli.formatters.markdown",
    "html": "tpuemb_cli.formatters.html",
}
# `text` was the first release's name for the human format.
ALIASES = {"text": "full"}


def register(name: str, module: str) -> None:
    """Adds an output format: ``module`` defines ``format_report(report, color) -> str``."""
    FORMATS[name] = module


def names() -> list[str]:
    """Every format's name, aliases last (for --format's choices)."""
    return [*FORMATS, *ALIASES]


def get(name: str) -> Formatter:
    module = importlib.import_module(FORMATS[ALIASES.get(name, name)])
    formatter: Formatter = module.format_report
    return formatter


def _changes_summary(report: Report) -> str:
    """``Found 3 changes: 1 restore-error, 2 training-change (1 file pair compared).``; what is
    not a change (an acknowledgement that matched nothing) is counted after them."""
    compared = f"{plural(report.files_checked, 'file pair')} compared"
    if report.unreadable:
        compared += f"; {plural(report.unreadable, 'file pair')} could not be compared"
    counts: dict[tuple[bool, str, str], int] = {}  # (not a change, code, name): worst first
    from tpuemb_cli.rules import command_codes

    # Changes, and what diff itself reports (an acknowledgement that matched nothing); never
    # the lint findings of a file that could not be compared: they are said above, not counted.
    own = command_codes("diff")
    for finding in report.findings:
        if finding.change is None and finding.rule not in own:
            continue
        key = (finding.change is None, finding.rule, finding.name)
        counts[key] = counts.get(key, 0) + 1
    changes = sum(count for (other, _, _), count in counts.items() if not other)
    listed = ", ".join(f"{count(n)} {name}" for (_, _, name), n in sorted(counts.items()))
    if not changes and report.unreadable and not report.files_checked:
        # Not "No changes" when no pair was compared (exit 2): a gate reading the line must not
        # take it for a pass.
        said = f"; {listed}" if counts else ""
        uncompared = f"{plural(report.unreadable, 'file pair')} could not be compared"
        return f"Nothing compared{said} ({uncompared})."
    if not counts:
        return f"No changes ({compared})."
    if not changes:
        return f"No changes; {listed} ({compared})."
    return f"Found {plural(changes, 'change')}: {listed} ({compared})."


def transition(finding: Finding) -> str:
    """``16 -> 8``, ``(none) -> users``: a change's values (empty for other findings, and for a
    change that has none on either side: a silent-reinit says what moved in its message)."""
    if finding.change is None or (finding.change.old is None and finding.change.new is None):
        return ""

    def shown(value: object) -> str:
        if value is None:
            return "(none)"
        return str(value).lower() if isinstance(value, bool) else str(value)

    return f"{shown(finding.change.old)} -> {shown(finding.change.new)}"


def summary(report: Report) -> str:
    """``Found 2 errors, 1 warning in 1 file (3 files checked).``, ``All checks passed ...``,
    ``No files checked ...``; after ``--fix``, ``Found 3 findings (2 fixed, 1 remaining: ...)``;
    then what ``--fix`` and ``--unsafe-fixes`` would fix, as ruff says it. For ``diff``, the
    changes by kind."""
    if report.command == "diff":
        return _changes_summary(report)
    checked = f"{plural(report.files_checked, 'file')} checked"
    if report.unreadable:
        # Not "all checks passed": some inputs were not checked at all.
        checked += f"; {plural(report.unreadable, 'input')} could not be read"
    counts = ", ".join(
        plural(report.count(severity), str(severity))
        for severity in (Severity.ERROR, Severity.WARNING, Severity.INFO)
        if report.count(severity)
    )
    files = plural(report.files_with_findings, "file")
    if report.fixed:
        remaining = len(report.findings)
        total = plural(report.fixed + remaining, "finding")
        left = f"{remaining} remaining: {counts}" if remaining else "0 remaining"
        line = f"Found {total} ({report.fixed} fixed, {left}); {checked}."
    elif report.findings:
        line = f"Found {counts} in {files} ({checked})."
    elif report.unreadable:
        line = f"No findings ({checked})."
    elif not report.files_checked:
        # Nothing was looked at: passing would be a lie (stderr says what was skipped and why).
        line = f"No files checked ({plural(report.skipped, 'input')} skipped)."
    else:
        line = f"All checks passed ({checked})."
    hidden = (
        f"{plural(report.hidden_fixes, 'hidden fix', 'hidden fixes')} can be enabled with "
        "`--unsafe-fixes`"
        if report.hidden_fixes
        else ""
    )
    if report.fixable:
        line += f"\n[*] {plural(report.fixable, 'finding')} fixable with `--fix`"
        line += f" ({hidden})." if hidden else "."
    elif hidden:
        line += f"\nNo fixes available ({hidden})."
    return line


def location(finding: Finding) -> str:
    """``file:line:col``, or ``file`` for input without positions."""
    if finding.position is None:
        return finding.file
    return f"{finding.file}:{finding.position.line}:{finding.position.column}"
