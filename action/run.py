"""The tpuemb GitHub Action's one step (action.yml): `tpuemb check` on the paths, annotations
in the log; on a pull request, `tpuemb diff --against` its base on the configs it changes; the
findings and changes in the job's step summary; the exit codes and counts as step outputs.

It runs in the runner's Python with tpuemb installed, and reads what a runner sets: the inputs
(``INPUT_*``, passed by action.yml through ``env:``, never pasted into a shell line),
``GITHUB_EVENT_NAME`` and ``GITHUB_EVENT_PATH`` (the pull request's base commit),
``GITHUB_WORKSPACE``, ``GITHUB_STEP_SUMMARY`` and ``GITHUB_OUTPUT``. Only the standard library:
it talks to tpuemb through its command line, as a user's workflow would.

Exit status: 2 when check or diff could not read an input (or the base), else 1 when either
found what fails it (check: findings of error severity by default; diff: the kinds of change
`--fail-on` names, restore-error and silent-reinit by default), else 0.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

# The installed command (not `python -m`, which would put the checkout first on sys.path).
TPUEMB = [shutil.which("tpuemb") or "tpuemb"]
# The step summary's tables stop here: a summary past 1 MiB is refused by GitHub.
MOST_ROWS = 50


def _input(name: str, default: str = "") -> str:
    return os.environ.get(f"INPUT_{name.upper().replace('-', '_')}", default).strip()


def _flag(name: str, default: bool) -> bool:
    value = _input(name, "true" if default else "false").lower()
    if value not in ("true", "false"):
        _fail(f"input `{name}` must be true or false, not {value!r}")
    return value == "true"


def _fail(message: str) -> None:
    print(f"::error title=tpuemb action::{message}")
    sys.exit(2)


def _run(args: list[str], cwd: Path) -> int:
    """Runs tpuemb; its stdout (the annotations) and stderr go to the job's log."""
    print(f"$ tpuemb {shlex.join(args)}", flush=True)
    return subprocess.run([*TPUEMB, *args], cwd=cwd, check=False).returncode


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


def _base(workspace: Path) -> str:
    """The revision to compare with: the input, else a pull request's base commit, else none."""
    given = _input("base")
    if given:
        return given
    if os.environ.get("GITHUB_EVENT_NAME") not in ("pull_request", "pull_request_target"):
        return ""
    event_path = os.environ.get("GITHUB_EVENT_PATH", "")
    try:
        event = json.loads(Path(event_path).read_text())
        sha = event["pull_request"]["base"]["sha"]
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    return sha if isinstance(sha, str) else ""


def _have(revision: str, workspace: Path) -> bool:
    """Whether the checkout holds ``revision``; fetched if not (actions/checkout fetches one
    commit by default)."""
    if _git(["cat-file", "-e", f"{revision}^{{commit}}"], workspace).returncode == 0:
        return True
    fetched = _git(["fetch", "--no-tags", "--depth=1", "origin", revision], workspace)
    return fetched.returncode == 0


def _changed(base: str, paths: list[str], workspace: Path) -> list[str] | None:
    """The files under ``paths`` that differ from ``base`` (added, changed or renamed; a file
    deleted has nothing new to compare); None when git cannot tell."""
    found = _git(["diff", "--name-only", "-z", "--diff-filter=AMR", base, "--", *paths], workspace)
    if found.returncode != 0:
        return None
    return [name for name in found.stdout.split("\0") if name]


def _report(path: Path) -> dict[str, Any]:
    try:
        report: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return report


