"""Work that grows with a JAX document's size once, not once a stack: bench/jax_specs.py found
`explain --memory` of 10,000 stacks and `diff` of two 10,000-table specs quadratic (65x and 94x
the time of 1,000: 34 s and 141 s). Counted here, not timed: what each stack reads of the whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.jax_specs import spec
from tpuemb_cli.cli.main import main
from tpuemb_cli.frontends.jax.compat import specs
from tpuemb_cli.frontends.jax.spec.memory import JaxStackMemory
from tpuemb_cli.load import Document, load_input

TABLES = 300  # each alone in its stack: 300 stacks


def _run(*args: str) -> None:
    with pytest.raises(SystemExit):
        main(list(args), prog_name="tpuemb")


def test_explain_memory_reads_whether_stacks_were_measured_once_a_stack(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, proto = tmp_path / "spec.textproto", tmp_path / "spec.binpb"
    source.write_text(spec(TABLES, auto=False))
    _run("compile", "--target", "jax", "--to", "binary", "-o", str(proto), str(source))
    reads = []
    measured = JaxStackMemory.measured

    def counted(stack: Any) -> bool:
        reads.append(1)
        return bool(measured.fget(stack))  # type: ignore[attr-defined]

    monkeypatch.setattr(JaxStackMemory, "measured", property(counted))
    _run("explain", "--memory", "--tpu", "v5p", "--format", "json", str(proto))
    assert TABLES <= len(reads) <= 10 * TABLES  # it was TABLES * TABLES


class _Counting:
    """A spec whose ``tables`` counts its readers."""

    def __init__(self, message: Any) -> None:
        self.message = message
        self.reads = 0

    @property
    def tables(self) -> Any:
        self.reads += 1
        return self.message.tables

    def __getattr__(self, name: str) -> Any:
        return getattr(self.message, name)


def test_a_specs_side_of_a_diff_reads_its_tables_a_few_times_not_once_a_stack() -> None:
    document = load_input(spec(TABLES, auto=False).encode(), "spec.textproto")
    assert isinstance(document, Document)
    counting = _Counting(document.message)
    side = specs.spec_side(
        document, counting, lambda _: specs.stacked_layout_of_spec(document.message)
    )
    assert len(side.stacks) == TABLES
    assert counting.reads <= 3  # it was once a stack
