"""`tpuemb diff` of two 10,000-table configs against linting one of them (target <= 2.5x).

Both sides are read (a diff reads two files where a lint reads one), their tables matched
(these are named `table_<i>`, as TensorFlow names unnamed tables: the matching by features and
by order and shape runs over all of them) and compared field by field; the new side changes a
learning rate in the middle and a dimension in the last table, so that the report has changes
to place. The JSON report is written in both measurements.

A second measurement renames every table (`t<i>` -> `u<i>`, each keeping its shape and
optimizer): each rename must be recognised by a look-up, not by comparing every gone table with
every new one (10,000 renames took 136 s when it did).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bench.configs import build, render
from tpuemb_cli import formatters
from tpuemb_cli.workspace import Version, Workspace, diff_versions

TABLES = 10_000


def _files(directory: Path) -> tuple[Path, Path]:
    old = build(TABLES)
    new = build(TABLES)
    new.table_descriptor[TABLES // 2].optimization_parameters.learning_rate.constant = 0.5
    new.table_descriptor[-1].dimension *= 2
    paths = directory / "diff-old.pbtxt", directory / "diff-new.pbtxt"
    paths[0].write_bytes(render(old)["text"])
    paths[1].write_bytes(render(new)["text"])
    return paths


def _renamed(directory: Path) -> tuple[Path, Path]:
    old, new = build(TABLES), build(TABLES)
    for index, (before, after) in enumerate(
        zip(old.table_descriptor, new.table_descriptor, strict=True)
    ):
        before.name, after.name = f"t{index}", f"u{index}"
    paths = directory / "renamed-old.pbtxt", directory / "renamed-new.pbtxt"
    paths[0].write_bytes(render(old)["text"])
    paths[1].write_bytes(render(new)["text"])
    return paths


def run(
    directory: Path, best_of: Callable[[Callable[[], object], int], float], repeat: int
) -> tuple[float, float]:
    """Prints the times and returns (diff / lint, diff with every table renamed / lint)."""
    old, new = _files(directory)
    # Both through the workspace, as `check` and `diff` run them (no configuration).
    linting, diffing = Workspace(isolated=True), Workspace(isolated=True, command="diff")

    def lint() -> None:
        linted = linting.lint_document(new.read_bytes(), str(new))
        formatters.get("json")(formatters.Report(linted.findings, 1), False)

    def diff() -> None:
        before = Version(old.read_bytes(), str(old))
        after = Version(new.read_bytes(), str(new))
        diffed = diff_versions(diffing, before, after, str(new))
        kinds = [f.name for f in diffed.findings]
        assert kinds == ["training-change", "restore-error"], diffed.findings
        report = formatters.Report(diffed.findings, 1, command="diff")
        formatters.get("json")(report, False)

    renamed_old, renamed_new = _renamed(directory)

    def renamed() -> None:
        before = Version(renamed_old.read_bytes(), str(renamed_old))
        after = Version(renamed_new.read_bytes(), str(renamed_new))
        diffed = diff_versions(diffing, before, after, str(renamed_new))
        kinds = {f.name for f in diffed.findings}
        # Each rename: the new name starts afresh, the old one's state is orphaned.
        assert kinds == {"silent-reinit", "orphaned-state"}, kinds
        assert len(diffed.findings) == 2 * TABLES, len(diffed.findings)
        formatters.get("json")(formatters.Report(diffed.findings, 1, command="diff"), False)

    lint_time, diff_time = best_of(lint, repeat), best_of(diff, repeat)
    renamed_time = best_of(renamed, repeat)
    print(f"\n`tpuemb diff` of two {TABLES:,}-table text configs")
    print(
        f"  lint one: {lint_time:.3f} s   diff two: {diff_time:.3f} s   "
        f"every table renamed: {renamed_time:.3f} s"
    )
    return diff_time / lint_time, renamed_time / lint_time
