"""`tpuemb explain` on a SparseCore spec: the stacking TPUEmbeddingV2 lays out, whole output."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tpuemb_cli.cli import main
from tpuemb_cli.load import load_bytes
from tpuemb_cli.spec.sparsecore import plan

ROOT = Path(__file__).parent.parent

SPEC = """\
optimizer: {adagrad: {}, learning_rate: {constant: 0.05}}
tables:
  - {name: video, vocabulary_size: 1000, dim: 16}
  - {name: channel, vocabulary_size: 300, dim: 12}
  - {name: country, vocabulary_size: 10, dim: 4, optimizer: {sgd: {}, learning_rate: {constant: 0.1}}}
  - {name: device, vocabulary_size: 20, dim: 3, optimizer: {sgd: {}, learning_rate: {constant: 0.1}}}
features:
  - {name: watched, table: video, output_shape: [16]}
  - {name: subscribed, table: channel, output_shape: [16]}
  - {name: where, table: country, output_shape: [16]}
  - {name: what, table: device, output_shape: [16]}
topology: {num_hosts: 1, cores_per_host: 4, accelerator: v5p}
sparse_core: {}
"""  # noqa: E501

STACKING = """\
SparseCore stacking (TPUEmbeddingV2, as `tpuemb compile --target sparsecore` lays it out):
4 partitions (replicas) x 4 SparseCores per partition = 16 SparseCores; 4 tables in 2 stacks

Tables share a stack when they have equal optimizer settings and quantization (TensorFlow's group
key) and one width padded to a multiple of 8; a stack ends when a table would bring it to 2.0 MiB of
activations or 2.0 GiB per partition's shard. Rows are padded to a multiple of 8 x 16 SparseCores =
128.

stack 1 of 2: 2 tables, width 8, 16 rows per SparseCore (SGD, learning rate 0.1)
  memory: 512 B a SparseCore, 2.0 KiB a chip (parameters)
  name (the key of sparse_core.max_ids_per_table / max_unique_ids_per_table):
    country_device
  table    rows x dim  padded   padding          row offset  rotation
  -------  ----------  -------  ---------------  ----------  --------
  country  10 x 4      128 x 8  96.1% (3.8 KiB)  0           0
  device   20 x 3      128 x 8  94.1% (3.8 KiB)  8           4

stack 2 of 2: 2 tables, width 16, 88 rows per SparseCore (Adagrad, learning rate 0.05)
  memory: 11.0 KiB a SparseCore, 44.0 KiB a chip (parameters, accumulators)
  name (the key of sparse_core.max_ids_per_table / max_unique_ids_per_table):
    channel_video
  table    rows x dim  padded      padding           row offset  rotation
  -------  ----------  ----------  ----------------  ----------  --------
  channel  300 x 12    384 x 16    41.4% (19.9 KiB)  0           0
  video    1,000 x 16  1,024 x 16  2.3% (3.0 KiB)    24          4

SparseCore memory (TPUEmbeddingV2's variables: each stack's parameters and slot variables): 46.0 KiB
a chip (4 SparseCores x 11.5 KiB), as `tpuemb explain --memory` reports

Checkpoints record per_sparse_core_batch_size and num_features for 'video' only; 3 other tables
carry 0 (TE651).
"""


def _explain(tmp_path: Path, text: str) -> tuple[int, str, str]:
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    result = CliRunner().invoke(main, ["explain", str(path)])
    return result.exit_code, result.stdout, result.stderr


def test_stacks_names_rows_and_padding(tmp_path: Path) -> None:
    code, stdout, stderr = _explain(tmp_path, SPEC)
    assert (code, stderr) == (0, "")
    assert stdout.startswith(
        f"{tmp_path / 'spec.yaml'} (each table's optimizer as TensorFlow compiles it; the "
        "SparseCore layout follows)\n"
    )
    assert stdout.endswith("\n\n" + STACKING)


def test_stacking_disabled_makes_a_stack_per_table(tmp_path: Path) -> None:
    code, stdout, _ = _explain(
        tmp_path, SPEC.replace("sparse_core: {}", "sparse_core: {disable_table_stacking: true}")
    )
    section = stdout[stdout.index("SparseCore stacking") :]
    assert code == 0
    assert section.splitlines()[1] == (
        "4 partitions (replicas) x 4 SparseCores per partition = 16 SparseCores; stacking "
        "disabled: "
        "each table is a stack of its own"
    )
    names = [line.strip() for line in section.splitlines() if line.startswith("    ")]
    assert sorted(names) == ["channel", "country", "device", "video"]
    assert "Tables share a stack" not in section


def test_a_spec_that_cannot_be_laid_out_says_why(tmp_path: Path) -> None:
    code, stdout, _ = _explain(tmp_path, SPEC.replace("accelerator: v5p", "accelerator: v5e"))
    assert code == 0
    assert stdout.endswith(
        "\n\nSparseCore stacking: not laid out: the number of SparseCores per chip for 'v5e' is "
        "not known: set topology.sparse_cores_per_chip (TensorFlow reads it from the TPU: "
        "num_embedding_devices_per_chip)\n"
    )


def test_a_spec_without_sparse_core_shows_no_stacking(tmp_path: Path) -> None:
    code, stdout, _ = _explain(tmp_path, SPEC.replace("sparse_core: {}\n", ""))
    assert code == 0 and "SparseCore" not in stdout


def test_the_dlrm_example_is_one_stack_of_26_tables_as_compiled() -> None:
    path = ROOT / "examples" / "sparsecore" / "dlrm.spec.yaml"
    result = CliRunner().invoke(main, ["explain", str(path)])
    assert result.exit_code == 0
    document = load_bytes(path.read_bytes(), str(path))
    laid_out = plan(document.message)  # type: ignore[arg-type]
    (stack,) = laid_out.stacks
    assert len(stack.tables) == 26
    assert f"\n    {stack.name}\n" in result.stdout
    compiled = CliRunner().invoke(main, ["compile", str(path), "--target", "sparsecore"])
    assert compiled.exit_code == 0
    assert compiled.stdout.count(f'stacked_table_name: "{stack.name}"') == 26
