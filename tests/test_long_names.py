"""A name of 200,000 characters is quoted by its ends and its length in every rule's message, not
whole (TE403 quoted a 50 MB name in full: one finding line of 50 MB)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.jax_specs import STACKED
from tpuemb_cli.cli import main

LONG = "n" * 199_999 + "z"


def findings(path: Path, *options: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(main, ["check", "--format", "json", str(path), *options])
    assert result.exit_code == 1, result.output
    found: list[dict[str, object]] = json.loads(result.stdout)["findings"]
    return found


def assert_shown(messages: list[str]) -> None:
    assert messages
    for message in messages:
        assert len(message) < 1_000, message[:200]
    assert any("(200,000 characters)" in message for message in messages), messages


def test_config_table_name(tmp_path: Path) -> None:
    path = tmp_path / "long.pbtxt"
    path.write_text(
        f'table_descriptor {{ name: "{LONG}" vocabulary_size: 0 dimension: 8 '
        "optimization_parameters { sgd {} } }\n"
        f'feature_descriptor {{ name: "{LONG}" table_id: 0 input_shape: 4 }}\n'
        "num_hosts: 1 num_tensor_cores: 8\n"
    )
    found = findings(path)
    assert_shown([str(finding["message"]) for finding in found])


def test_spec_table_name(tmp_path: Path) -> None:
    path = tmp_path / "long.spec.yaml"
    path.write_text(
        "optimizer: {sgd: {learning_rate: 0.1}}\n"
        f"tables: [{{name: {LONG}, vocabulary_size: 0, dim: 8}}]\n"
        f"features: [{{name: {LONG}, table: {LONG}}}]\n"
        "topology: {num_hosts: 1, num_tensor_cores: 8}\n"
    )
    assert_shown([str(finding["message"]) for finding in findings(path)])


def test_jax_stack_name(tmp_path: Path) -> None:
    path = tmp_path / "stacked.pbtxt"
    path.write_text(STACKED.replace('stack_name: "video_user"', f'stack_name: "{LONG}"', 1))
    path.write_text(path.read_text().replace('table_name: "video"', f'table_name: "{LONG}"', 1))
    text = path.read_text().replace("max_ids_per_partition: ", "max_ids_per_partition: -", 1)
    path.write_text(text)
    assert_shown([str(finding["message"]) for finding in findings(path)])