def _cell(text: Any) -> str:
    """A value in a markdown table: one line, no column break."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _place(item: dict[str, Any]) -> str:
    line = item.get("line")
    return f"{item.get('file', '')}:{line}" if line else str(item.get("file", ""))


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    """A markdown table of the first MOST_ROWS rows, and how many more there are."""
    if not rows:
        return []
    lines = ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows[:MOST_ROWS]]
    if len(rows) > MOST_ROWS:
        lines.append(f"\nand {len(rows) - MOST_ROWS} more (the annotations list them).")
    return lines


def _check_summary(report: dict[str, Any], code: int) -> list[str]:
    summary = report.get("summary", {})
    rows = [
        [
            _cell(_place(finding)),
            f"{finding.get('rule')} {finding.get('name')}",
            str(finding.get("severity")),
            _cell(finding.get("message", "")),
        ]
        for finding in report.get("findings", [])
    ]
    return [
        "### tpuemb check",
        "",
        f"{summary.get('files_checked', 0)} files checked: {summary.get('errors', 0)} errors, "
        f"{summary.get('warnings', 0)} warnings, {summary.get('infos', 0)} infos "
        f"(exit code {code}).",
        *_table(["where", "rule", "severity", "message"], rows),
    ]


def _diff_summary(report: dict[str, Any], code: int, base: str, files: int) -> list[str]:
    changes = report.get("changes", [])
    rows = [
        [
            _cell(_place(change)),
            str(change.get("kind")),
            _cell(change.get("table") or ""),
            f"{_cell(change.get('old'))} -> {_cell(change.get('new'))}",
            _cell(change.get("message", "")),
        ]
        for change in changes
    ]
    return [
        "### tpuemb diff",
        "",
        f"{files} changed files compared with `{_cell(base)}`: {len(changes)} changes "
        f"(exit code {code}).",
        *_table(["where", "kind", "table", "old -> new", "message"], rows),
    ]


def _append(variable: str, text: str) -> None:
    target = os.environ.get(variable)
    if target:
        with Path(target).open("a", encoding="utf-8") as file:
            file.write(text)


def main() -> int:
    workspace = Path(os.environ.get("GITHUB_WORKSPACE") or Path.cwd())
    paths = _input("paths", ".").split() or ["."]
    outputs: dict[str, str] = {
        "check-exit-code": "",
        "diff-exit-code": "",
        "findings": "0",
        "changes": "0",
    }
    summary: list[str] = []
    codes: list[int] = []
    scratch = Path(tempfile.mkdtemp(prefix="tpuemb-action-"))
    if _flag("check", True):
        report = scratch / "check.json"
        args = ["check", "--format", "github", *shlex.split(_input("check-args"))]
        sarif = _input("sarif")
        if sarif:
            args += ["--format", "sarif", "--output-file", sarif]
        args += ["--format", "json", "--output-file", str(report), "--", *paths]
        code = _run(args, workspace)
        codes.append(code)
        found = _report(report)
        outputs["check-exit-code"] = str(code)
        outputs["findings"] = str(len(found.get("findings", [])))
        summary += _check_summary(found, code)
    base = _base(workspace) if _flag("diff", True) else ""
    if base:
        if not _have(base, workspace):
            _fail(f"the base {base!r} is not in the checkout and could not be fetched")
        changed = _changed(base, paths, workspace)
        if changed is None:
            _fail(f"git cannot list what changed since {base!r}")
        assert changed is not None
        if changed:
            report = scratch / "diff.json"
            args = ["diff", "--against", base, "--documents-only", "--format", "github"]
            args += [*shlex.split(_input("diff-args")), "--format", "json"]
            args += ["--output-file", str(report), "--", *changed]
            code = _run(args, workspace)
            codes.append(code)
            found = _report(report)
            outputs["diff-exit-code"] = str(code)
            outputs["changes"] = str(len(found.get("changes", [])))
            summary += ["", *_diff_summary(found, code, base, len(changed))]
        else:
            summary += [
                "",
                "### tpuemb diff",
                "",
                f"No file under the paths changed since `{base}`.",
            ]
    if _flag("summary", True) and summary:
        _append("GITHUB_STEP_SUMMARY", "\n".join(["## tpuemb", "", *summary]) + "\n")
    _append("GITHUB_OUTPUT", "".join(f"{key}={value}\n" for key, value in outputs.items()))
    if 2 in codes:
        return 2
    return 1 if 1 in codes else 0


if __name__ == "__main__":
    sys.exit(main())
