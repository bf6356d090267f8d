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


SPARSECORE_SPEC = """\
optimizer: {adam: {}, learning_rate: {constant: 0.1}}
tables:
  - {name: ids, vocabulary_size: 7471104, dim: 1024}
features:
  - {name: f, table: ids, output_shape: [8]}
topology: {num_hosts: 1, cores_per_host: 1, accelerator: v5p}
sparse_core: {}
"""


def test_a_sparsecore_spec_near_a_chips_hbm() -> None:
    # Adam: parameters, momenta and velocities, 7,471,104 x 1024 x 4 bytes each: 85.5 GiB.
    findings = lint_string(SPARSECORE_SPEC, "spec.yaml", format="yaml")
    assert [(f.rule, f.field, f.message, f.fix) for f in findings if f.rule == "TE602"] == [
        (
            "TE602",
            "topology.num_hosts",
            "the stacked tables' parameters and slot variables take 85.5 GiB on each chip "
            "(TPUEmbeddingV2 on SparseCores: 1 chip of 4 SparseCores): 90% of the 95.0 GiB of "
            "HBM of a v5p chip, which leaves little for activations, buffers and XLA's working "
            "set",
            "run on more chips (`topology.num_hosts`: each chip holds 1/replicas of every "
            "stack), or use cheaper optimizer state (SGD on every table, without slot variables, "
            "takes 28.5 GiB a chip: enough; `tpuemb explain --memory` shows each stack's share)",
        )
    ]
