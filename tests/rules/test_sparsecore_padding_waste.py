import json
from pathlib import Path

import pytest
import yaml
from google.protobuf import json_format

from tests.sparsecore_specs import check, replaced
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
from tpuemb_cli.rules.sparsecore.sparsecore_padding_waste import THRESHOLD_PERCENT
from tpuemb_cli.spec.sparsecore import plan
from tpuemb_cli.spec.sparsecore_state import slot_names, state_bytes

TOPOLOGY = "topology: {num_hosts: 1, cores_per_host: 4, accelerator: v5p}"
# 8 replicas x 4 SparseCores: rows are padded to a multiple of 8 x 32 = 256.
THIRTY_TWO = "topology: {num_hosts: 2, cores_per_host: 4, accelerator: v5p}"


def table(rows: int, dim: int = 16) -> str:
    return replaced(
        ("vocabulary_size: 1000, dim: 16}", f"vocabulary_size: {rows}, dim: {dim}}}"),
        (TOPOLOGY, THIRTY_TWO),
    )


def test_a_300_row_table_on_32_sparsecores(tmp_path: Path) -> None:
    code, stdout, stderr, path = check(tmp_path, table(300))
    assert (code, stderr) == (0, "")
    assert stdout == (
        f'{path}:3:5: TE653 [info] table "video" is padded from 300 x 16 to 512 x 16 on 32 '
        "SparseCores: 41.4% of its 64.0 KiB (parameters and accumulators, float32) is padding "
        "(26.5 KiB)\n"
        "Found 1 info in 1 file (1 file checked).\n"
    )
    # 2 arrays (Adagrad's parameters and accumulators) of 512 x 16 float32 = 65,536 bytes, of
    # which (512 - 300) x 16 x 4 x 2 = 27,136 are padding.
    assert (65_536, 27_136) == (512 * 16 * 4 * 2, (512 - 300) * 16 * 4 * 2)


def test_the_fix_names_the_shape_that_costs_nothing_more(tmp_path: Path) -> None:
    _, stdout, _, _ = check(tmp_path, table(300), "--format", "json")
    (finding,) = json.loads(stdout)["findings"]
    assert (finding["field"], finding["help"]) == (
        "tables[0]",
        "the padded shape costs the same whatever fills it: a vocabulary_size up to 512 and a "
        "dim up to 16 take no more memory (rows are padded to a multiple of 8 x 32 SparseCores, "
        "the dim to a multiple of 8)",
    )


def test_just_above_the_threshold(tmp_path: Path) -> None:
    # 383 rows in 512: 129 / 512 = 25.2% padding.
    code, stdout, _, path = check(tmp_path, table(383))
    assert (code, stdout) == (
        0,
        f'{path}:3:5: TE653 [info] table "video" is padded from 383 x 16 to 512 x 16 on 32 '
        "SparseCores: 25.2% of its 64.0 KiB (parameters and accumulators, float32) is padding "
        "(16.1 KiB)\n"
        "Found 1 info in 1 file (1 file checked).\n",
    )


@pytest.mark.parametrize(
    ("rows", "dim"),
    [
        (384, 16),  # exactly 25%: 128 of 512 rows
        (385, 16),  # just below: 24.8%
        (512, 12),  # exactly 25%: 4 of 16 columns
        (512, 18),  # exactly 25%: 6 of 24 columns
        (1_000_000, 16),  # a typical large table: 1,000,192 rows, 0.02%
        (1_000_000, 64),
    ],
)
def test_at_and_below_the_threshold(tmp_path: Path, rows: int, dim: int) -> None:
    code, stdout, _, _ = check(tmp_path, table(rows, dim))
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")
    assert THRESHOLD_PERCENT == 25


def test_narrow_dims_pad_columns(tmp_path: Path) -> None:
    # dim 11 is padded to 16 (31.2% padding); 1024 rows on 32 SparseCores need no row padding.
    code, stdout, _, path = check(tmp_path, table(1024, 11))
    assert (code, stdout) == (
        0,
        f'{path}:3:5: TE653 [info] table "video" is padded from 1024 x 11 to 1024 x 16 on 32 '
        "SparseCores: 31.2% of its 128.0 KiB (parameters and accumulators, float32) is padding "
        "(40.0 KiB)\n"
        "Found 1 info in 1 file (1 file checked).\n",
    )


