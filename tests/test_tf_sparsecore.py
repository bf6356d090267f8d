"""The SparseCore oracle: for every case of tests/sparsecore_cases.py, TensorFlow's own stacker
(``_stack_tables_with_same_table_dim_and_optimizer`` and ``SparseCoreLayoutStacker``, run on CPU
by tests/tf_sparsecore_oracle.py in a process with the case's PYTHONHASHSEED) and ``tpuemb
compile --target sparsecore`` produce the same bytes and the same text: the layouts TensorFlow
saves in checkpoints (``--order checkpoint``) and the stacker's own order (``--order stacker``,
told that process's seed and hash(None)). Needs TensorFlow (`make test-tf`); skipped without it.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tpuemb_cli.cli.common import Streams
from tpuemb_cli.cli.compile import CompileOptions, execute

from .sparsecore_cases import Case, cases

pytest.importorskip("tensorflow")

CASES = {case.name: case for case in cases()}
ORACLE = Path(__file__).parent / "tf_sparsecore_oracle.py"


@cache
def _tensorflow(seed: int) -> dict[str, Any]:
    """TensorFlow's results for every case run with ``seed``, by case name."""
    names = [name for name, case in CASES.items() if case.seed == seed]
    completed = subprocess.run(
        [sys.executable, str(ORACLE)],
        input=json.dumps([CASES[name].spec for name in names]),
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": str(seed), "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    found = json.loads(completed.stdout.splitlines()[-1])
    return {
        "none_hash": found["none_hash"],
        "results": dict(zip(names, found["results"], strict=True)),
    }


def _compile(case: Case, tmp_path: Path, to: str, order: str, none_hash: int) -> bytes:
    spec = tmp_path / f"{case.name}.json"
    spec.write_text(json.dumps(case.spec))
    out = tmp_path / f"{case.name}.{order}.{to}"
    err = io.StringIO()
    streams = Streams(io.StringIO(), err)
    options = CompileOptions(
        str(spec), to, str(out), target="sparsecore", order=order, hash_seed=case.seed,
        none_hash=none_hash,
    )  # fmt: skip
    # (stderr may hold warnings: the spec is linted first)
    assert execute(options, streams) == 0, err.getvalue()
    return out.read_bytes()


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 30


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("order", ["checkpoint", "stacker"])
def test_tpuemb_compiles_tensorflows_bytes(name: str, order: str, tmp_path: Path) -> None:
    case = CASES[name]
    tensorflow = _tensorflow(case.seed)
    theirs = tensorflow["results"][name]
    none_hash = tensorflow["none_hash"]
    assert _compile(case, tmp_path, "binary", order, none_hash).hex() == theirs[order]
    text = _compile(case, tmp_path, "text", order, none_hash).decode()
    assert text == theirs[f"{order}_text"]
