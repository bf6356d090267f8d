"""`tpuemb explain` and `explain --memory` of Keras-RS models, without Keras: each layer's
placements, and the stacks and memory of what its backend's library builds, computed as `compile
--target jax` and the JAX and SparseCore memory models compute them for the layer's spec."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tpuemb_cli.cli import main
from tpuemb_cli.frontends.jax.spec.compiler import compile_jax_spec
from tpuemb_cli.frontends.jax.spec.memory import model as jax_memory
from tpuemb_cli.frontends.jax.spec.named_optimizers import with_optimizers
from tpuemb_cli.frontends.keras.spec.plan import NO_TPU
from tpuemb_cli.keras import specs_from_file
from tpuemb_cli.load import Document
from tpuemb_cli.spec.facts import SpecFacts

DATA = Path(__file__).parent / "data" / "keras-core"
CLEAN = DATA / "clean.keras"
PLACEMENT = DATA / "placement.keras"
MEMBER = f"{CLEAN}!config.json"
V5P = {"global_device_count": 4, "num_sc_per_device": 4, "accelerator": "v5p"}


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_without_a_tpu_the_placements_are_shown_and_the_stacks_said_unknown() -> None:
    result = invoke("explain", str(CLEAN))
    auto = "auto: SparseCores on a TPU that has them (no --tpu: assumed; on CPU the default device)"
    rule = "-" * len(auto)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        f"{MEMBER} (Keras-RS model: 1 DistributedEmbedding layer; backend jax "
        "(jax-tpu-embedding), devices not known (no --tpu))\n"
        "\n"
        "layer clean/distributed_embedding\n"
        f"  table  rows x dim  goes to      why{' ' * (len(auto) - 3)}  features\n"
        f"  -----  ----------  -----------  {rule}  ------------\n"
        f"  users  1,000 x 16  SparseCores  {auto}  friend, user\n"
        f"  items  500 x 8     SparseCores  {auto}  item\n"
        f"  tags   64 x 4      SparseCores  {auto}  tag\n"
        "\n"
        f"  stacks: {NO_TPU}\n"
    )


def test_the_jax_stacks_are_compile_target_jax_s_for_the_layer_s_spec() -> None:
    result = invoke("explain", "--tpu", "v5p-8", str(CLEAN))
    assert (result.exit_code, result.stderr) == (0, "")
    [(path, spec)] = specs_from_file(CLEAN, **V5P)  # type: ignore[arg-type]
    compiled = with_optimizers(compile_jax_spec(spec), spec)
    from tpuemb_cli.frontends.jax.views.spec import explain_jax_spec

    header, lines = explain_jax_spec(Document("x", "binary", "EmbeddingSpecProto", compiled, None))
    shown = "\n".join("  " + line if line else line for line in lines)
    assert path == "clean/distributed_embedding"
    assert "4 devices of v5p, 4 SparseCores each" in result.stdout.splitlines()[0]
    assert "auto on v5p: the JAX layer finds SparseCores" in result.stdout
    assert result.stdout.endswith(shown + "\n")
    assert f"  what jax-tpu-embedding builds ({header.removeprefix('x (')}:" in result.stdout
    # Each table's optimizer, which 0.1.0's proto does not record, comes from the layer.
    assert re.search(r"users +1000 x 16 .* adagrad, lr 0.05 ", result.stdout)


def test_jax_memory_is_the_jax_memory_model_of_the_compiled_stacks() -> None:
    result = invoke("explain", "--memory", "--tpu", "v5p-8", "--format", "json", str(CLEAN))
    assert (result.exit_code, result.stderr) == (0, "")
    document = json.loads(result.stdout)
    [(_, spec)] = specs_from_file(CLEAN, **V5P)  # type: ignore[arg-type]
    memory = jax_memory(with_optimizers(compile_jax_spec(spec), spec), 4)
    [layer] = document["layers"]
    assert (document["engine"], document["backend"], document["devices"]) == ("keras", "jax", 4)
    assert layer["path"] == "clean/distributed_embedding"
    assert layer["memory"]["per_device_bytes"] == memory.per_device_bytes > 0
    assert layer["memory"]["tpu"]["fits"] is True
    assert layer["memory"]["optimizers_known"] is True
    assert [t["on_sparsecore"] for t in layer["tables"]] == [True, True, True]
    text = invoke("explain", "--memory", "--tpu", "v5p-8", str(CLEAN)).stdout
    assert f"{memory.per_device_bytes:,} bytes a device" in text
    assert text.endswith("\nfits\n")


def test_tensorflow_memory_is_the_sparsecore_memory_model() -> None:
    args = ("explain", "--memory", "--tpu", "v5p-8", "--keras-backend", "tensorflow")
    result = invoke(*args, "--format", "json", str(CLEAN))
    assert (result.exit_code, result.stderr) == (0, "")
    [(_, spec)] = specs_from_file(CLEAN, backend="tensorflow", **V5P)  # type: ignore[arg-type]
    memory = SpecFacts(spec).sparsecore_memory
    assert memory is not None
    [layer] = json.loads(result.stdout)["layers"]
    assert layer["memory"]["engine"] == "sparsecore"
    assert layer["memory"]["per_chip_bytes"] == memory.per_chip > 0
    text = invoke(*args, str(CLEAN)).stdout
    assert "(TPUEmbeddingV2 on SparseCores)" in text
    assert f"{memory.per_chip:,} bytes a chip" in text


def test_a_layer_too_large_for_the_chip_does_not_fit(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(DATA / "model", folder)
    config = folder / "config.json"
    # The users table, 1,000 rows of 16, made 2**31 - 1 rows of 64: 512 GiB of parameters
    # and as much of Adagrad's accumulator, over 4 devices.
    text = config.read_text().replace('"vocabulary_size": 1000', '"vocabulary_size": 2147483647')
    config.write_text(text.replace('"embedding_dim": 16', '"embedding_dim": 64'))
    result = invoke("explain", "--memory", "--tpu", "v5p-8", str(config))
    # The fixture's own mistakes said first (exit 1, issue 38); the report as ever.
    assert result.exit_code == 1 and result.stderr.endswith(
        "explained as read, with the errors above\n"
    )
    assert "does not fit: " in result.stdout
    assert "on the default device, not counted here: small" in result.stdout


def test_without_a_tpu_memory_is_said_unknown() -> None:
    result = invoke("explain", "--memory", str(CLEAN))
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.endswith(
        f"layer clean/distributed_embedding: memory not computed: {NO_TPU}\n"
    )
    document = json.loads(invoke("explain", "--memory", "--format", "json", str(CLEAN)).stdout)
    assert document["devices"] is None
    assert document["layers"][0]["memory"] is None
    assert document["layers"][0]["unknown"] == NO_TPU


@pytest.mark.parametrize(
    ("backend", "small", "users"),
    [
        ("jax", "default device", "default device"),
        # TensorFlow on v4 builds TPUEmbedding (v1): the TPU embedding engine takes "auto".
        ("tensorflow", "default device", "the TPU embedding engine"),
    ],
)
def test_placements_per_backend_on_a_chip_without_jax_sparsecores(
    backend: str, small: str, users: str
) -> None:
    result = invoke("explain", "--tpu", "v4-8", "--keras-backend", backend, str(PLACEMENT))
    assert result.exit_code in (0, 1) and result.stderr.endswith(
        ("explained as read, with the errors above\n", "")
    )
    lines = result.stdout.splitlines()
    row: dict[str, str] = {}
    for line in lines:  # the placements' rows, before the library's tables of the same names
        if line.startswith("  ") and len(line.split()) > 3:
            row.setdefault(line.split()[0], line)
    assert small in row["small"]
    assert users in row["users"]
    # A placement the layer refuses puts the table nowhere (TE764 is check's).
    assert "nowhere: refused" in row["genres"]
    assert "placement 'sparse_core': the layer refuses it (TE764)" in row["genres"]
