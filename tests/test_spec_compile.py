"""`tpuemb compile`: each spec in tests/data/specs/ compiles to TensorFlow's own bytes.

Each spec describes the Python objects of one case in tests/data/tf-2.21/config/cases.py.txt;
the .pb beside the case is what TensorFlow 2.21's TPUEmbedding wrote for them, including
custom_optimizer: tf.tpu.experimental.embedding.CustomOptimizer is the spec's `custom` optimizer,
which compiles to no optimization algorithm as TensorFlow's does (rule TE201 reports it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tpuemb_cli.load import load_bytes
from tpuemb_cli.spec.compiler import compile_spec

from .helpers import CONFIGS, DATA

SPECS = sorted((DATA / "specs").glob("*.yaml"))


def test_every_case_has_a_spec() -> None:
    cases = {path.stem for path in CONFIGS.glob("*.pb")}
    assert {path.stem for path in SPECS} == cases
    assert len(SPECS) == 15


@pytest.mark.parametrize("spec", SPECS, ids=lambda path: path.stem)
def test_compiles_to_tensorflows_bytes(spec: Path) -> None:
    document = load_bytes(spec.read_bytes(), str(spec))
    assert document.problems == [] and document.message is not None
    compiled = compile_spec(document.message)  # type: ignore[arg-type]
    expected = (CONFIGS / f"{spec.stem}.pb").read_bytes()
    assert compiled.config.SerializeToString(deterministic=True) == expected
