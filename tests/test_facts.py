"""A spec is compiled (and laid out) once per document, whatever number of rules read it, and
nothing is remembered from one document to the next (issue 23: facts, once)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tpuemb_cli import lint_string
from tpuemb_cli.spec import compiler, sparsecore

from .helpers import SPEC

EXAMPLES = Path(__file__).parent.parent / "examples"


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_spec_is_compiled_once_per_lint(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = _counting(monkeypatch, compiler, "compile_spec")
    # Three spec rules and every config rule read what the spec compiles to.
    lint_string(SPEC, name="s.yaml", format="yaml", isolated=True)
    assert len(compiled) == 1
    lint_string(SPEC, name="s.yaml", format="yaml", isolated=True)
    assert len(compiled) == 2  # a new document: compiled again, nothing kept across documents


def test_a_sparsecore_spec_is_laid_out_once_per_lint(monkeypatch: pytest.MonkeyPatch) -> None:
    planned = _counting(monkeypatch, sparsecore, "plan")
    text = (EXAMPLES / "sparsecore" / "dlrm.spec.yaml").read_text()
    findings = lint_string(text, name="dlrm.spec.yaml", format="yaml", isolated=True)
    assert [f.rule for f in findings] == ["TE651"]  # the three layout rules ran
    assert len(planned) == 1


def test_compile_lays_a_sparsecore_spec_out_once_when_the_seed_is_the_lints(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # `compile --target sparsecore` lints the spec (its rules lay it out) and then writes the
    # layouts: the same plan, not a second one (issue 26: an 8,000-table spec was laid out twice).
    from click.testing import CliRunner

    from tpuemb_cli.cli import main

    planned = _counting(monkeypatch, sparsecore, "plan")
    path = EXAMPLES / "sparsecore" / "dlrm.spec.yaml"
    result = CliRunner().invoke(main, ["compile", "--target", "sparsecore", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("tables {") == 26
    assert len(planned) == 1
    seeded = ["compile", "--target", "sparsecore", "--python-hash-seed", "42", str(path)]
    again = CliRunner().invoke(main, seeded)
    assert again.exit_code == 0, again.output
    # Another process's hashing: the lint's plan, and one more for the seed.
    assert len(planned) == 3


def test_each_distinct_optimizer_is_hashed_once_per_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    # CPython's string hash in Python costs tens of microseconds: 8,000 tables that share three
    # optimizers hashed 8,000 optimizers (issue 26).
    from tpuemb_cli.load import load_bytes
    from tpuemb_cli.model.pyhash import HashContext
    from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
    from tpuemb_cli.spec.sparsecore_groups import group_key

    keyed = _counting(monkeypatch, sparsecore, "group_key")
    tables = "".join(
        f"  - {{name: t{i}, vocabulary_size: 100, dim: 8"
        + (", optimizer: {sgd: {}}" if i % 3 == 0 else "")
        + "}\n"
        for i in range(30)
    )
    features = "".join(f"  - {{name: f{i}, table: t{i}, output_shape: [16]}}\n" for i in range(30))
    text = (
        "optimizer: {adagrad: {}}\ntables:\n"
        + tables
        + "features:\n"
        + features
        + "topology: {num_hosts: 1, cores_per_host: 4, sparse_cores_per_chip: 4}\n"
        + "sparse_core: {}\n"
    )
    spec = load_bytes(text.encode(), "s.yaml").message
    assert isinstance(spec, EmbeddingSpec)
    found = sparsecore.plan(spec)
    assert len(keyed) == 2
    assert {stack.group for stack in found.stacks} == {
        group_key(optimizer, None, HashContext()).key
        for optimizer in (spec.optimizer, spec.tables[0].optimizer)
    }


def test_the_rules_never_build_the_layouts_protos(monkeypatch: pytest.MonkeyPatch) -> None:
    # The layouts write each stack's name into every member (TensorFlow's format): at 8,000
    # tables, most of a check's memory. Only `compile --target sparsecore` reads them.
    plans: list[sparsecore.Plan] = []
    real = sparsecore.plan

    def kept(*args: Any, **kwargs: Any) -> sparsecore.Plan:
        plans.append(real(*args, **kwargs))
        return plans[-1]

    monkeypatch.setattr(sparsecore, "plan", kept)
    text = (EXAMPLES / "sparsecore" / "dlrm.spec.yaml").read_text()
    lint_string(text, name="dlrm.spec.yaml", format="yaml", isolated=True)
    (plan,) = plans
    assert "layouts" not in vars(plan) and "checkpoint_layouts" not in vars(plan)
    names = [layout.table_name for layout in plan.checkpoint_layouts.tables]
    assert names == sorted(names) and len(names) == 26
