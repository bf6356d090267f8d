"""`tpuemb explain --memory`, `--tpu` on explain and check, and `tpu` in the settings: whole
outputs and exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.memory_documents import without_summary
from tpuemb_cli.cli import main

CONFIG = """\
mode: TRAINING
num_hosts: 1
num_tensor_cores: 4
table_descriptor { name: "ids" vocabulary_size: 400000000 dimension: 32
  optimization_parameters { learning_rate { constant: 0.1 } adagrad {} } }
table_descriptor { name: "country" vocabulary_size: 3 dimension: 4
  optimization_parameters { learning_rate { constant: 0.1 } adagrad {}
    gradient_accumulation_status: DISABLED
    hot_id_replication_configuration { status: ENABLED } } }
table_descriptor { name: "none" vocabulary_size: 10 dimension: 4 }
feature_descriptor { name: "a" table_id: 0 input_shape: 8 }
feature_descriptor { name: "b" table_id: 1 input_shape: 8 }
feature_descriptor { name: "c" table_id: 2 input_shape: 8 }
"""

# The table's rows (longer than a source line: each is written in two parts).
ROWS = "\n".join(
    [
        "table    rows x dim        arrays                                               "
        "on a core  share",
        "-------  ----------------  ---------------------------------------------------  "
        "---------  ---------------------------",
        "ids      100,000,000 x 32  3 (parameters, accumulators, gradient_accumulators)  "
        "35.8 GiB   #################### 100.0%",
        "country  1 x 4             2 (parameters, accumulators)                         "
        "32 B       ....................   0.0%",
    ]
)
TABLE = """\
t.pbtxt: the embedding tables on each of 4 cores (one shard of every table a core; the first core \
holds the largest shards)
engine: TensorCore (TPUEmbedding: the TPUEmbeddingConfiguration's tables, sharded over the cores); \
a spec with a sparse_core section is reported for SparseCores instead

{ROWS}

total on the fullest core: 35.8 GiB (38,400,000,032 bytes)
not counted: table none: TensorFlow would refuse it: it has no optimization algorithm
hot-id replication: on for 1 table: copies of hot rows are added at run time, as many as the \
engine decides; not in this estimate
not counted (so this is a lower bound): activations, the embedding engine's deduplication and \
gradient buffers, XLA's working set
padding: none in TensorFlow's shapes; the on-chip layout is not public

""".replace("{ROWS}", ROWS)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "t.pbtxt"
    path.write_text(CONFIG)
    return path


def test_does_not_fit_says_what_would(config: Path) -> None:
    result = invoke("explain", "--memory", "--tpu", "v5e", "t.pbtxt")
    # Table 2 has no optimizer (TE405): said first, exit 1 (issue 38); the report as ever.
    assert result.exit_code == 1 and result.stderr.endswith(
        "explained as read, with the errors above\n"
    )
    assert result.stdout == TABLE + (
        "TPU v5e: 14.9 GiB of HBM a core (1 core a chip); the tables take 240.0% of it\n"
        "does not fit: the tables alone exceed a core's HBM. What would fit:\n"
        "  more cores: a v5litepod-16 (16 chips, 16 TensorFlow cores) would fit (num_tensor_cores "
        "16)\n"
        "  cheaper optimizer state: gradient accumulation off everywhere: 23.8 GiB a core "
        "(not enough)\n"
        "  cheaper optimizer state: SGD without accumulation on every table: 11.9 GiB a core "
        "(enough)\n"
        "  lower precision is not an option: TensorFlow's load and retrieve ops hold every state "
        "array as float32, and the config has no field for a narrower type\n"
    )


def test_near_the_hbm_and_fits(config: Path) -> None:
    result = invoke("explain", "--memory", "--tpu", "v5p", "t.pbtxt")
    assert result.stdout.endswith(
        "TPU v5p: 95.0 GiB of HBM a core (1 core a chip); the tables take 37.6% of it\nfits\n"
    )
    config.write_text(CONFIG.replace("num_tensor_cores: 4", "num_tensor_cores: 2"))
    result = invoke("explain", "--memory", "--tpu", "v5p", "t.pbtxt")
    assert result.stdout.split("\n\n")[-1] == (
        "TPU v5p: 95.0 GiB of HBM a core (1 core a chip); the tables take 75.3% of it\nfits\n"
    )
    config.write_text(CONFIG.replace("num_tensor_cores: 4", "num_tensor_cores: 1"))
    # TensorFlow does not run on TPU7x: no figure against its HBM is a verdict.
    result = invoke("explain", "--memory", "--tpu", "tpu7x", "t.pbtxt")
    assert result.stdout.split("\n\n")[-1] == (
        "TPU tpu7x: cannot run it: TensorFlow does not run on TPU7x (its Cloud TPU page: "
        '"TensorFlow is not supported"; JAX is)\n'
    )


def test_without_a_chip_and_with_one_whose_hbm_is_unknown(config: Path) -> None:
    assert invoke("explain", "--memory", "t.pbtxt").stdout == TABLE + (
        "no TPU named: --tpu CHIP, `tpu` in [tool.tpuemb] or a spec's accelerator compares this "
        "with a chip's HBM\n"
    )
    assert invoke("explain", "--memory", "--tpu", "v2", "t.pbtxt").stdout == TABLE + (
        "TPU v2: its HBM is not known (docs/memory.md); nothing to compare with\n"
    )


def test_the_settings_name_the_chip_and_tpu_overrides_them(config: Path) -> None:
    Path("pyproject.toml").write_text('[tool.tpuemb]\ntpu = "TPU v5e"\n')
    assert "TPU v5e: 14.9 GiB" in invoke("explain", "--memory", "t.pbtxt").stdout
    assert "TPU v5p: 95.0 GiB" in invoke("explain", "--memory", "--tpu", "v5p", "t.pbtxt").stdout
    result = invoke("check", "--select", "TE6", "t.pbtxt")
    assert (result.exit_code, result.stdout) == (
        1,
        "t.pbtxt:3:1: TE601 [error] the embedding tables' parameters and optimizer state take "
        "35.8 GiB on the fullest of 4 cores (1 table TensorFlow would refuse not counted): more "
        "than the 14.9 GiB of HBM of a v5e core\n"
        "Found 1 error in 1 file (1 file checked).\n",
    )
    result = invoke("check", "--select", "TE6", "--tpu", "v5p", "t.pbtxt")
    assert (result.exit_code, result.stdout) == (0, "All checks passed (1 file checked).\n")


def test_json(config: Path) -> None:
    result = invoke("explain", "--memory", "--format", "json", "--tpu", "v5e", "t.pbtxt")
    assert result.exit_code == 1  # TE405 said on stderr; stdout is the JSON report
    assert without_summary(result.stdout) == {
        "version": 1,
        "engine": "tensorcore",
        "file": "t.pbtxt",
        "cores": 4,
        "per_core_bytes": 38_400_000_032,
        "tables": [
            {
                "index": 0,
                "name": "ids",
                "rows_per_shard": 100_000_000,
                "dimension": 32,
                "state_arrays": ["parameters", "accumulators", "gradient_accumulators"],
                "bytes_per_shard": 38_400_000_000,
                "share": 38_400_000_000 / 38_400_000_032,
            },
            {
                "index": 1,
                "name": "country",
                "rows_per_shard": 1,
                "dimension": 4,
                "state_arrays": ["parameters", "accumulators"],
                "bytes_per_shard": 32,
                "share": 32 / 38_400_000_032,
            },
        ],
        "refused": [{"index": 2, "name": "none", "reason": "it has no optimization algorithm"}],
        "hot_id_replication_tables": 1,
        "tpu": {
            "chip": "v5e",
            "hbm_per_core_bytes": 16_000_000_000,
            "accelerator": "v5e",
            "slice_cores": None,
            "slice_mismatch": None,
            "fits": False,
            "share": 38_400_000_032 / 16_000_000_000,
            "warning_percent": 80,
            # v5e slices: 1, 4, 8, 16, ... chips; 10 and 13 cores would do, no slice has them.
            "smallest_core_count_that_fits": 16,
            "smallest_slice_that_fits": "v5litepod-16",
            "smallest_core_count_under_warning": 16,
            "smallest_slice_under_warning": "v5litepod-16",
            "per_core_bytes_without_gradient_accumulation": 25_600_000_032,
            "per_core_bytes_with_sgd": 12_800_000_016,
        },
    }


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        (
            ("explain", "--memory", "--tpu", "v5q", "t.pbtxt"),
            "Error: Invalid value for '--tpu': unknown TPU 'v5q' (chips: v2, v3, v4, v5e, v5p, "
            "v6e, tpu7x; or an accelerator type such as v5p-128)\n",
        ),
        (
            ("check", "--tpu", "tpu7", "t.pbtxt"),
            "Error: Invalid value for '--tpu': unknown TPU 'tpu7'; did you mean `tpu7x`?\n",
        ),
        (
            ("explain", "--format", "json", "t.pbtxt"),
            "tpuemb: error: --format json is for --memory; explain prints text\n",
        ),
    ],
)
def test_bad_options_exit_2(config: Path, args: tuple[str, ...], stderr: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stderr.endswith(stderr)
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"v5ee"', "`tpu`: unknown TPU 'v5ee'; did you mean `v5e`?"),
        ("5", '`tpu`: must be a string naming a TPU, such as "v5p" or "v5p-128"'),
    ],
)
def test_bad_tpu_setting(config: Path, value: str, message: str) -> None:
    Path(".tpuemb.toml").write_text(f"tpu = {value}\n")
    for args in (("check", "t.pbtxt"), ("explain", "--memory", "t.pbtxt")):
        result = invoke(*args)
        assert result.exit_code == 2
        assert result.stderr == f"tpuemb: error: {Path('.tpuemb.toml').absolute()}:1:1: {message}\n"


def test_an_optimizer_has_no_memory(tmp_path: Path) -> None:
    path = tmp_path / "o.pbtxt"
    path.write_text("adagrad {}\nlearning_rate { constant: 0.1 }\n")
    result = invoke("explain", "--memory", "--type", "OptimizationParameters", str(path))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"tpuemb: error: {path}: an OptimizationParameters belongs to no table: --memory needs a "
        "config or a spec\n"
    )
