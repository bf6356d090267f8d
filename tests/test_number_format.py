"""One number renderer for every view (issue 26, point 10): `explain`, `explain --memory`, the
SparseCore explain and the compile messages write counts with thousands separators, never as a
bare run of five digits or more."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.model.words import count, plural

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
# A run of five or more digits that is not part of a word (`table_12345`), a decimal or a
# thousands-separated number.
BARE = re.compile(r"(?<![\w.,])\d{5,}(?![\w.,])")

LARGE = """\
mode: TRAINING
num_hosts: 2
num_tensor_cores: 16
table_descriptor { name: "ids" vocabulary_size: 2000000 dimension: 64
  optimization_parameters { learning_rate { constant: 0.1 } adagrad {} } }
feature_descriptor { name: "a" table_id: 0 input_shape: 8 }
"""


def _out(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code in (0, 1), result.output
    return result.output


def test_count_and_plural_separate_thousands() -> None:
    assert [count(812), count(12_000), count(-2_000_000)] == ["812", "12,000", "-2,000,000"]
    assert plural(1, "core") == "1 core"
    assert plural(12_000, "core") == "12,000 cores"


def test_explain_and_memory_write_one_format(tmp_path: Path) -> None:
    path = tmp_path / "large.pbtxt"
    path.write_text(LARGE)
    explained = _out("explain", str(path))
    memory = _out("explain", "--memory", "--tpu", "v5e", str(path))
    assert "2,000,000 x 64" in explained
    assert "125,000 x 64" in memory
    for text in (explained, memory):
        assert BARE.findall(text) == []


@pytest.mark.parametrize(
    "args",
    [
        ("explain", "examples/recommender.pbtxt"),
        ("explain", "examples/recommender.spec.yaml"),
        ("explain", "examples/sparsecore/dlrm.spec.yaml"),
        ("explain", "--memory", "--tpu", "v5p", "examples/sparsecore/dlrm.spec.yaml"),
        ("explain", "--memory", "--tpu", "v5e", "examples/recommender.pbtxt"),
    ],
)
def test_no_view_prints_a_bare_count(args: tuple[str, ...]) -> None:
    *command, path = args
    output = _out(*command, str(EXAMPLES.parent / path))
    assert BARE.findall(output) == []


def test_compile_messages_separate_thousands(tmp_path: Path) -> None:
    spec = tmp_path / "bad.spec.yaml"
    spec.write_text(
        "optimizer: {sgd: {}, learning_rate: {constant: 0.1}}\n"
        "tables:\n  - {name: t, vocabulary_size: 20000, dim: 0}\n"
        "features:\n  - {name: f, table: t, output_shape: [16]}\n"
        "topology: {num_hosts: 1, cores_per_host: 12000, num_cores_per_replica: 7000,\n"
        "  per_replica_batch_size: 16, sparse_cores_per_chip: 4}\n"
        "sparse_core: {}\n"
    )
    result = CliRunner().invoke(main, ["compile", "--target", "sparsecore", str(spec)])
    assert result.exit_code != 0
    assert BARE.findall(result.output) == []
