"""Every input that once crashed tpuemb (fuzz/regressions/) now loads and lints, and the CLI
answers it with exit 0, 1 or 2 and no traceback."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.engine import Engine
from tpuemb_cli.load import load_bytes

REGRESSIONS = sorted(
    p
    for p in (Path(__file__).parent.parent / "fuzz" / "regressions").iterdir()
    if p.suffix != ".md"
)


def test_there_are_regressions_to_replay() -> None:
    assert len(REGRESSIONS) >= 3


@pytest.mark.parametrize("path", REGRESSIONS, ids=lambda p: p.name)
def test_replays_cleanly(path: Path) -> None:
    started = time.monotonic()
    findings = Engine().lint(load_bytes(path.read_bytes(), path.name))
    assert time.monotonic() - started < 5  # some were hangs, not crashes
    assert "TE010" not in {f.rule for f in findings}  # internal-error: tpuemb failed on it
    result = CliRunner().invoke(main, ["check", "--format", "json", str(path)])
    assert result.exit_code in (0, 1)
    assert "Traceback" not in result.output + result.stderr
    assert "internal error" not in result.stderr
    assert "TE010" not in {f["rule"] for f in json.loads(result.stdout)["findings"]}
