"""The memory model (tpuemb_cli.model.memory) and the chip table (model.chips), without TensorFlow
(tests/test_tf_memory.py compares the model with TensorFlow's shape functions)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tpuemb_cli.model import chips, memory
from tpuemb_cli.model.program_shape import Malformed, inputs_and_outputs
from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import OptimizationParameters
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

DOCS = Path(__file__).parent.parent / "docs" / "memory.md"


def _params(algorithm: str, status: int = 0) -> OptimizationParameters:
    params = OptimizationParameters(gradient_accumulation_status=status)  # type: ignore[arg-type]
    getattr(params, algorithm).SetInParent()
    return params


def test_every_algorithm_of_the_proto_has_its_slots() -> None:
    oneof = OptimizationParameters.DESCRIPTOR.oneofs_by_name["parameters"]
    names = {field.name for field in oneof.fields} - {"user_defined_program"}
    assert names == set(memory.SLOTS)


@pytest.mark.parametrize(
    ("algorithm", "status", "arrays"),
    [
        ("adam", 0, ("parameters", "momenta", "velocities", "gradient_accumulators")),
        ("adam", 1, ("parameters", "momenta", "velocities", "gradient_accumulators")),
        ("adam", 2, ("parameters", "momenta", "velocities")),
        ("stochastic_gradient_descent", 2, ("parameters",)),
        ("centered_rms_prop", 0, ("parameters", "ms", "mom", "mg", "gradient_accumulators")),
    ],
)
def test_state_arrays(algorithm: str, status: int, arrays: tuple[str, ...]) -> None:
    assert memory.state_arrays(_params(algorithm, status)) == arrays


def test_refusals_say_why() -> None:
    with pytest.raises(memory.NotAllocated, match=r"^it has no optimization algorithm$"):
        memory.state_arrays(OptimizationParameters())
    with pytest.raises(memory.NotAllocated, match=r"^gradient_accumulation_status 3 is not one"):
        memory.state_arrays(_params("adagrad", 3))


def _module(inputs: int, outputs: int) -> bytes:
    """An HloModuleProto's bytes: host_program_shape (4) with parameters (1) and result (2)
    holding tuple_shapes (4), each shape an empty message."""

    def field(number: int, payload: bytes) -> bytes:
        return bytes([number << 3 | 2, len(payload)]) + payload

    result = field(2, b"".join(field(4, b"") for _ in range(outputs)))
    shape = b"".join(field(1, b"") for _ in range(inputs)) + result
    return field(4, shape)


@pytest.mark.parametrize(
    ("inputs", "outputs", "status", "count"),
    [(2, 1, 2, 1), (3, 2, 2, 2), (4, 2, 0, 3), (9, 8, 2, 8)],
)
def test_user_defined_program_slots(inputs: int, outputs: int, status: int, count: int) -> None:
    params = OptimizationParameters(gradient_accumulation_status=status)  # type: ignore[arg-type]
    params.user_defined_program.program.ParseFromString(_module(inputs, outputs))
    assert len(memory.state_arrays(params)) == count


@pytest.mark.parametrize(
    ("inputs", "outputs", "status", "message"),
    [
        (9, 8, 0, "user_defined_program with 7 slots has no room for gradient accumulation"),
        (1, 0, 2, "its user-defined program has 1 inputs and 0 outputs"),
        (5, 1, 2, "its user-defined program has 5 inputs and 1 outputs"),
    ],
)
def test_user_defined_program_refused(inputs: int, outputs: int, status: int, message: str) -> None:
    params = OptimizationParameters(gradient_accumulation_status=status)  # type: ignore[arg-type]
    params.user_defined_program.program.ParseFromString(_module(inputs, outputs))
    with pytest.raises(memory.NotAllocated, match=re.escape(message)):
        memory.state_arrays(params)


def test_program_shape_reader_merges_repeated_messages_and_refuses_garbage() -> None:
    assert inputs_and_outputs(_module(2, 1) + _module(1, 1)) == (3, 2)
    with pytest.raises(Malformed):
        inputs_and_outputs(b"\x22\x05ab")


@pytest.mark.parametrize(
    ("vocabulary", "shards", "rows"),
    [(10, 3, [4, 3, 3]), (9, 3, [3, 3, 3]), (7, 7, [1] * 7), (1001, 8, [126] + [125] * 7)],
)
def test_rows_per_shard(vocabulary: int, shards: int, rows: list[int]) -> None:
    assert [memory.rows_per_shard(vocabulary, s, shards) for s in range(shards)] == rows


def _config(*tables: tuple[str, int, int, str, int], cores: int = 4) -> TPUEmbeddingConfiguration:
    config = TPUEmbeddingConfiguration(num_tensor_cores=cores)
    for name, vocabulary, dimension, algorithm, status in tables:
        table = config.table_descriptor.add(
            name=name, vocabulary_size=vocabulary, dimension=dimension
        )
        table.optimization_parameters.CopyFrom(_params(algorithm, status))
    return config


def test_model_per_table_and_per_core() -> None:
    config = _config(("a", 10, 8, "adam", 0), ("b", 4, 2, "stochastic_gradient_descent", 2))
    found = memory.model(config)
    assert found == memory.Memory(
        4,
        (
            memory.TableMemory(
                0,
                "a",
                3,
                8,
                ("parameters", "momenta", "velocities", "gradient_accumulators"),
                3 * 8 * 4 * 4,
            ),
            memory.TableMemory(1, "b", 1, 2, ("parameters",), 1 * 2 * 1 * 4),
        ),
        (),
    )
    assert found.per_core == 392


def test_model_refuses_what_tensorflow_refuses() -> None:
    config = _config(("empty", 0, 8, "adagrad", 0), ("none", 10, 8, "adagrad", 0))
    config.table_descriptor[1].ClearField("optimization_parameters")
    found = memory.model(config)
    assert found.tables == ()
    assert found.refused == (
        memory.Refused(0, "empty", "vocabulary_size 0 has no rows"),
        memory.Refused(1, "none", "it has no optimization algorithm"),
    )


def test_a_table_with_fewer_rows_than_cores_has_one_row_on_the_first() -> None:
    found = memory.model(_config(("small", 3, 8, "adagrad", 2), cores=4))
    assert [(t.rows, t.shard_bytes) for t in found.tables] == [(1, 64)]


def test_every_figure_has_a_source_and_docs_show_the_table() -> None:
    text = DOCS.read_text()
    for chip in chips.CHIPS:
        for figure in (
            chip.hbm_bytes,
            chip.tensor_cores,
            chip.sparse_cores,
            chip.megacore,
            chip.sparse_cores_per_device,
        ):
            assert figure.source
            assert figure.value is None or figure.source.startswith("https://")
        row = next(line for line in text.splitlines() if line.startswith(f"| {chip.name} |"))
        hbm = chip.hbm_bytes.value
        shown = "not known" if hbm is None else memory_text(hbm)
        assert f"| {shown} |" in row, row


def memory_text(value: int) -> str:
    return f"{value // chips.GIB} GiB" if value % chips.GIB == 0 else f"{value // chips.GB} GB"
