"""A number that does not load is its load problem (TE005), and what the rules would compute
from the default left in its place gives way (issue 36): an out-of-range integer in an
EmbeddingSpecProto, a JAX spec, a TensorFlow config, a spec (YAML) and a SparseCore spec, each at
a field another rule reads. `tpuemb check` end to end; the slow sweep puts every integer of each
example out of range in turn."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from tpuemb_cli.cli import main

ROOT = Path(__file__).parent.parent
TOO_BIG = "18446744073709551616"  # 2^64: no integer field holds it
# (example, the text to replace once, where it goes): each fed another rule before.
CASES = {
    "proto stack_vocab_size (TE685)": (
        "tests/data/jax/stacked.pbtxt",
        "stack_vocab_size: 6080",
        f"stack_vocab_size: {TOO_BIG}",
    ),
    "proto output_shape (TE686, TE690)": (
        "tests/data/jax/stacked.pbtxt",
        "output_shape: 128",
        f"output_shape: {TOO_BIG}",
    ),
    "proto padded_vocab_size (TE682)": (
        "tests/data/jax/stacked.pbtxt",
        "padded_vocab_size: 1024",
        f"padded_vocab_size: -{TOO_BIG}",
    ),
    "jax spec map value (TE694)": (
        "tests/data/jax/compile/explicit.spec.textproto",
        "value: 512",
        f"value: {TOO_BIG}",
    ),
    "jax spec output_shape (TE696, TE690)": (
        "tests/data/jax/compile/explicit.spec.textproto",
        "output_shape: 128",
        f"output_shape: {TOO_BIG}",
    ),
    "config dimension (TE306)": (
        "examples/recommender.pbtxt",
        "dimension: 2",
        f"dimension: {TOO_BIG}",
    ),
    "config input_shape (TE411)": (
        "examples/recommender.pbtxt",
        "input_shape: 256",
        f"input_shape: {TOO_BIG}",
    ),
    "spec tag (TE713)": ("examples/recommender.spec.yaml", "tag: 0", f"tag: {TOO_BIG}"),
    "spec batch (TE723)": (
        "examples/recommender.spec.yaml",
        "per_replica_batch_size: 256",
        f"per_replica_batch_size: {TOO_BIG}",
    ),
    "sparsecore output_shape (TE661)": (
        "examples/sparsecore/dlrm.spec.yaml",
        "c14, table: cat_0, output_shape: [1024]",
        f"c14, table: cat_0, output_shape: [{TOO_BIG}]",
    ),
}


def _codes(path: Path) -> list[str]:
    result = CliRunner().invoke(main, ["check", "--format", "concise", str(path)])
    assert result.exit_code in (0, 1), result.output
    return re.findall(r": (TE\d+) \[", result.stdout)


@pytest.mark.parametrize("name", list(CASES))
def test_an_integer_that_did_not_load_is_its_problem_alone(name: str, tmp_path: Path) -> None:
    example, old, new = CASES[name]
    source = ROOT / example
    text = source.read_text()
    assert old in text
    path = tmp_path / source.name
    path.write_text(text.replace(old, new, 1))
    base = (tmp_path / "base").with_suffix(source.suffix)
    base.write_text(text)
    # Nothing but the load problem is new (a finding of the base may give way too).
    assert Counter(_codes(path)) - Counter(_codes(base)) == Counter(["TE005"]), name


_INTEGER = re.compile(r"(?<=[:\s\[,])(-?\d+)(?=[\s,\]\n])")
EXAMPLES = [
    "tests/data/jax/stacked.pbtxt",
    "tests/data/jax/compile/explicit.spec.textproto",
    "tests/data/jax/compile/auto.spec.textproto",
    "examples/recommender.pbtxt",
    "examples/ranking_model.pbtxt",
    "examples/recommender.spec.yaml",
    "examples/sparsecore/dlrm.spec.yaml",
]


@pytest.mark.slow
@pytest.mark.parametrize("example", EXAMPLES)
def test_every_integer_that_did_not_load_is_its_problem_alone(example: str, tmp_path: Path) -> None:
    from tpuemb_cli.api import lint_file

    source = ROOT / example
    text = source.read_text()
    base = sorted(finding.message for finding in lint_file(source, isolated=True))
    path = tmp_path / source.name
    for match in _INTEGER.finditer(text):
        for bad in (TOO_BIG, "-" + TOO_BIG):
            path.write_text(text[: match.start()] + bad + text[match.end() :])
            findings = lint_file(path, isolated=True)
            if not any(finding.rule == "TE005" for finding in findings):
                continue  # not an integer field (a float holds it), or another problem
            others = [
                f"{finding.rule} {finding.message}"
                for finding in findings
                if not finding.rule.startswith("TE00") and finding.message not in base
            ]
            line = text.count("\n", 0, match.start()) + 1
            assert others == [], (example, line, bad)
