"""What the tests of the kinds of change (tests/rules/test_<kind>.py) share: `tpuemb diff` of
the clean config with an edited copy, its JSON report's changes, and the same edit acknowledged
by a comment in the new file."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from tpuemb_cli.cli import main

from .helpers import CLEAN


def diff_of(tmp_path: Path, new: str, *args: str, old: str = CLEAN) -> Result:
    (tmp_path / "old.pbtxt").write_text(old)
    (tmp_path / "new.pbtxt").write_text(new)
    return CliRunner().invoke(
        main,
        ["diff", "--isolated", "--format", "json", *args, "old.pbtxt", "new.pbtxt"],
        catch_exceptions=False,
    )


def kinds(result: Result) -> list[tuple[str, str, str]]:
    """(rule, kind, field) of each change the JSON report has."""
    report = json.loads(result.stdout)
    return [(c["rule"], c["kind"], c["field"]) for c in report["changes"]]
