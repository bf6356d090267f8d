"""TE730 spec-drift: `tpuemb check --spec SPEC CONFIG`."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tests.helpers import CONFIGS, DATA
from tpuemb_cli.cli import main

SPEC = DATA / "specs" / "shared_callable_lr.yaml"


def test_each_difference_with_both_locations(tmp_path: Path) -> None:
    config = tmp_path / "config.pbtxt"
    text = (CONFIGS / "shared_callable_lr.pbtxt").read_text()
    config.write_text(
        text.replace("dimension: 4", "dimension: 8", 1).replace("num_hosts: 1", "num_hosts: 2")
    )
    result = CliRunner().invoke(main, ["check", "--spec", str(SPEC), str(config)])
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:2] == [
        f"{config}:4:3: TE730 [error] `table_descriptor[0].dimension` is 8, the spec compiles to 4 "
        f"(spec: {SPEC}:6:37 (tables[0].dim))",
        f"{config}:62:1: TE730 [error] `num_hosts` is 2, the spec compiles to 1 "
        f"(spec: {SPEC}:15:12 (topology.num_hosts))",
    ]


def test_near_miss_tensorflows_own_config_has_no_drift() -> None:
    result = CliRunner().invoke(
        main, ["check", "--spec", str(SPEC), str(CONFIGS / "shared_callable_lr.pb")]
    )
    assert (result.exit_code, result.stdout) == (0, "All checks passed (1 file checked).\n")