def test_a_quarter_of_the_columns_and_a_few_rows(tmp_path: Path) -> None:
    # dim 12 pads a quarter; 1,000,000 rows pad to 1,000,192: just over 25% in all, shown to
    # two decimals so that it does not read as the threshold itself.
    code, stdout, _, path = check(tmp_path, table(1_000_000, 12))
    assert (code, stdout) == (
        0,
        f'{path}:3:5: TE653 [info] table "video" is padded from 1000000 x 12 to 1000192 x 16 on '
        "32 SparseCores: 25.01% of its 122.1 MiB (parameters and accumulators, float32) is "
        "padding (30.5 MiB)\n"
        "Found 1 info in 1 file (1 file checked).\n",
    )


@pytest.mark.parametrize(
    ("optimizer", "holds", "total", "wasted"),
    [
        ("{sgd: {}}", "parameters", "32.0 KiB", "13.2 KiB"),
        ("{adam: {}}", "parameters and momenta, velocities", "96.0 KiB", "39.8 KiB"),
        ("{ftrl: {}}", "parameters and accumulators, linears", "96.0 KiB", "39.8 KiB"),
        (
            "{adagrad_momentum: {momentum: 0.9}}",
            "parameters and accumulators, momenta",
            "96.0 KiB",
            "39.8 KiB",
        ),
    ],
)
def test_the_bytes_count_the_optimizers_slots(
    tmp_path: Path, optimizer: str, holds: str, total: str, wasted: str
) -> None:
    text = table(300).replace("{adagrad: {}, learning_rate", f"{optimizer[:-1]}, learning_rate")
    code, stdout, _, path = check(tmp_path, text)
    assert (code, stdout) == (
        0,
        f'{path}:3:5: TE653 [info] table "video" is padded from 300 x 16 to 512 x 16 on 32 '
        f"SparseCores: 41.4% of its {total} ({holds}, float32) is padding ({wasted})\n"
        "Found 1 info in 1 file (1 file checked).\n",
    )


def test_the_padded_shape_is_the_plans() -> None:
    spec = json_format.ParseDict(yaml.safe_load(table(300)), EmbeddingSpec())
    layout = plan(spec).tables["video"]
    assert (layout.shape, layout.padded_shape) == ((300, 16), (512, 16))
    assert slot_names(spec.optimizer) == ("accumulators",)
    assert state_bytes(layout.padded_shape, spec.optimizer) == 65_536


def test_no_layout_says_nothing(tmp_path: Path) -> None:
    # v6e's SparseCores per chip are not in tpuemb's chip table: the padding is not known.
    text = table(300).replace("accelerator: v5p", "accelerator: v6e")
    code, stdout, _, _ = check(tmp_path, text, "--select", "TE653")
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")


def test_not_a_sparsecore_spec(tmp_path: Path) -> None:
    text = table(300).replace("sparse_core: {}\n", "")
    code, stdout, _, _ = check(tmp_path, text, "--select", "TE653")
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")


def test_a_small_tables_padding_beside_large_tables_is_not_reported(tmp_path: Path) -> None:
    # 300 rows padded to 512 are 41% of the table but 26.5 KiB beside a 10-million-row table:
    # less than 1% of the model's padded bytes.
    text = table(300).replace(
        "features:",
        "  - {name: user, vocabulary_size: 10000000, dim: 16}\nfeatures:",
    )
    text = text.replace("topology:", "  - {name: who, table: user, output_shape: [16]}\ntopology:")
    code, stdout, _, _ = check(tmp_path, text, "--select", "TE653")
    assert (code, stdout) == (0, "All checks passed (1 file checked).\n")
    # Alone, the same table is reported (test_a_300_row_table_on_32_sparsecores).
    code, stdout, _, _ = check(tmp_path, table(300), "--select", "TE653")
    assert "TE653" in stdout
