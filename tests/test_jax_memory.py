"""`tpuemb explain --memory` and TE601/TE602 on a JAX EmbeddingSpecProto, with exact figures
(no JAX: `make test-jax`'s tests/test_jax_memory_oracle.py holds the model against the library).

tests/data/jax/stacked.pbtxt: 8 SparseCores; stack video_user (video 1024 and user 5056 padded
rows, dim 16), stack ads (320 rows, dim 64); max_ids_per_partition 256 each. On v6e (2
SparseCores a device): 4 devices. A SparseCore's rows: 1024/8 + 5056/8 = 760 and 320/8 = 40; a
device's variables 760 x 16 x 4 x 2 = 97,280 and 40 x 64 x 4 x 2 = 20,480 bytes; COO buffer
RoundUp(256, 8) x 2 x 8 = 4,096 elements, so a stack's buffers (3 x 4,096 + max(8, 8) x 2) x 4
= 49,216 bytes; a device 97,280 + 20,480 + 2 x 49,216 = 216,192 bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from google.protobuf import text_format

from tests.jax_specs import STACKED, check, replaced
from tpuemb_cli.cli import main
from tpuemb_cli.frontends.jax.spec.memory import model, theoretical_max_coo_buffer_size
from tpuemb_cli.pb.jax.embedding_spec_pb2 import EmbeddingSpecProto


def _spec(text: str = STACKED) -> EmbeddingSpecProto:
    return text_format.Parse(text, EmbeddingSpecProto())


def _explain(folder: Path, text: str, *options: str) -> tuple[int, str, str]:
    path = folder / "stacked.pbtxt"
    path.write_text(text)
    result = CliRunner().invoke(main, ["explain", "--memory", str(path), *options])
    return result.exit_code, result.stdout.replace(str(path), "PATH"), result.stderr


def test_the_library_s_theoretical_max_coo_buffer_size() -> None:
    # RoundUpTo(max_ids, 8) x SparseCores a device x SparseCores in all.
    assert theoretical_max_coo_buffer_size(256, 4, 2) == 4096
    assert theoretical_max_coo_buffer_size(1, 1, 2) == 8 * 2 * 2
    assert theoretical_max_coo_buffer_size(9, 3, 4) == 16 * 4 * 12


def test_the_stacks_on_each_sparsecore_and_device() -> None:
    memory = model(_spec(), 2)
    video, ads = memory.stacks
    assert (video.name, video.tables, video.rows, video.width) == (
        "video_user",
        ("video", "user"),
        6080,
        16,
    )
    assert (video.rows_per_sparse_core, ads.rows_per_sparse_core) == (760, 40)
    # The global variable is the stack: rows a SparseCore x SparseCores.
    assert video.rows_per_sparse_core * 8 == video.rows and ads.rows_per_sparse_core * 8 == 320
    assert (video.arrays, video.optimizer) == (("parameters",), "")
    assert (video.variables(2), ads.variables(2)) == (97_280, 20_480)
    assert (video.coo_size(2), video.buffers(2)) == (4096, 49_216)
    assert memory.devices == 4
    assert memory.per_device_bytes == 216_192
    assert memory.optimizers_known is False
    assert memory.parameters_per_device == 216_192


def test_a_0_2_0_optimizer_adds_its_slot_variables() -> None:
    text = replaced(('table_name: "video"', 'table_name: "video"\n    optimizer { type: ADAM }'))
    memory = model(_spec(text), 2)
    video, ads = memory.stacks
    assert (video.arrays, video.optimizer) == (("parameters", "momentum", "velocity"), "ADAM")
    assert video.variables(2) == 3 * 97_280
    assert ads.arrays == ("parameters",)
    assert memory.optimizers_known is False  # ads records none
    assert memory.per_device_bytes == 216_192 + 2 * 97_280
    assert memory.parameters_per_device == 216_192


def test_explain_memory_on_v6e(tmp_path: Path) -> None:
    exit_code, stdout, stderr = _explain(tmp_path, STACKED, "--tpu", "v6e")
    assert (exit_code, stderr) == (0, "")
    lines = stdout.splitlines()
    assert lines[0] == (
        "PATH (jax-tpu-embedding on SparseCores): each stack on each of 8 SparseCores (rows x "
        "dim: a SparseCore's rows of the stack)"
    )
    assert lines[3:7] == [
        "stack         tables  rows x dim  arrays          variables a SC  COO a SC   "
        "variables a device  buffers a device",
        "------------  ------  ----------  --------------  --------------  ---------  "
        "------------------  ----------------",
        "1 video_user  2       760 x 16    1 (parameters)  47.5 KiB        2,048 ids  "
        "95.0 KiB            48.1 KiB",
        "2 ads         1       40 x 64     1 (parameters)  10.0 KiB        2,048 ids  "
        "20.0 KiB            48.1 KiB",
    ]
    assert lines[8].startswith("optimizer: not in the proto (a 0.1.0 EmbeddingSpecProto")
    assert lines[10:] == [
        "total: 211.1 KiB a device (4 devices x 2 SparseCores): variables 115.0 KiB, input "
        "buffers 96.1 KiB; 216,192 bytes a device",
        "not counted (so this is a lower bound): activations, the dense model, XLA's working set",
        "",
        "TPU v6e: 32.0 GiB of HBM a device; the stacks take 0.0% of it",
        "fits",
    ]


def test_explain_memory_json(tmp_path: Path) -> None:
    exit_code, stdout, stderr = _explain(tmp_path, STACKED, "--tpu", "v6e", "--format", "json")
    assert (exit_code, stderr) == (0, "")
    document = json.loads(stdout)
    assert {k: document[k] for k in ("engine", "sparse_cores", "devices", "per_device_bytes")} == {
        "engine": "jax",
        "sparse_cores": 8,
        "devices": 4,
        "per_device_bytes": 216_192,
    }
    assert [
        (s["shape"], s["coo_buffer_size_per_device"], s["buffers_per_device_bytes"])
        for s in document["stacks"]
    ] == [([6080, 16], 4096, 49_216), ([320, 64], 4096, 49_216)]
    assert document["tpu"] == {
        "chip": "v6e",
        "hbm_per_device_bytes": 32 << 30,
        "fits": True,
        "share": 216_192 / (32 << 30),
        "warning_percent": 80,
        "per_device_bytes_with_sgd": 216_192,
    }


def test_explain_memory_without_a_tpu_or_on_a_chip_without_sparsecores(tmp_path: Path) -> None:
    _, stdout, _ = _explain(tmp_path, STACKED)
    assert stdout.splitlines()[-1] == (
        "per device: no TPU named (--tpu CHIP or `tpu` in [tool.tpuemb]): a device holds its "
        "SparseCores' share, times the chip's SparseCores per device"
    )
    assert "variables a device" not in stdout
    _, stdout, _ = _explain(tmp_path, STACKED, "--tpu", "v5e")
    assert stdout.splitlines()[-1] == (
        "TPU v5e: cannot run it: TPU v5e has no SparseCores per device known to "
        "jax-tpu-embedding (NUM_SC_PER_DEVICE_MAP); JAX SparseCore does not run on it"
    )
    # 8 SparseCores are no whole number of devices of 3: a spec made for another chip.
    text = STACKED.replace("num_sparsecores: 8", "num_sparsecores: 6")
    _, stdout, _ = _explain(tmp_path, text, "--tpu", "v5p")
    assert stdout.splitlines()[-1].startswith("per device: the stacks' 6 SparseCores are not")


def _limits(max_ids: int) -> str:
    return STACKED.replace("max_ids_per_partition: 256\n", f"max_ids_per_partition: {max_ids}\n")


def test_te601_when_the_buffers_exceed_a_device(tmp_path: Path) -> None:
    exit_code, stdout, stderr, path = check(tmp_path, _limits(100_000_000), "--tpu", "v6e")
    assert (exit_code, stderr) == (1, "")
    assert stdout.replace(str(path), "PATH").splitlines() == [
        "PATH:8:3: TE601 [error] the stacked tables' parameters (no optimizer recorded) and "
        "input buffers take 35.8 GiB on each device (jax-tpu-embedding: 4 devices of 2 "
        "SparseCores): more than the 32.0 GiB of HBM of a v6e device",
        "Found 1 error in 1 file (1 file checked).",
    ]


def test_te602_when_they_take_more_than_80_percent(tmp_path: Path) -> None:
    exit_code, stdout, stderr, path = check(tmp_path, _limits(78_000_000), "--tpu", "v6e")
    assert (exit_code, stderr) == (0, "")
    assert stdout.replace(str(path), "PATH").splitlines() == [
        "PATH:8:3: TE602 [warning] the stacked tables' parameters (no optimizer recorded) and "
        "input buffers take 27.9 GiB on each device (jax-tpu-embedding: 4 devices of 2 "
        "SparseCores): 87% of the 32.0 GiB of HBM of a v6e device, which leaves little for "
        "activations and XLA's working set",
        "Found 1 warning in 1 file (1 file checked).",
    ]


def test_no_memory_rule_without_a_chip_that_runs_it(tmp_path: Path) -> None:
    text = _limits(100_000_000)
    for options in ((), ("--tpu", "v5e")):
        exit_code, stdout, _, _ = check(tmp_path, text, *options)
        assert (exit_code, stdout) == (0, "All checks passed (1 file checked).\n"), options


def test_a_stack_on_no_sparsecore_is_not_sized_nor_said_to_fit(tmp_path: Path) -> None:
    # num_sparsecores 0 or -8 (TE681): explain --memory said "0 B ... fits" (-8 read as 0).
    for cores in ("0", "-8"):
        text = replaced(("num_sparsecores: 8", f"num_sparsecores: {cores}"))
        exit_code, stdout, _ = _explain(tmp_path, text, "--tpu", "v6e")
        assert exit_code == 1  # TE681 said first (issue 38)
        assert 'per device: stack "video_user" has num_sparsecores below 1 (TE681)' in stdout
        assert "fits" not in stdout.splitlines()[-1]
        _, document, _ = _explain(tmp_path, text, "--tpu", "v6e", "--format", "json")
        report = json.loads(document)
        assert report["per_device_bytes"] is None and "fits" not in report["tpu"]


def test_a_coo_buffer_the_library_refuses_is_not_counted_nor_sized(tmp_path: Path) -> None:
    # Issue 36 review: a limit past 32 bits (TypeError) or a COO buffer of INT_MAX elements or
    # more (CHECK abort) allocates nothing; TE601 was sized from it (768 GiB a device).
    for limit in (2**31, 2**31 - 1):
        text = _limits(limit)
        exit_code, stdout, _, _ = check(tmp_path, text, "--tpu", "v5p")
        rules = [line.split(": ")[1].split(" ")[0] for line in stdout.splitlines()[:-1]]
        assert (exit_code, rules) == (1, ["TE671", "TE671"]), stdout
        _, shown, _ = _explain(tmp_path, text, "--tpu", "v5p")
        lines = shown.splitlines()
        assert [line.split()[-1] for line in lines[5:7]] == ["refused", "refused"]
        assert "allocates nothing; not counted below" in shown
        assert "input buffers 0 B" in shown and lines[-1] == "fits"
        _, document, _ = _explain(tmp_path, text, "--tpu", "v5p", "--format", "json")
        stacks = json.loads(document)["stacks"]
        assert [(s["coo_buffer_refused"], s["buffers_per_device_bytes"]) for s in stacks] == [
            (True, 0),
            (True, 0),
        ]


def test_the_memory_rules_say_which_refused_buffers_they_do_not_count() -> None:
    # One stack refused: a device's bytes are the other's, and the rules' words say so. (No
    # v6e spec of two stacks exceeds its HBM with one refused: a buffer below INT_MAX elements
    # is at most 24 GiB; the words are checked on the model.)
    from tpuemb_cli.rules.lib.fit import jax_taken

    text = STACKED.replace("max_ids_per_partition: 256\n", "max_ids_per_partition: 300000000\n", 1)
    memory = model(_spec(text), 2)
    assert [stack.refused(2) for stack in memory.stacks] == [True, False]
    assert memory.buffers_per_device == memory.stacks[1].buffers(2) == 49_216
    assert jax_taken(memory, "X").endswith(
        "(jax-tpu-embedding: 4 devices of 2 SparseCores; the COO buffers the library refuses "
        "(1 stack) not counted)"
    )
