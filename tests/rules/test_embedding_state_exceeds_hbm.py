"""TE601 embedding-state-exceeds-hbm: at, just below and just above a core's HBM."""

from __future__ import annotations

import pytest

from tpuemb_cli import lint_string

# A v5e core has 16 GB (16e9 bytes). SGD without accumulation keeps one array: 4 bytes a value.
# "big" holds 3,999,999 x 1000 values (15,999,996,000 bytes); "small" 4 bytes a row.
CONFIG = """\
mode: TRAINING
num_hosts: 1
num_tensor_cores: 1
table_descriptor {{
  name: "big" vocabulary_size: 3999999 dimension: 1000
  optimization_parameters {{ learning_rate {{ constant: 0.1 }}
    stochastic_gradient_descent {{}} gradient_accumulation_status: DISABLED }}
}}
table_descriptor {{
  name: "small" vocabulary_size: {rows} dimension: 1
  optimization_parameters {{ learning_rate {{ constant: 0.1 }}
    stochastic_gradient_descent {{}} gradient_accumulation_status: DISABLED }}
}}
feature_descriptor {{ name: "a" table_id: 0 input_shape: 8 }}
feature_descriptor {{ name: "b" table_id: 1 input_shape: 8 }}
"""


def _codes(rows: int, tpu: str | None = "v5e") -> list[tuple[str, str, str, str]]:
    findings = lint_string(CONFIG.format(rows=rows), tpu=tpu)
    return [(f.rule, f.field, f.message, f.fix) for f in findings]


@pytest.mark.parametrize("rows", [999, 1000])
def test_at_and_just_below_the_hbm_of_a_core_is_no_error(rows: int) -> None:
    assert [code for code, *_ in _codes(rows)] == ["TE602"]


def test_just_above_the_hbm_of_a_core() -> None:
    assert _codes(1001) == [
        (
            "TE601",
            "num_tensor_cores",
            "the embedding tables' parameters and optimizer state take 16,000,000,004 bytes on "
            "the fullest of 1 core: more than the 16,000,000,000 bytes of HBM of a v5e core",
            "run on a v5litepod-4 (4 chips, 4 TensorFlow cores) or larger (`num_tensor_cores` "
            "4), or use cheaper optimizer state "
            "(`tpuemb explain --memory` shows each table's share and what disabling gradient "
            "accumulation or SGD would save)",
        )
    ]


def test_not_without_a_chip_nor_on_a_chip_whose_hbm_is_unknown() -> None:
    assert _codes(1001, tpu=None) == []
    assert _codes(1001, tpu="v2") == []
    assert [code for code, *_ in _codes(1001, tpu="v5p")] == []  # 95 GiB: fits


def test_more_cores_cannot_help_a_table_of_one_row() -> None:
    # 1 row of 2e9 values, in 3 arrays (adagrad with accumulation): 24e9 bytes on one core.
    config = CONFIG.format(rows=1).replace("3999999 dimension: 1000", "1 dimension: 2000000000")
    config = config.replace(
        "stochastic_gradient_descent {} gradient_accumulation_status: DISABLED", "adagrad {}", 1
    )
    findings = [f for f in lint_string(config, tpu="v5e") if f.rule == "TE601"]
    assert [f.fix.split(",")[0] for f in findings] == [
        "more cores cannot help: not even a v5litepod-256 (256 chips"
    ]


# A SparseCore spec: TPUEmbeddingV2's stacked tables and slot variables against a chip's HBM.
SPARSECORE_SPEC = """\
optimizer: {{sgd: {{}}, learning_rate: {{constant: 0.1}}}}
tables:
  - {{name: ids, vocabulary_size: {rows}, dim: 1024}}
features:
  - {{name: f, table: ids, output_shape: [8]}}
topology: {{num_hosts: 1, cores_per_host: 1, accelerator: v5p}}
sparse_core: {{}}
"""


def _spec_findings(rows: int, sparse_core: bool = True) -> list[tuple[str, str, str, str]]:
    text = SPARSECORE_SPEC.format(rows=rows)
    if not sparse_core:
        text = text.replace("sparse_core: {}\n", "")
    findings = lint_string(text, "spec.yaml", format="yaml")
    return [(f.rule, f.field, f.message, f.fix) for f in findings if f.rule.startswith("TE60")]


def test_a_sparsecore_spec_is_held_against_a_chip_with_tpuembeddingv2s_variables() -> None:
    # 25,000,000 rows (a multiple of 8 x 4 SparseCores: no padding) x 1024 x 4 bytes, SGD: no
    # slot variable and no gradient accumulator: 102.4 GB on the one chip, over 95 GiB.
    assert _spec_findings(25_000_000) == [
        (
            "TE601",
            "topology.num_hosts",
            "the stacked tables' parameters and slot variables take 95.4 GiB on each chip "
            "(TPUEmbeddingV2 on SparseCores: 1 chip of 4 SparseCores): more than the 95.0 GiB "
            "of HBM of a v5p chip",
            "run on more chips (`topology.num_hosts`: each chip holds 1/replicas of every "
            "stack), or use smaller or fewer tables",
        )
    ]


def test_a_sparsecore_spec_is_not_sized_as_tensorcore_tables() -> None:
    # 22,413,312 rows: 85.5 GiB on SparseCores (TE602), but 171 GiB as TPUEmbedding's tables
    # with a gradient accumulator (TE601) -- which is what the spec without sparse_core gets.
    assert [(code, field) for code, field, *_ in _spec_findings(22_413_312)] == [
        ("TE602", "topology.num_hosts")
    ]
    assert [(code, field) for code, field, *_ in _spec_findings(22_413_312, False)] == [
        ("TE601", "topology.cores_per_host")
    ]
