from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner
from google.protobuf import json_format

from tests.helpers import SPEC, lint, of, spec_located
from tpuemb_cli.cli import main
from tpuemb_cli.model.findings import Severity
from tpuemb_cli.tf import lint_tf, spec_from_tf

ERROR, WARNING = Severity.ERROR, Severity.WARNING

TWO = SPEC.replace("features:", "  - {vocabulary_size: 10, dim: 2}\nfeatures:").replace(
    "  - {name: watched, table: video}", '  - {name: watched, table: video}\n  - {table: "#1"}'
)


def test_explicit_name_colliding_with_a_generated_one() -> None:
    text = TWO.replace("name: video", "name: table_1").replace("table: video", "table: table_1")
    assert spec_located(text, "TE702") == [("tables[1].name", 6, 5)]
    (finding,) = of(lint(text, fmt="yaml"), "TE702")
    assert "(the name TensorFlow gives it)" in finding.message


def test_near_miss() -> None:
    assert spec_located(TWO, "TE702") == []


class SGD:
    """What spec_from_tf reads of an optimizer object: its class's name and attributes."""

    learning_rate = 0.1


def _two_tables_named_same() -> list[SimpleNamespace]:
    """TableConfig and FeatureConfig stand-ins: two different tables, both named "same"."""
    first, second = (
        SimpleNamespace(name="same", vocabulary_size=rows, dim=8, combiner="mean", optimizer=None)
        for rows in (64, 128)
    )
    return [
        SimpleNamespace(table=table, name=name, max_sequence_length=0, output_shape=[16])
        for table, name in ((first, "f"), (second, "g"))
    ]


TOPOLOGY: dict[str, Any] = {"num_hosts": 1, "cores_per_host": 4, "sparse_cores_per_chip": 4}


@pytest.mark.parametrize("sparse_core", [None, SimpleNamespace()])
def test_two_live_tables_named_alike_are_an_error_not_one_table(
    sparse_core: SimpleNamespace | None,
) -> None:
    # TensorFlow tells the tables apart by object and raises (tests/test_tf_sparsecore_rules.py
    # shows it); the spec keeps both, and the features point at each by index.
    features = _two_tables_named_same()
    spec = spec_from_tf(features, SGD(), sparse_core_config=sparse_core, **TOPOLOGY)
    assert [(t.name, t.vocabulary_size) for t in spec.tables] == [("same", 64), ("same", 128)]
    assert [f.table for f in spec.features] == ["#0", "#1"]
    findings = lint_tf(features, SGD(), sparse_core_config=sparse_core, **TOPOLOGY)
    assert [(f.rule, f.field, f.severity) for f in findings if f.severity >= WARNING] == [
        ("TE702", "tables[1].name", ERROR)
    ]
    (finding,) = of(findings, "TE702")
    assert finding.message == (
        'table #1 is named "same", like table #0; TensorFlow requires unique table names '
        "(ValueError: Tables must have a unique name. Multiple tables with name same found.)"
    )


def test_compile_refuses_the_spec_of_two_live_tables_named_alike(tmp_path: Path) -> None:
    spec = spec_from_tf(
        _two_tables_named_same(), SGD(), sparse_core_config=SimpleNamespace(), **TOPOLOGY
    )
    path = tmp_path / "live.spec.json"
    path.write_text(json_format.MessageToJson(spec, preserving_proto_field_name=True))
    for target in ("config", "sparsecore"):
        result = CliRunner().invoke(main, ["compile", "--target", target, str(path)])
        assert result.exit_code == 1, result.output
        assert result.stdout == ""
        assert "TE702 [error]" in result.stderr
        assert result.stderr.endswith(f"tpuemb: error: {path}: not compiled: the spec has errors\n")
