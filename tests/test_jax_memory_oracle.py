"""tpuemb's memory model of a JAX EmbeddingSpecProto (tpuemb_cli/frontends/jax/spec/memory.py)
against jax-tpu-embedding itself (`make test-jax`; skipped without the library).

(a) The input buffers: our ``theoretical_max_coo_buffer_size`` and each stack's COO size against
the library's ``compute_theoretical_max_coo_buffer_size`` over generated limits, device counts
and SparseCores per device. (b) The variables: the library creates the stacked tables and slot
variables on CPU devices (``init_embedding_variables``, 1 to 8 devices, 2 and 4 SparseCores a
device) and each one's global shape is the model's stack (SparseCores x rows a SparseCore, padded
dim) and float32; the slots are the ones the model names for the 0.2.0 optimizer type, or, on a
0.1.0 proto that records none or a 0.2.0 one that records CUSTOM (LaProp included), the model
counts the parameters only.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

jte = pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")

from tpuemb_cli.frontends.jax.spec.memory import model, theoretical_max_coo_buffer_size  # noqa: E402
from tpuemb_cli.frontends.jax.spec.stacking import ALIGNMENT  # noqa: E402
from tpuemb_cli.pb.jax.embedding_spec_pb2 import EmbeddingSpecProto  # noqa: E402

ROOT = Path(__file__).parent.parent


def test_the_coo_buffer_is_the_librarys_theoretical_maximum() -> None:
    rng = random.Random(27)
    cases = 0
    for _ in range(400):
        max_ids = rng.choice([1, 7, 8, 9, 64, 255, 256, 1000, rng.randint(1, 100_000)])
        devices = rng.choice([1, 2, 3, 4, 8, 16, 32, 64, 128, 256])
        per_device = rng.choice([2, 4])
        expected = jte.compute_theoretical_max_coo_buffer_size(max_ids, devices, per_device)
        assert theoretical_max_coo_buffer_size(max_ids, devices, per_device) == expected
        # The model's stack with that limit, on that many SparseCores, says the same.
        spec = EmbeddingSpecProto()
        stack = spec.stacked_table_specs.add(
            stack_name="s",
            max_ids_per_partition=max_ids,
            num_sparsecores=devices * per_device,
            stack_embedding_dim=ALIGNMENT,
        )
        stack.table_specs.add(table_name="s", padded_vocab_size=8 * devices * per_device)
        assert model(spec, per_device).stacks[0].coo_size(per_device) == expected
        cases += 1
    assert cases == 400


DEVICES = (1, 2, 4, 8)
SEEDS = range(12)


@pytest.mark.slow
@pytest.mark.parametrize("devices", DEVICES)
def test_the_stacked_variables_are_the_ones_the_library_creates(devices: int) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "tests.jax_variables_probe", str(devices), *map(str, SEEDS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    lines = [json.loads(line) for line in ran.stdout.splitlines() if line.startswith("{")]
    assert [line["seed"] for line in lines] == list(SEEDS)
    for line in lines:
        spec = EmbeddingSpecProto.FromString(bytes.fromhex(line["proto"]))
        cores = line["cores"]
        memory = model(spec, cores)
        assert memory.devices == devices
        created = line["variables"]
        assert sorted(created) == sorted(stack.name for stack in memory.stacks)
        for stack in memory.stacks:
            arrays = created[stack.name]
            shape = [stack.rows_per_sparse_core * devices * cores, stack.width]
            assert shape == [stack.rows, stack.width]  # the stack's own size
            assert all(found == [shape, "float32"] for found in arrays), (line["seed"], stack)
            if stack.optimizer not in ("", "CUSTOM"):  # 0.2.0: the recorded optimizer's slots
                assert len(arrays) == len(stack.arrays), (line["seed"], stack)
            else:
                # 0.1.0 records no optimizer, and 0.2.0 records a CUSTOM one (its own, or LaProp,
                # which its proto has no type for) without its slots: the parameters only are
                # counted, fewer arrays than the library may create.
                assert stack.arrays == ("parameters",)
                assert len(arrays) >= 1
            assert stack.variables(cores) * devices == stack.rows * stack.width * 4 * len(
                stack.arrays
            )
