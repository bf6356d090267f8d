from pathlib import Path

from click.testing import CliRunner

from tests.helpers import spec_located
from tpuemb_cli.cli import main

# Checked against TensorFlow 2.21 (tests/test_tf_sparsecore.py runs the same stacker): `user`,
# the first feature's table, records 128 / 4 = 32 samples and 1 feature; `item` records 0.
SPEC = """\
optimizer: {adagrad: {}}
tables:
  - {name: user, vocabulary_size: 1000, dim: 16}
  - {name: item, vocabulary_size: 5000, dim: 16}
features:
  - {name: user_id, table: user, output_shape: [128]}
  - {name: item_id, table: item, output_shape: [128]}
  - {name: user_seq, table: user, output_shape: [128, 5]}
topology: {num_hosts: 1, cores_per_host: 4, accelerator: v5p}
sparse_core: {}
"""


def test_whole_output(tmp_path: Path) -> None:
    spec = tmp_path / "sc.yaml"
    spec.write_text(SPEC)
    result = CliRunner().invoke(main, ["check", "--format", "concise", str(spec)])
    assert (result.exit_code, result.stdout) == (
        0,
        f"{spec}:6:5: TE651 [info] the layouts TensorFlow writes into checkpoints record "
        "per_sparse_core_batch_size / num_features only for table 'user' (32 / 1 feature; its "
        "features look up 192 / 2); table 'item' carries 0 (TensorFlow 2.21 returns from its "
        "per-feature loop after the first feature)\n"
        "Found 1 info in 1 file (1 file checked).\n",
    )


def test_first_feature_in_flatten_order() -> None:
    keyed = SPEC.replace("{name: user_id,", "{key: b, name: user_id,")
    keyed = keyed.replace("{name: item_id,", "{key: a, name: item_id,")
    keyed = keyed.replace("{name: user_seq,", "{key: c, name: user_seq,")
    assert spec_located(keyed, "TE651") == [("features[1]", 7, 5)]


def test_near_misses() -> None:
    one_feature = SPEC.replace("  - {name: item_id, table: item, output_shape: [128]}\n", "")
    one_feature = one_feature.replace(
        "  - {name: user_seq, table: user, output_shape: [128, 5]}\n", ""
    )
    one_feature = one_feature.replace("  - {name: item, vocabulary_size: 5000, dim: 16}\n", "")
    assert spec_located(one_feature, "TE651") == []
    assert spec_located(SPEC.replace("sparse_core: {}\n", ""), "TE651") == []
