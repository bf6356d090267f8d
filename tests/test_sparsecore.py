"""SparseCore layouts without TensorFlow: the cases of the oracle suite compile and their layouts
hold the stacker's invariants; ``tpuemb compile --target sparsecore`` whole outputs and errors;
layouts convert and check (with and without --type); CPython's hashing for a PYTHONHASHSEED."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from google.protobuf import json_format

from tpuemb_cli.cli import main
from tpuemb_cli.model.pyhash import HashableValue, HashContext, str_hash, value_hash
from tpuemb_cli.model.sparsecore_stacker import Limits, Stacker
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
from tpuemb_cli.spec.sparsecore import SparseCoreError, plan

from .sparsecore_cases import cases

SPEC = """\
optimizer: {adagrad: {}}
tables:
  - {name: b, vocabulary_size: 3000, dim: 8}
  - {name: a, vocabulary_size: 300, dim: 5}
  - {name: c, vocabulary_size: 10, dim: 16, optimizer: {sgd: {}}}
features:
  - {name: fa, table: a, output_shape: [100]}
  - {name: fb, table: b, output_shape: [100]}
  - {name: fa2, table: a, output_shape: [100, 3]}
  - {name: fc, table: c, output_shape: [100]}
topology: {num_hosts: 1, cores_per_host: 2, accelerator: v5p}
sparse_core: {}
"""

# What TensorFlow 2.21's stacker computes for SPEC (2 partitions x 4 SparseCores), as it saves it
# in checkpoints (by table name). Only `a`, the first feature's table, records a batch size and a
# feature count, and only for its first feature (300 samples / 4 SparseCores would count fa2).
LAYOUTS = """\
tables {
  table_name: "a"
  stacked_table_name: "a_b"
  num_sparse_cores: 8
  num_partitions: 2
  total_rows_per_sparse_core_shard: 416
  unsharded_shape: 300
  unsharded_shape: 5
  unsharded_padded_shape: 320
  unsharded_padded_shape: 8
  per_sparse_core_batch_size: 25
  num_features: 1
}
tables {
  table_name: "b"
  stacked_table_name: "a_b"
  num_sparse_cores: 8
  num_partitions: 2
  total_rows_per_sparse_core_shard: 416
  unsharded_shape: 3000
  unsharded_shape: 8
  unsharded_padded_shape: 3008
  unsharded_padded_shape: 8
  sparse_core_shard_row_offset: 40
  sparse_core_shard_rotation: 4
}
tables {
  table_name: "c"
  stacked_table_name: "c"
  num_sparse_cores: 8
  num_partitions: 2
  total_rows_per_sparse_core_shard: 8
  unsharded_shape: 10
  unsharded_shape: 16
  unsharded_padded_shape: 64
  unsharded_padded_shape: 16
}
"""


def _spec(data: dict[str, object]) -> EmbeddingSpec:
    return json_format.ParseDict(data, EmbeddingSpec())


@pytest.mark.parametrize("case", cases(), ids=lambda case: case.name)
def test_every_case_lays_out_with_the_stackers_invariants(case: object) -> None:
    found = plan(_spec(case.spec), HashContext(case.seed))  # type: ignore[attr-defined]
    names = [layout.table_name for layout in found.checkpoint_layouts.tables]
    assert names == sorted(names) and sorted(names) == sorted(found.tables)
    cores = found.num_sparse_cores
    for stack in found.stacks:
        assert stack.name == "_".join(stack.tables)
        assert list(stack.tables) == sorted(stack.tables)  # added in name order
        offset = 0
        for position, member in enumerate(stack.members):
            rows, width = member.padded_shape
            assert rows % (8 * cores) == 0 and rows >= member.shape[0] > rows - 8 * cores
            assert width % 8 == 0 and width == stack.padded_width
            assert member.row_offset == offset
            assert member.rotation == position * found.sparse_cores_per_partition % cores
            offset += rows // cores
        assert stack.rows_per_sparse_core == offset
    recorded = [t for t in found.tables.values() if t.recorded_features]
    assert [t.name for t in recorded] == [found.quirk.recorded_table]
    assert recorded[0].recorded_features == 1


def test_compile_sparsecore_whole_output(tmp_path: Path) -> None:
    spec = tmp_path / "sc.yaml"
    spec.write_text(SPEC)
    result = CliRunner().invoke(main, ["compile", "--target", "sparsecore", str(spec)])
    # The spec is linted first: TE653 tells which tables are mostly padding, TE651 what the
    # layouts record (see the comment on LAYOUTS).
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        LAYOUTS,
        f'{spec}:4:5: TE653 [info] table "a" is padded from 300 x 5 to 320 x 8 on 8 SparseCores: '
        "41.4% of its 20.0 KiB (parameters and accumulators, float32) is padding (8.3 KiB)\n"
        f'{spec}:5:5: TE653 [info] table "c" is padded from 10 x 16 to 64 x 16 on 8 SparseCores: '
        "84.4% of its 4.0 KiB (parameters, float32) is padding (3.4 KiB)\n"
        f"{spec}:7:5: TE651 [info] the layouts TensorFlow writes into checkpoints record "
        "per_sparse_core_batch_size / num_features only for table 'a' (25 / 1 feature; its "
        "features look up 100 / 2); tables 'b', 'c' carry 0 (TensorFlow 2.21 returns from its "
        "per-feature loop after the first feature)\n"
        "Found 3 infos in 1 file (1 file checked).\n",
    )


def test_stacker_order_follows_the_hash_of_the_optimizer(tmp_path: Path) -> None:
    spec = tmp_path / "sc.yaml"
    # Two groups of padded width 8: their order is the order of their digests of hash(optimizer).
    spec.write_text(SPEC.replace("dim: 16", "dim: 8"))
    orders = set()
    for seed in ("0", "1", "2", "3"):
        result = CliRunner().invoke(
            main,
            ["compile", "--target", "sparsecore", "--order", "stacker", "--to", "json"]
            + ["--python-hash-seed", seed, str(spec)],
        )
        assert result.exit_code == 0, result.stderr
        orders.add(tuple(line for line in result.stdout.splitlines() if "tableName" in line))
    assert len(orders) == 2  # c before a_b for some seeds, after for others
    checkpoint = CliRunner().invoke(main, ["compile", "--target", "sparsecore", str(spec)])
    assert [line for line in checkpoint.stdout.splitlines() if "  table_name" in line] == [
        '  table_name: "a"',
        '  table_name: "b"',
        '  table_name: "c"',
    ]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            ("sparse_core: {}\n", ""),
            "the spec has no sparse_core section: it is not a SparseCore spec",
        ),
        (
            ("accelerator: v5p", "accelerator: v5e"),
            "the number of SparseCores per chip for 'v5e' is not known: set "
            "topology.sparse_cores_per_chip (TensorFlow reads it from the TPU: "
            "num_embedding_devices_per_chip)",
        ),
    ],
)
def test_compile_sparsecore_errors_exit_2(
    tmp_path: Path, edit: tuple[str, str], message: str
) -> None:
    spec = tmp_path / "sc.yaml"
    spec.write_text(SPEC.replace(*edit))
    result = CliRunner().invoke(main, ["compile", "--target", "sparsecore", str(spec)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == f"tpuemb: error: {spec}: not compiled: {message}"


def test_a_feature_without_output_shape_is_a_finding_at_the_feature(tmp_path: Path) -> None:
    spec = tmp_path / "sc.yaml"
    spec.write_text(SPEC.replace(", output_shape: [100, 3]", ""))
    result = CliRunner().invoke(main, ["compile", "--target", "sparsecore", str(spec)])
    assert (result.exit_code, result.stdout) == (1, "")
    assert f'{spec}:9:5: TE661 [error] feature "fa2" has no output' in result.stderr
    assert result.stderr.endswith(f"tpuemb: error: {spec}: not compiled: the spec has errors\n")


def _small(**changes: object) -> dict[str, object]:
    spec: dict[str, object] = {
        "optimizer": {"sgd": {}},
        "tables": [{"vocabulary_size": 8, "dim": 8}, {"name": "table_0", "vocabulary_size": 8}],
        "features": [{"table": "#0", "output_shape": [8]}, {"table": "#1", "output_shape": [8]}],
        "topology": {"num_hosts": 1, "cores_per_host": 1, "sparse_cores_per_chip": 4},
        "sparse_core": {},
    }
    spec.update(changes)
    return spec


def test_plan_refuses_what_tensorflow_refuses() -> None:
    # An unnamed table is table_<i> by first use: here table_0, the name of the other table.
    with pytest.raises(SparseCoreError, match=r"^Tables must have a unique name. Multiple tables"):
        plan(_spec(_small()))
    features = [{"table": "#0"}]
    with pytest.raises(SparseCoreError, match=r"^features.0. has no output_shape: TPUEmbeddingV2"):
        plan(_spec(_small(features=features)))
    with pytest.raises(SparseCoreError, match=r"^the spec has no features"):
        plan(_spec(_small(features=[])))
    custom = {"custom": {"type": "CustomOptimizer"}}
    with pytest.raises(SparseCoreError, match=r"no SparseCore update for a custom optimizer"):
        plan(_spec(_small(optimizer=custom, features=[{"table": "#0", "output_shape": [8]}])))


def test_weight_decay_is_refused_as_tensorflow_refuses_it() -> None:
    spec = _spec({
        "optimizer": {"sgd": {}, "weight_decay_factor": 0.1},
        "tables": [{"name": "a", "vocabulary_size": 8, "dim": 8}],
        "features": [{"table": "a", "output_shape": [8]}],
        "topology": {"num_hosts": 1, "cores_per_host": 1, "sparse_cores_per_chip": 4},
        "sparse_core": {},
    })  # fmt: skip
    with pytest.raises(SparseCoreError, match="raises NotImplementedError for weight_decay"):
        plan(spec)


@pytest.mark.parametrize("to", ["text", "json", "binary"])
def test_layouts_convert_and_check_with_and_without_type(tmp_path: Path, to: str) -> None:
    spec = tmp_path / "sc.yaml"
    spec.write_text(SPEC)
    layouts = tmp_path / f"layouts.{ {'text': 'pbtxt', 'json': 'json', 'binary': 'pb'}[to] }"
    runner = CliRunner()
    compiled = runner.invoke(
        main, ["compile", "--target", "sparsecore", str(spec), "--to", to, "-o", str(layouts)]
    )
    assert compiled.exit_code == 0
    typed = ["--type", "SparseCoreTableLayouts"]
    back = runner.invoke(main, ["convert", *typed, str(layouts), "--to", "text"])
    header = "# proto-message: tensorflow.tpu.SparseCoreTableLayouts\n"
    assert (back.exit_code, back.stdout) == (0, header + LAYOUTS)
    checked = runner.invoke(main, ["check", *typed, str(layouts)])
    assert (checked.exit_code, checked.stdout) == (0, "All checks passed (1 file checked).\n")
    if to != "json":  # JSON layouts look like a spec's `tables`: --type says which
        back = runner.invoke(main, ["convert", str(layouts), "--to", "text"])
        assert (back.exit_code, back.stdout) == (0, header + LAYOUTS)
        checked = runner.invoke(main, ["check", str(layouts)])
        assert (checked.exit_code, checked.stdout) == (0, "All checks passed (1 file checked).\n")


def test_limits_split_stacks() -> None:
    stacker = Stacker(1, 4, limits=Limits(activation_mem_bytes=100))
    stacker.add_table("x", 8, 8, "g", output_samples=4 * 3)  # 4 x 8 x 3 = 96 bytes
    stacker.add_table("y", 8, 8, "g", output_samples=4)  # 96 + 32 reaches 100: a new stack
    stacker.add_table("z", 8, 8, "g", output_samples=0)  # joins x's stack: 96 + 0 < 100
    assert [(t.table_name, t.stacked_table_name) for t in stacker.layouts().tables] == [
        ("x", "x_z"),
        ("z", "x_z"),
        ("y", "y"),
    ]


@pytest.mark.parametrize("seed", [0, 1, 42, 4294967295])
def test_str_and_tuple_hashes_match_cpython_for_a_seed(seed: int) -> None:
    values: list[HashableValue] = [
        "",
        "learning_rate",
        "é",
        "ሴx",
        "😀",
        ("clip_weight_min", -1.5),
        (1, 0.001, True),
    ]
    completed = subprocess.run(
        [sys.executable, "-c", f"print([hash(v) for v in {values!r}])"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": str(seed)},
    )
    ours = [value_hash(value, HashContext(seed)) for value in values]
    assert completed.stdout.strip() == str(ours)
    assert str_hash("", seed) == 0
