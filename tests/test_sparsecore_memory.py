"""The memory of a SparseCore spec: ``spec.sparsecore_memory`` on a plan, `tpuemb explain --memory`
(text and JSON) and `tpuemb explain` on one spec agreeing, and each view naming its engine. Whole
outputs; TensorFlow's own variables are compared in tests/test_tf_sparsecore_memory.py."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.memory_documents import without_summary
from tpuemb_cli.cli import main
from tpuemb_cli.load import load_bytes
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
from tpuemb_cli.spec.sparsecore import plan
from tpuemb_cli.spec.sparsecore_memory import SparseCoreMemory, StackMemory, model

ROOT = Path(__file__).parent.parent
DLRM = ROOT / "examples" / "sparsecore" / "dlrm.spec.yaml"

# Two stacks on 4 chips of 4 SparseCores: SGD (no slot) and Adagrad (accumulators).
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

REPORT = """\
spec.yaml (TPUEmbeddingV2 on SparseCores): the stacked tables' variables on each of 16 SparseCores \
(4 chips x 4; rows x width: a SparseCore's rows of the stack)
engine: SparseCore (TPUEmbeddingV2) -- the spec has a sparse_core section; one variable per stack \
and slot variable, padded, split evenly over the SparseCores

stack             tables  rows x width  arrays                        a SparseCore  a chip    share
----------------  ------  ------------  ----------------------------  ------------  --------  \
---------------------------
1 country_device  2       16 x 8        1 (parameters)                512 B         2.0 KiB   \
#...................   4.3%
2 channel_video   2       88 x 16       2 (parameters, accumulators)  11.0 KiB      44.0 KiB  \
###################.  95.7%

total: 46.0 KiB a chip (4 SparseCores x 11.5 KiB); 47,104 bytes a chip
padding: 30.5 KiB of the slice's 184.0 KiB (16.6%): rows to a multiple of 8 x 16 SparseCores, \
widths to a multiple of 8 (`tpuemb explain` shows each table's)
not counted (so this is a lower bound): activations, the SparseCores' input and deduplication \
buffers, XLA's working set

