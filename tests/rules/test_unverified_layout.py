"""TE958 unverified-layout: against an Orbax checkpoint that holds no EmbeddingSpecProto, each
stack that restores by name and shape is reported (more in tests/test_orbax_diff.py)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tpuemb_cli.cli import main

DATA = Path(__file__).resolve().parent.parent / "data" / "orbax"
LAYOUT = DATA / "adam_manager" / "ckpt" / "7" / "embedding_spec" / "embedding_spec.pbtxt"


def test_reported_as_a_warning_outside_the_default_fail_on(tmp_path: Path) -> None:
    checkpoint = DATA / "sgd_standard" / "ckpt"  # written by StandardCheckpointer: no proto
    args = ["diff", "--isolated", "--format", "json", "--against-checkpoint", str(checkpoint)]
    result = CliRunner().invoke(main, [*args, str(LAYOUT)])
    assert result.exit_code == 0, result.output
    [change] = json.loads(result.stdout)["changes"]
    assert (change["rule"], change["kind"], change["table"]) == (
        "TE958",
        "unverified-layout",
        "user_item",
    )
    assert change["field"] == "stacked_table_specs[0]"
    assert CliRunner().invoke(main, [*args, "--fail-on", "TE958", str(LAYOUT)]).exit_code == 1


def test_never_where_the_checkpoint_holds_its_layout() -> None:
    checkpoint = DATA / "adam_manager" / "ckpt"
    result = CliRunner().invoke(
        main, ["diff", "--isolated", "--against-checkpoint", str(checkpoint), str(LAYOUT)]
    )
    assert result.exit_code == 0 and "unverified-layout" not in result.output
