"""The tpuemb GitHub Action's one step (action.yml): `tpuemb check` on the paths, annotations
in the log; on a pull request, `tpuemb diff --against` its base on the configs it changes; the
findings and changes in the job's step summary (tpuemb's ``--format markdown``, each report within
GitHub's limits); the exit codes and counts as step outputs.

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


def _markdown(path: Path) -> str:
    """A report tpuemb wrote with ``--format markdown`` (within GitHub's limits), or ""."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


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
    markdown = _flag("summary", True)
    if _flag("check", True):
        report, written = scratch / "check.json", scratch / "check.md"
        args = ["check", "--format", "github", *shlex.split(_input("check-args"))]
        sarif = _input("sarif")
        if sarif:
            args += ["--format", "sarif", "--output-file", sarif]
        if markdown:
            args += ["--format", "markdown", "--output-file", str(written)]
        args += ["--format", "json", "--output-file", str(report), "--", *paths]
        code = _run(args, workspace)
        codes.append(code)
        found = _report(report)
        outputs["check-exit-code"] = str(code)
        outputs["findings"] = str(len(found.get("findings", [])))
        summary.append(_markdown(written))
    base = _base(workspace) if _flag("diff", True) else ""
    if base:
        if not _have(base, workspace):
            _fail(f"the base {base!r} is not in the checkout and could not be fetched")
        changed = _changed(base, paths, workspace)
        if changed is None:
            _fail(f"git cannot list what changed since {base!r}")
        assert changed is not None
        if changed:
            report, written = scratch / "diff.json", scratch / "diff.md"
            args = ["diff", "--against", base, "--documents-only", "--format", "github"]
            args += shlex.split(_input("diff-args"))
            if markdown:
                args += ["--format", "markdown", "--output-file", str(written)]
            args += ["--format", "json", "--output-file", str(report), "--", *changed]
            code = _run(args, workspace)
            codes.append(code)
            found = _report(report)
            outputs["diff-exit-code"] = str(code)
            outputs["changes"] = str(len(found.get("changes", [])))
            # What was compared with what, under the report's heading.
            heading, _, rest = _markdown(written).partition("\n\n")
            compared = f"{len(changed)} changed files compared with `{base}` (exit code {code})."
            summary.append(f"{heading or '## tpuemb diff'}\n\n{compared}\n\n{rest}")
        else:
            summary.append(f"## tpuemb diff\n\nNo file under the paths changed since `{base}`.\n")
    if markdown and summary:
        _append("GITHUB_STEP_SUMMARY", "\n".join(summary))
    _append("GITHUB_OUTPUT", "".join(f"{key}={value}\n" for key, value in outputs.items()))
    if 2 in codes:
        return 2
    return 1 if 1 in codes else 0


if __name__ == "__main__":
    sys.exit(main())
