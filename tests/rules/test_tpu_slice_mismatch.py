"""TE603 tpu-slice-mismatch: a sized accelerator type against the config's num_tensor_cores."""

from __future__ import annotations

import pytest

from tpuemb_cli import lint_string

CONFIG = """\
mode: TRAINING
num_hosts: {hosts}
num_tensor_cores: {cores}
table_descriptor {{ name: "t" vocabulary_size: 1000 dimension: 8
  optimization_parameters {{ sgd {{}} learning_rate {{ constant: 0.1 }} }} }}
feature_descriptor {{ table_id: 0 input_shape: 64 }}
"""


def _te603(config: str, tpu: str) -> list[tuple[str, str, str]]:
    return [(f.field, f.message, f.fix) for f in lint_string(config, tpu=tpu) if f.rule == "TE603"]


def test_a_slice_with_other_cores_is_reported() -> None:
    assert _te603(CONFIG.format(hosts=8, cores=32), "v5p-128") == [
        (
            "num_tensor_cores",
            "num_tensor_cores is 32, but a v5p-128 (64 chips, 64 TensorFlow cores) has 64: the "
            "config was written for another slice, and its memory figures are for its own cores",
            "set num_tensor_cores to 64 (and num_hosts to the slice's hosts), or name the slice "
            "the config is for",
        )
    ]


@pytest.mark.parametrize(
    ("tpu", "cores"),
    [("v5p-128", 64), ("v3-32", 32), ("v5litepod-16", 16), ("v6e-256", 256), ("v5p", 7)],
)
def test_a_matching_slice_or_a_bare_chip_is_quiet(tpu: str, cores: int) -> None:
    assert _te603(CONFIG.format(hosts=4, cores=cores), tpu) == []


def test_a_spec_is_left_to_te724() -> None:
    spec = """\
optimizer: {sgd: {}, learning_rate: {constant: 0.1}}
tables:
  - {name: t, vocabulary_size: 1000, dim: 8}
features:
  - {name: a, table: t}
topology: {num_hosts: 1, cores_per_host: 4, per_replica_batch_size: 8, accelerator: v5p-128}
"""
    codes = [f.rule for f in lint_string(spec, name="s.yaml", format="yaml")]
    assert "TE724" in codes and "TE603" not in codes
