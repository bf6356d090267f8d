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
