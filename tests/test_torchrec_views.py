"""``explain`` and ``explain --memory`` of a TorchRecSpec (frontends/torchrec/views/), whole
outputs: the stacks torchrec makes, and what its fused collection allocates on each device --
``_SparseCoreFusedEmbeddingBase.__init__`` of torchrec 1.9.2: a stack's weight of
``stack_num_embeddings // global_device_count`` rows of ``stack_embedding_dim`` float32 values,
Adagrad's accumulators or Adam's momentums and velocities of the same shape, a float32 learning
rate a stack -- in text and JSON, against chips (their HBM, their SparseCores a device, a slice's
devices), refused specs, and names that would act on a terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.memory_documents import without_summary
from tpuemb_cli.cli.main import main

# Two bag tables stacked on 4 devices of 2 SparseCores, Adagrad at lr 0.05: the stack has
# 1,024 + 512 padded rows (each table rounded up to 8 x 8 SparseCores) of width 16 (the item
# table's 8 widened to the user table's 16).
SMALL = """\
tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 16 feature_names: "u" }
tables { name: "item" kind: "bag" num_embeddings: 500 embedding_dim: 8 feature_names: "i" }
stack_calls {
  call: "stack_tables" tables: "user" tables: "item" global_device_count: 4 num_sc_per_device: 2
}
collection {
  type: "SparseCoreFusedEmbeddingBagCollection"
  optimizer { type: "Adagrad" kwargs { key: "lr" value: 0.05 } }
  batch_size: 64 global_device_count: 4 num_sc_per_device: 2
}
"""
ENGINE = (
    "engine: torchrec (SparseCore fused collection) -- each stack one float32 weight of "
    "stack_num_embeddings // global_device_count rows on every device, split evenly over its "
    "SparseCores; the optimizer's state the weight's shape per slot; a float32 learning rate a "
    "stack\n"
)
NOT_COUNTED = (
    "not counted (so this is a lower bound): the input preprocessing's buffers, activations, the "
    "dense model, XLA's working set\n"
)
SMALL_MEMORY = (
    "spec.pbtxt: TorchRec (SparseCoreFusedEmbeddingBagCollection): what the fused collection "
    "allocates on each device\n" + ENGINE + "\n"
    "stack        rows x dim a device  rows a SparseCore  padding rows (stack)  "
    "arrays                    a device  share\n"
    "-----------  -------------------  -----------------  --------------------  "
    "------------------------  --------  ---------------------------\n"
    "1 user_item  384 x 16             192                36                    "
    "2 (weight, accumulators)  48.0 KiB  #################### 100.0%\n"
    "\n"
    "topology: 4 devices x 2 SparseCores a device = 8 SparseCores; each stack's rows are split "
    "evenly over them\n"
    "optimizer: Adagrad (accumulators, each one array a stack of the weight's shape, starting at "
    "0)\n"
    "learning rates: 0.05 (`lr`) on every stack, one float32 scalar each: 4 bytes a device\n"
    "padding: 36 of the stacks' 1,536 rows pad the tables (each table's rows rounded up to 8 a "
    "SparseCore, a multiple of 64); no id reaches them, and they take HBM as any row does\n"
    "padding: 4,096 values widen a stack's narrower tables to its widest (torchrec logs it as "
    "excess padding)\n"
    "total: 48.0 KiB a device (49,156 bytes): weights 24.0 KiB, optimizer state 24.0 KiB, "
    "learning rates 4 bytes; 192.0 KiB over 4 devices\n" + NOT_COUNTED
)
# One table of 200 million rows of 16 with Adagrad on one device: 25.6 GB a device; and one of
# 112.5 million: 14.4 GB, 90% of a v5e's 16 GB.
BIG = """\
tables { name: "huge" kind: "bag" num_embeddings: %d embedding_dim: 16 feature_names: "f" }
collection {
  optimizer { type: "Adagrad" } batch_size: 64 global_device_count: 1 num_sc_per_device: 2
}
"""


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec.pbtxt").write_text(SMALL, encoding="utf-8")
    return tmp_path


def test_explain_shows_the_stacks_torchrec_makes(folder: Path) -> None:
    result = invoke("explain", "spec.pbtxt")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        "spec.pbtxt: TorchRec (SparseCoreFusedEmbeddingBagCollection), 2 tables on 4 devices of 2 "
        "SparseCores\n"
        "\n"
        "collection: optimizer Adagrad, learning rate 0.05 a stack, batch_size 64\n"
        "stack user_item: 1,536 rows x 16 (2 tables, 8 SparseCores of 192 rows, sample "
        "multiplier 2)\n"
        "  user: 1,000 x 16 -> padded 1,024 x 16, rows 0.. of each SparseCore's shard, rotation 0\n"
        "  item: 500 x 8 -> padded 512 x 16, rows 128.. of each SparseCore's shard, rotation 2\n"
        "torchrec logs: WARNING during stack_tables: Excess padding detected for stacked table "
        "user_item: 4096 values.\n"
    )
    # explain has a JSON format for --memory only, as for every other kind.
    refused = invoke("explain", "--format", "json", "spec.pbtxt")
    assert refused.exit_code == 2 and "--format json is for --memory" in refused.stderr


def test_memory_says_what_each_device_and_sparse_core_holds(folder: Path) -> None:
    result = invoke("explain", "--memory", "spec.pbtxt")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == SMALL_MEMORY + (
        "\nno TPU named: --tpu CHIP or `tpu` in [tool.tpuemb] compares each device's figures "
        "with a chip's HBM and its SparseCores a device\n"
    )


def test_memory_as_json(folder: Path) -> None:
    result = invoke("explain", "--memory", "--format", "json", "spec.pbtxt")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.endswith("}\n")
    assert without_summary(result.stdout) == {
        "version": 1,
        "engine": "torchrec",
        "file": "spec.pbtxt",
        "built": True,
        "collection": "SparseCoreFusedEmbeddingBagCollection",
        "devices": 4,
        "sparse_cores_per_device": 2,
        "sparse_cores": 8,
        "optimizer": "Adagrad",
        "learning_rate": 0.05,
        "stacks": [
            {
                "name": "user_item",
                "tables": ["user", "item"],
                "rows_per_device": 384,  # 1,536 // 4
                "rows_per_sparse_core": 192,  # 1,536 // (4 x 2)
                "width": 16,
                "table_rows": 1500,
                "padding_rows": 36,
                "excess_padding_values": 4096,  # (16 - 8) x 512
                "arrays": ["weight", "accumulators"],
                "array_bytes_per_device": 24576,  # 384 x 16 x 4
                "learning_rate": 0.05,
                "bytes_per_device": 49156,  # two arrays and the learning rate
            }
        ],
        "bytes_per_device": 49156,
        "weights_per_device": 24576,
        "optimizer_state_per_device": 24576,
        "learning_rates_per_device": 4,
        "parameters_per_device": 24580,
        "bytes_all_devices": 196624,
        "initial_accumulator_value": 0.0,
        "tpu": None,
    }


def test_adam_holds_two_slots_and_each_stack_its_learning_rate(folder: Path) -> None:
    (folder / "adam.pbtxt").write_text(
        SMALL[: SMALL.index("stack_calls")]
        + "collection {\n"
        + '  optimizer { type: "Adam" kwargs { key: "learning_rate" value: 0.001 } }\n'
        + "  batch_size: 64 global_device_count: 4 num_sc_per_device: 2\n}\n",
        encoding="utf-8",
    )
    result = invoke("explain", "--memory", "--format", "json", "adam.pbtxt")
    assert (result.exit_code, result.stderr) == (0, ""), result.stdout
    found = json.loads(result.stdout)
    shown = [
        (s["name"], s["rows_per_device"], s["width"], s["arrays"], s["bytes_per_device"])
        for s in found["stacks"]
    ]
    # Each table its own stack: 1,024 // 4 rows of 16 and 512 // 4 rows of 8, three arrays.
    assert shown == [
        ("user", 256, 16, ["weight", "momentums", "velocities"], 256 * 16 * 4 * 3 + 4),
        ("item", 128, 8, ["weight", "momentums", "velocities"], 128 * 8 * 4 * 3 + 4),
    ]
    assert (found["learning_rate"], found["learning_rates_per_device"]) == (0.001, 8)
    assert "initial_accumulator_value" not in found
    text = invoke("explain", "--memory", "adam.pbtxt").stdout
    assert "optimizer: Adam (momentums and velocities, each one array a stack" in text
    assert "learning rates: 0.001 (`learning_rate`) on every stack" in text


def test_tables_only_prepared_have_no_optimizer_state(folder: Path) -> None:
    (folder / "prepared.pbtxt").write_text(
        'tables { name: "user" kind: "bag" num_embeddings: 1000 embedding_dim: 16 }\n'
        "prepare { global_device_count: 2 num_sc_per_device: 2 }\n",
        encoding="utf-8",
    )
    result = invoke("explain", "--memory", "prepared.pbtxt")
    assert (result.exit_code, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "prepared.pbtxt: TorchRec (prepare_tables_for_stacking): what a fused collection of these "
        "stacks would allocate on each device"
    )
    # 1,024 padded rows // 2 devices, // 4 SparseCores; 24 rows of padding; no state.
    assert " ".join(lines[5].split()[:-2]) == "1 user 512 x 16 256 24 1 (weight) 32.0 KiB"
    assert (
        "optimizer: none (no collection: prepare_tables_for_stacking only); the weights and "
        "learning rates a collection would hold, with no optimizer state (as SGD)"
    ) in lines
    assert "learning rates: 0.01 (the collection's default) on every stack" in result.stdout


CHIP_LINES = {
    # v5p: 4 SparseCores a device, the spec lays its stacks out for 2.
    "v5p": (
        "TPU v5p has 4 SparseCores a device; the stacks are laid out for 2 (num_sc_per_device): "
        "set it to 4 to lay them out for this chip\n"
        "TPU v5p: 95.0 GiB of HBM a device; the stacks take 0.0% of it\n"
        "fits\n"
    ),
    # v6e-8: 2 SparseCores a device as the spec says, but 8 devices where the spec has 4.
    "v6e-8": (
        "TPU v6e-8 is 8 devices; the collection is built for 4 (global_device_count): the "
        "figures are for 4 devices\n"
        "TPU v6e: 32.0 GiB of HBM a device; the stacks take 0.0% of it\n"
        "fits\n"
    ),
    # tpu7x: two devices a chip, each 96 GiB and 2 SparseCores: nothing to say but the fit.
    "tpu7x": "TPU tpu7x: 96.0 GiB of HBM a device; the stacks take 0.0% of it\nfits\n",
    # v5e: no SparseCores known.
    "v5e": (
        "TPU v5e: cannot run it: TPU v5e has no SparseCores tpuemb knows of (not in "
        "NUM_SC_PER_DEVICE_MAP): torchrec's fused collection runs its lookups on SparseCores\n"
    ),
    # v2: neither its HBM nor its SparseCores are known.
    "v2": (
        "TPU v2: cannot run it: TPU v2 has no SparseCores tpuemb knows of (not in "
        "NUM_SC_PER_DEVICE_MAP): torchrec's fused collection runs its lookups on SparseCores\n"
    ),
}


@pytest.mark.parametrize("tpu", sorted(CHIP_LINES))
def test_memory_against_a_chip(folder: Path, tpu: str) -> None:
    result = invoke("explain", "--memory", "--tpu", tpu, "spec.pbtxt")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == SMALL_MEMORY + "\n" + CHIP_LINES[tpu]


def test_the_chip_in_json(folder: Path) -> None:
    result = invoke("explain", "--memory", "--format", "json", "--tpu", "v6e-8", "spec.pbtxt")
    assert json.loads(result.stdout)["tpu"] == {
        "name": "v6e-8",
        "hbm_per_device": 32 << 30,
        "sparse_cores_per_device": 2,
        "devices": 8,
        "fits": True,
        "notes": [
            "TPU v6e-8 is 8 devices; the collection is built for 4 (global_device_count): the "
            "figures are for 4 devices"
        ],
    }
    unknown = invoke("explain", "--memory", "--format", "json", "--tpu", "v2", "spec.pbtxt")
    assert json.loads(unknown.stdout)["tpu"]["fits"] is None


def test_too_large_for_the_chip(folder: Path) -> None:
    (folder / "big.pbtxt").write_text(BIG % 200_000_000, encoding="utf-8")
    (folder / "near.pbtxt").write_text(BIG % 112_500_000, encoding="utf-8")
    # On v6e (2 SparseCores a device, as the collection is laid out): twice the rows.
    (folder / "big6.pbtxt").write_text(BIG % 400_000_000, encoding="utf-8")
    (folder / "near6.pbtxt").write_text(BIG % 241_600_000, encoding="utf-8")
    big = invoke("explain", "--memory", "--tpu", "v6e", "big6.pbtxt")
    assert (big.exit_code, big.stderr) == (0, "")
    assert big.stdout.endswith(
        "total: 47.7 GiB a device (51,200,000,004 bytes): weights 23.8 GiB, optimizer state 23.8 "
        "GiB, learning rates 4 bytes; 47.7 GiB over 1 device\n" + NOT_COUNTED + "\n"
        "TPU v6e: 32.0 GiB of HBM a device; the stacks take 149.0% of it\n"
        "does not fit: the stacks alone exceed a device's HBM. What would help:\n"
        "  more devices: each holds 1/global_device_count of every stack's rows\n"
        "  cheaper optimizer state: SGD (no state): 23.8 GiB a device (enough)\n"
        "  smaller or fewer tables\n"
    )
    near = invoke("explain", "--memory", "--tpu", "v6e", "near6.pbtxt")
    assert near.stdout.endswith(
        "TPU v6e: 32.0 GiB of HBM a device; the stacks take 90.0% of it\n"
        "fits, with less than 20% left for the rest of the program. What would leave 20%:\n"
        "  more devices: each holds 1/global_device_count of every stack's rows\n"
        "  cheaper optimizer state: SGD (no state): 14.4 GiB a device (enough)\n"
        "  smaller or fewer tables\n"
    )
    # The memory rules say the same of the same figures.
    checked = invoke("check", "--isolated", "--tpu", "v5e", "big.pbtxt", "near.pbtxt")
    assert checked.exit_code == 1
    assert checked.stdout == (
        "big.pbtxt:3:48: TE601 [error] the stacked tables' weights and optimizer state take 23.8 "
        "GiB on each device (torchrec's fused collection: 1 device of 2 SparseCores): more than "
        "the 14.9 GiB of HBM of a v5e device\n"
        "near.pbtxt:3:48: TE602 [warning] the stacked tables' weights and optimizer state take "
        "13.4 GiB on each device (torchrec's fused collection: 1 device of 2 SparseCores): 90% of "
        "the 14.9 GiB of HBM of a v5e device, which leaves little for activations, input buffers "
        "and XLA's working set\n"
        "Found 1 error, 1 warning in 2 files (2 files checked).\n"
    )
    roomy = invoke("check", "--isolated", "--tpu", "v5p", "big.pbtxt", "near.pbtxt")
    assert roomy.exit_code == 0, roomy.stdout


def test_a_refused_collection_is_said_in_prose_that_ends_its_line(folder: Path) -> None:
    (folder / "odd.pbtxt").write_text(
        SMALL.replace("batch_size: 64", "batch_size: 3"), encoding="utf-8"
    )
    result = invoke("explain", "--memory", "odd.pbtxt")
    assert result.stdout == (
        "odd.pbtxt: TorchRec (SparseCoreFusedEmbeddingBagCollection)\n"
        "\n"
        "not built: SparseCoreFusedEmbeddingBagCollection raises ValueError: batch_size (3) must "
        "be divisible by num_sc_per_device (2). -- no weight is allocated (`tpuemb check` reports "
        "it)\n"
    )
    assert "TE847" in result.stderr
    document = json.loads(invoke("explain", "--memory", "--format", "json", "odd.pbtxt").stdout)
    assert (document["built"], document["stacks"]) == (False, [])
    (folder / "rms.pbtxt").write_text(SMALL.replace('"Adagrad"', '"RMSprop"'), encoding="utf-8")
    rms = invoke("explain", "--memory", "rms.pbtxt")
    assert rms.stdout == (
        "rms.pbtxt: TorchRec (SparseCoreFusedEmbeddingBagCollection)\n"
        "\n"
        "not built: the collection raises ValueError: Unsupported optimizer: RMSprop. Only 'sgd', "
        "'adagrad', and 'adam' are supported. -- no collection is built (`tpuemb check` reports "
        "it, TE848)\n"
    )


def test_no_table_and_no_device(folder: Path) -> None:
    (folder / "empty.pbtxt").write_text(
        'collection { optimizer { type: "SGD" } batch_size: 2 }\n', encoding="utf-8"
    )
    empty = invoke("explain", "--memory", "empty.pbtxt")
    assert (empty.exit_code, empty.stderr) == (0, "")
    assert empty.stdout == (
        "empty.pbtxt: TorchRec (SparseCoreFusedEmbeddingBagCollection)\n\n"
        "no table: the collection holds no weight\n"
    )
    (folder / "none.pbtxt").write_text(
        'tables { name: "a" kind: "bag" num_embeddings: 10 embedding_dim: 4 }\n'
        'collection { optimizer { type: "SGD" } batch_size: 2 global_device_count: -4 }\n',
        encoding="utf-8",
    )
    none = invoke("explain", "--memory", "none.pbtxt")
    assert none.stdout == (
        "none.pbtxt: TorchRec (SparseCoreFusedEmbeddingBagCollection)\n\n"
        "not built: global_device_count is below 1: no device holds a weight (`tpuemb check` "
        "reports it)\n"
    ), none.stdout
    assert "TE849" in none.stderr


def test_names_that_would_act_on_a_terminal_are_escaped(folder: Path) -> None:
    hostile = (
        SMALL.replace('name: "user"', 'name: "us\\x1b[31mer\\nx"')
        .replace('"user" tables', '"us\\x1b[31mer\\nx" tables')
        .replace("global_device_count: 4 num_sc_per_device: 2\n}", 'name: "st\\u202eack" }', 1)
        .replace('"Adagrad"', '"Ada\\x07grad"')
    )
    (folder / "hostile\x1b.pbtxt").write_text(hostile, encoding="utf-8")
    for args in (
        ("explain", "hostile\x1b.pbtxt"),
        ("explain", "--memory", "hostile\x1b.pbtxt"),
        ("explain", "--memory", "--tpu", "v5p", "hostile\x1b.pbtxt"),
    ):
        result = invoke(*args)
        assert not any(c in result.stdout for c in "\x1b\x07\u202e"), result.stdout
        assert "hostile\\x1b.pbtxt: TorchRec" in result.stdout
    shown = invoke("explain", "hostile\x1b.pbtxt").stdout
    assert "stack st\\u202eack: " in shown and "  us\\x1b[31mer\\nx: 1,000 x 16" in shown
    assert "collection: optimizer Ada\\x07grad," in shown
    memory = invoke("explain", "--memory", "hostile\x1b.pbtxt").stdout
    assert "not built: the collection raises ValueError: Unsupported optimizer: Ada\\x07grad." in (
        memory
    )
    # With an optimizer it builds, the stack's name is escaped in the table; JSON keeps it.
    (folder / "named.pbtxt").write_text(hostile.replace("Ada\\x07grad", "SGD"), encoding="utf-8")
    table = invoke("explain", "--memory", "named.pbtxt").stdout
    assert "\n1 st\\u202eack  " in table and "optimizer: SGD (no state)" in table
    document = json.loads(invoke("explain", "--memory", "--format", "json", "named.pbtxt").stdout)
    assert [s["name"] for s in document["stacks"]] == ["st\u202eack"]
    assert document["stacks"][0]["tables"] == ["us\x1b[31mer\nx", "item"]