TPU v5p: 95.0 GiB of HBM a chip; the tables take 0.0% of it
fits
"""


def _spec(text: str) -> EmbeddingSpec:
    message = load_bytes(text.encode(), "spec.yaml").message
    assert isinstance(message, EmbeddingSpec)
    return message


def _memory(text: str) -> SparseCoreMemory:
    spec = _spec(text)
    return model(spec, plan(spec))


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


# The model ---------------------------------------------------------------------------------------


def test_a_stack_holds_its_members_padded_rows_with_its_optimizers_slots() -> None:
    memory = _memory(SPEC)
    # channel 300 -> 384 rows and 12 -> 16 wide, video 1000 -> 1024: rows to a multiple of 8 x 16
    # SparseCores (128); country and device 128 x 8 each.
    assert memory == SparseCoreMemory(
        (
            StackMemory(
                "country_device", ("country", "device"), 256, 8, ("parameters",), 16,
                128 * 8 - 10 * 4 + 128 * 8 - 20 * 3,
            ),
            StackMemory(
                "channel_video", ("channel", "video"), 1408, 16,
                ("parameters", "accumulators"), 88, 384 * 16 - 300 * 12 + 1024 * 16 - 1000 * 16,
            ),
        ),
        4,
        4,
    )  # fmt: skip
    assert memory.per_sparse_core == 16 * 8 * 4 + 88 * 16 * 4 * 2
    assert memory.per_chip == 4 * memory.per_sparse_core == 47_104
    assert memory.total == 256 * 8 * 4 + 1408 * 16 * 4 * 2 == memory.per_chip * 4
    assert memory.parameters_per_chip == 4 * (16 * 8 * 4 + 88 * 16 * 4)


@pytest.mark.parametrize(
    ("algorithm", "slots"),
    [
        ("sgd", ()),
        ("adagrad", ("accumulators",)),
        ("adagrad_momentum", ("accumulators", "momenta")),
        ("adam", ("momenta", "velocities")),
        ("ftrl", ("accumulators", "linears")),
    ],
)
def test_each_optimizer_adds_its_slot_variables(algorithm: str, slots: tuple[str, ...]) -> None:
    text = SPEC.replace("adagrad: {}", f"{algorithm}: {{}}", 1)
    (_, stack) = _memory(text).stacks
    assert stack.arrays == ("parameters", *slots)
    assert stack.per_sparse_core_bytes == 88 * 16 * 4 * (1 + len(slots))


def test_no_gradient_accumulator_whatever_the_setting() -> None:
    text = SPEC.replace("adagrad: {}, ", "adagrad: {}, use_gradient_accumulation: true, ", 1)
    assert _memory(text).stacks[1].arrays == ("parameters", "accumulators")


def test_stacking_disabled_gives_a_stack_per_table_and_the_same_bytes() -> None:
    stacked = _memory(SPEC)
    apart = _memory(SPEC.replace("sparse_core: {}", "sparse_core: {disable_table_stacking: true}"))
    assert sorted(stack.name for stack in apart.stacks) == ["channel", "country", "device", "video"]
    # Padding is per table, so stacking moves rows and does not change them.
    assert apart.per_chip == stacked.per_chip


def test_more_sparse_cores_a_chip_more_padding() -> None:
    text = SPEC.replace("accelerator: v5p", "sparse_cores_per_chip: 8")
    memory = _memory(text)
    assert (memory.num_sparse_cores, memory.sparse_cores_per_chip) == (32, 8)
    # 32 SparseCores pad every table to 256 rows.
    assert [stack.rows for stack in memory.stacks] == [512, 512 + 1024]


# explain --memory ------------------------------------------------------------------------------


def test_explain_memory_reports_the_sparsecore_model(here: Path) -> None:
    (here / "spec.yaml").write_text(SPEC)
    result = invoke("explain", "--memory", "spec.yaml")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == REPORT


def test_explain_memory_json(here: Path) -> None:
    (here / "spec.yaml").write_text(SPEC)
    result = invoke("explain", "--memory", "--format", "json", "--tpu", "v5p", "spec.yaml")
    assert (result.exit_code, result.stderr) == (0, "")
    per_sc = [16 * 8 * 4, 88 * 16 * 4 * 2]
    assert without_summary(result.stdout) == {
        "version": 1,
        "engine": "sparsecore",
        "file": "spec.yaml",
        "laid_out": True,
        "chips": 4,
        "sparse_cores_per_chip": 4,
        "sparse_cores": 16,
        "per_sparse_core_bytes": sum(per_sc),
        "per_chip_bytes": 47_104,
        "total_bytes": 188_416,
        "padding_bytes": 31_216,
        "stacks": [
            {
                "name": "country_device",
                "tables": ["country", "device"],
                "shape": [256, 8],
                "rows_per_sparse_core": 16,
                "arrays": ["parameters"],
                "bytes_per_array": 256 * 8 * 4,
                "per_sparse_core_bytes": per_sc[0],
                "per_chip_bytes": per_sc[0] * 4,
                "share": per_sc[0] / sum(per_sc),
            },
            {
                "name": "channel_video",
                "tables": ["channel", "video"],
                "shape": [1408, 16],
                "rows_per_sparse_core": 88,
                "arrays": ["parameters", "accumulators"],
                "bytes_per_array": 1408 * 16 * 4,
                "per_sparse_core_bytes": per_sc[1],
                "per_chip_bytes": per_sc[1] * 4,
                "share": per_sc[1] / sum(per_sc),
            },
        ],
        "tpu": {
            "chip": "v5p",
            "hbm_per_chip_bytes": 95 << 30,
            "fits": True,
            "share": 47_104 / (95 << 30),
            "warning_percent": 80,
            "per_chip_bytes_with_sgd": 4 * (16 * 8 * 4 + 88 * 16 * 4),
        },
    }


def test_a_spec_that_cannot_be_laid_out_says_why(here: Path) -> None:
    (here / "spec.yaml").write_text(SPEC.replace("accelerator: v5p", "accelerator: v5e"))
    why = (
        "the number of SparseCores per chip for 'v5e' is not known: set "
        "topology.sparse_cores_per_chip (TensorFlow reads it from the TPU: "
        "num_embedding_devices_per_chip)"
    )
    result = invoke("explain", "--memory", "spec.yaml")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        "spec.yaml (TPUEmbeddingV2 on SparseCores)\n"
        "engine: SparseCore (TPUEmbeddingV2) -- the spec has a sparse_core section; one variable "
        "per stack and slot variable, padded, split evenly over the SparseCores\n\n"
        f"not laid out: {why}\n(`tpuemb compile --target sparsecore` says the same)\n"
    )
    result = invoke("explain", "--memory", "--format", "json", "spec.yaml")
    assert without_summary(result.stdout) == {
        "version": 1,
        "engine": "sparsecore",
        "file": "spec.yaml",
        "laid_out": False,
        "reason": why,
        "tpu": None,
    }


def test_another_chip_than_the_layouts_is_said(here: Path) -> None:
    (here / "spec.yaml").write_text(SPEC)
    result = invoke("explain", "--memory", "--tpu", "v6e", "spec.yaml")
    assert result.stdout.split("\n\n")[-1] == (
        "the TPU does not match the spec: TPU v6e has 2 SparseCores a chip, the layout counts 4; "
        "the figures are the spec's\n"
        "TPU v6e: 32.0 GiB of HBM a chip; the tables take 0.0% of it\n"
        "fits\n"
    )
    # v5e: no SparseCores known; TPU7x: no TensorFlow.
    result = invoke("explain", "--memory", "--tpu", "v5e", "spec.yaml")
    assert result.stdout.split("\n\n")[-1] == (
        "TPU v5e: cannot run it: TPU v5e has no SparseCores tpuemb knows of (docs/memory.md): "
        "TPUEmbeddingV2 puts the stacks on SparseCores\n"
    )
    result = invoke("explain", "--memory", "--tpu", "tpu7x", "--format", "json", "spec.yaml")
    assert json.loads(result.stdout)["summary"]["status"] == "cannot-run"


def test_does_not_fit_says_what_would_help(here: Path) -> None:
    # 25,000,000 x 1024 float32 on one chip: 102.4 GB, over a v5p's 95 GiB.
    (here / "spec.yaml").write_text(
        SPEC.replace("num_hosts: 1, cores_per_host: 4", "num_hosts: 1, cores_per_host: 1")
        .replace("vocabulary_size: 1000, dim: 16", "vocabulary_size: 25000000, dim: 1024")
    )  # fmt: skip
    result = invoke("explain", "--memory", "spec.yaml")
    # TE601 is an error of the spec, and what --memory is for: it still explains.
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.split("\n\n")[-1] == (
        "TPU v5p: 95.0 GiB of HBM a chip; the tables take 200.8% of it\n"
        "does not fit: the tables alone exceed a chip's HBM. What would help:\n"
        "  more chips: each chip holds 1/replicas of every stack (topology.num_hosts x "
        "cores_per_host / num_cores_per_replica)\n"
        "  cheaper optimizer state: SGD on every table (no slot variables): 95.4 GiB a chip "
        "(not enough)\n"
    )


# explain and explain --memory agree, and name their engines --------------------------------------


def test_explain_and_explain_memory_agree_on_the_dlrm_example() -> None:
    explained = invoke("explain", str(DLRM)).stdout
    text = invoke("explain", "--memory", str(DLRM)).stdout
    document = json.loads(invoke("explain", "--memory", "--format", "json", str(DLRM)).stdout)
    # One stack of 26 tables: 398,928 rows per SparseCore x 128 x (parameters, accumulators).
    per_sparse_core = 398_928 * 128 * 4 * 2
    assert document["engine"] == "sparsecore"
    assert document["per_sparse_core_bytes"] == per_sparse_core
    assert document["per_chip_bytes"] == 4 * per_sparse_core == 1_634_009_088
    assert [stack["rows_per_sparse_core"] for stack in document["stacks"]] == [398_928]
    assert "398,928 rows per SparseCore" in explained
    assert "398,928 x 128" in text
    total = "1.5 GiB a chip (4 SparseCores x 389.6 MiB)"
    assert f"\ntotal: {total}; 1,634,009,088 bytes a chip\n" in text
    assert f"slot variables): {total}, as `tpuemb explain --memory` reports" in " ".join(
        explained.split()
    )
    assert "  memory: 389.6 MiB a SparseCore, 1.5 GiB a chip (parameters, accumulators)\n" in (
        explained
    )
    # Not the TensorCore model of the config the spec also compiles to.
    assert "gradient_accumulators" not in text and "312,500" not in text
    assert "padding: none" not in text


def test_explain_says_which_engine_its_rows_are_for(here: Path) -> None:
    (here / "spec.yaml").write_text(SPEC)
    explained = invoke("explain", "spec.yaml").stdout
    assert (
        "\n\nrows x dim above: the TensorCore config (TPUEmbedding, vocabularies padded to the "
        "hosts); this spec\ntrains on SparseCores (TPUEmbeddingV2), whose tables are padded and "
        "stacked as follows\n\nSparseCore stacking (TPUEmbeddingV2"
    ) in explained


def test_a_spec_without_sparse_core_is_reported_for_tensorcores(here: Path) -> None:
    (here / "spec.yaml").write_text(SPEC.replace("sparse_core: {}\n", ""))
    text = invoke("explain", "--memory", "spec.yaml").stdout
    assert text.splitlines()[1] == (
        "engine: TensorCore (TPUEmbedding: the TPUEmbeddingConfiguration's tables, sharded over "
        "the cores); a spec with a sparse_core section is reported for SparseCores instead"
    )
    document = json.loads(invoke("explain", "--memory", "--format", "json", "spec.yaml").stdout)
    assert document["engine"] == "tensorcore"
    assert "rows x dim above" not in invoke("explain", "spec.yaml").stdout


# check: the memory rules use the same figures, in every output format -------------------------


@pytest.mark.parametrize("output_format", ["concise", "json", "sarif"])
def test_check_reports_the_sparsecore_figure(here: Path, output_format: str) -> None:
    (here / "spec.yaml").write_text(
        SPEC.replace("num_hosts: 1, cores_per_host: 4", "num_hosts: 1, cores_per_host: 1")
        .replace("vocabulary_size: 1000, dim: 16", "vocabulary_size: 25000000, dim: 1024")
    )  # fmt: skip
    result = invoke("check", "--format", output_format, "spec.yaml")
    assert result.exit_code == 1
    message = (
        "the stacked tables' parameters and slot variables take 190.7 GiB on each chip "
        "(TPUEmbeddingV2 on SparseCores: 1 chip of 4 SparseCores): more than the 95.0 GiB of HBM "
        "of a v5p chip"
    )
    if output_format == "concise":
        assert f"TE601 [error] {message}\n" in result.stdout
        return
    document = json.loads(result.stdout)
    if output_format == "json":
        (finding,) = [f for f in document["findings"] if f["rule"] == "TE601"]
        assert (finding["message"], finding["field"]) == (message, "topology.num_hosts")
    else:
        (found,) = [r for r in document["runs"][0]["results"] if r["ruleId"] == "TE601"]
        assert found["message"]["text"].startswith(message)


def test_checking_a_config_on_a_chip_imports_no_sparsecore_model(tmp_path: Path) -> None:
    # The memory rules run on every config checked with a chip; the SparseCore model (and the
    # spec's gencode and compiler it reads) is imported only for a SparseCore spec.
    config = tmp_path / "c.pbtxt"
    config.write_text(
        'mode: TRAINING num_hosts: 1 num_tensor_cores: 1 table_descriptor { name: "a" '
        "vocabulary_size: 10 dimension: 4 optimization_parameters { adagrad {} learning_rate { "
        "constant: 0.1 } } } feature_descriptor { table_id: 0 input_shape: 1 }\n"
    )
    code = (
        "import sys\n"
        "from tpuemb_cli.cli.main import main\n"
        f"sys.argv = ['tpuemb', 'check', '--tpu', 'v5e', {str(config)!r}]\n"
        "try:\n    main(prog_name='tpuemb')\nexcept SystemExit:\n    pass\n"
        "print(sorted(sys.modules), file=sys.stderr)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    loaded = set(ast.literal_eval(result.stderr))
    assert {"tpuemb_cli.model.memory", "tpuemb_cli.rules.lib.fit"} <= loaded  # the rules ran
    sparsecore = {
        "tpuemb_cli.spec.sparsecore_memory",
        "tpuemb_cli.spec.sparsecore",
        "tpuemb_cli.pb.spec.embedding_spec_pb2",
    }
    assert not sparsecore & loaded
