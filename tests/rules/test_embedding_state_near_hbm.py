"""TE602 embedding-state-near-hbm: at, just below and just above 80% of a core's HBM (and at,
just below and just above all of it, where TE601 takes over)."""

from __future__ import annotations

import pytest

from tpuemb_cli import lint_string

from .test_embedding_state_exceeds_hbm import CONFIG

# 80% of a v5e core's 16e9 bytes is 12.8e9: "big" holds 3,199,999 x 1000 values of 4 bytes
# (12,799,996,000 bytes), "small" 4 bytes a row.
NEAR = CONFIG.replace("3999999 dimension: 1000", "3199999 dimension: 1000")


def _findings(config: str) -> list[tuple[str, str, str, str]]:
    return [(f.rule, f.field, f.message, f.fix) for f in lint_string(config, tpu="v5e")]


@pytest.mark.parametrize("rows", [999, 1000])
def test_at_and_just_below_80_percent_is_quiet(rows: int) -> None:
    assert _findings(NEAR.format(rows=rows)) == []


def test_just_above_80_percent() -> None:
    assert _findings(NEAR.format(rows=1001)) == [
        (
            "TE602",
            "num_tensor_cores",
            "the embedding tables' parameters and optimizer state take 11.9 GiB on the fullest "
            "of 1 core: 80% of the 14.9 GiB of HBM of a v5e core, which leaves little for "
            "activations, buffers and XLA's working set",
            "run on a v5litepod-4 (4 chips, 4 TensorFlow cores) or larger (`num_tensor_cores` "
            "4), or use cheaper optimizer state "
            "(`tpuemb explain --memory` shows each table's share and what disabling gradient "
            "accumulation or SGD would save)",
        )
    ]


@pytest.mark.parametrize(
    ("rows", "codes"), [(999, ["TE602"]), (1000, ["TE602"]), (1001, ["TE601"])]
)
def test_at_the_hbm_the_warning_hands_over_to_the_error(rows: int, codes: list[str]) -> None:
    assert [code for code, *_ in _findings(CONFIG.format(rows=rows))] == codes


def test_a_spec_names_its_accelerator() -> None:
    spec = """\
optimizer: {sgd: {}, learning_rate: {constant: 0.1}, use_gradient_accumulation: false}
tables:
  - {name: big, vocabulary_size: 3200001, dim: 1000}
features:
  - {name: a, table: big}
topology: {num_hosts: 1, cores_per_host: 1, per_replica_batch_size: 8, accelerator: v5e}
"""
    findings = lint_string(spec, name="s.yaml", format="yaml")
    assert [(f.rule, f.field, f.position and f.position.line) for f in findings] == [
        ("TE602", "topology.cores_per_host", 6)
    ]
    # --tpu (the API's tpu) wins over the spec's accelerator.
    assert [f.rule for f in lint_string(spec, name="s.yaml", format="yaml", tpu="v5p")] == []
    unknown = spec.replace("accelerator: v5e", "accelerator: v5ee")
    assert [(f.rule, f.field, f.message) for f in lint_string(unknown, format="yaml")] == [
        ("TE724", "topology.accelerator", "unknown TPU 'v5ee'; did you mean `v5e`?")
    ]
