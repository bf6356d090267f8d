"""Every integer field of a JAX spec and of an EmbeddingSpecProto at 0, -1, 2^31-1 and 2^63-1
(in the text when its type cannot hold it): `check`, `compile --target jax` and `explain --memory`
give findings or exit 2, never a traceback or an internal error, and compile never writes a proto
tpuemb itself refuses."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from google.protobuf import text_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from tpuemb_cli.cli import main
from tpuemb_cli.model.pbcompat import is_repeated
from tpuemb_cli.pb.jax.embedding_spec_pb2 import EmbeddingSpecProto
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec

DATA = Path(__file__).parent / "data" / "jax"
VALUES = (0, -1, 2**31 - 1, 2**63 - 1)
MARKER = 987654321
RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
# Where a field sits: names, and list indexes or map keys.
Place = tuple[Any, ...]


def _spec() -> EmbeddingSpec:
    """The explicit-stacks compile example, with the integer fields it leaves out set too."""
    spec = text_format.Parse(
        (DATA / "compile" / "explicit.spec.textproto").read_text(), EmbeddingSpec()
    )
    spec.tables[0].jax.suggested_coo_buffer_size_per_device = 4096
    spec.tables[0].quantization.num_buckets = 16
    spec.tables[0].quantization.upper = 1.0
    return spec


def _proto() -> EmbeddingSpecProto:
    return text_format.Parse((DATA / "stacked.pbtxt").read_text(), EmbeddingSpecProto())


def number_places(
    message: Message, kinds: Collection[int], at: Place = ()
) -> Iterator[tuple[Place, int]]:
    """Each number of a type in ``kinds`` (FieldDescriptor types) a message holds or could hold
    in its present submessages: (place, type)."""
    descriptor: Any = message.DESCRIPTOR  # the C and Python descriptors' types differ
    for field in descriptor.fields:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            if value_field.type in kinds:
                for key in getattr(message, field.name):
                    yield (*at, field.name, key), value_field.type
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            if is_repeated(field):
                for index, item in enumerate(getattr(message, field.name)):
                    yield from number_places(item, kinds, (*at, field.name, index))
            elif message.HasField(field.name):
                yield from number_places(getattr(message, field.name), kinds, (*at, field.name))
        elif field.type in kinds:
            if is_repeated(field):
                for index in range(len(getattr(message, field.name))):
                    yield (*at, field.name, index), field.type
            else:
                yield (*at, field.name), field.type


def _set(message: Message, place: Place, value: float) -> None:
    *parents, last = place
    target: Any = message
    for part in parents:  # a message's field by name, a list's item or a map's entry by key
        target = getattr(target, part) if isinstance(target, Message) else target[part]
    if isinstance(target, Message):
        setattr(target, last, value)
    else:
        target[last] = value


def _cases(base: Message) -> list[tuple[str, str]]:
    cases = []
    for place, kind in number_places(base, RANGES):
        low, high = RANGES[kind]
        for value in VALUES:
            mutated = type(base)()
            mutated.CopyFrom(base)
            # A value the field's type cannot hold is written in the text only (the loader
            # reports it): a marker the base does not hold, then replaced.
            held = low <= value <= high
            _set(mutated, place, value if held else MARKER)
            text = text_format.MessageToString(mutated)
            if not held:
                assert text.count(f": {MARKER}\n") == 1
                text = text.replace(f": {MARKER}\n", f": {value}\n")
            cases.append((".".join(map(str, place)) + f"={value}", text))
    return cases


SPEC_CASES = _cases(_spec())
PROTO_CASES = _cases(_proto())


def _run(*arguments: str) -> Result:
    result = CliRunner().invoke(main, list(arguments))
    output = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert result.exit_code in (0, 1, 2), (arguments, result.exit_code, output)
    assert result.exception is None or isinstance(result.exception, SystemExit), output
    assert "Traceback" not in output and "internal-error" not in output, output
    assert "(a bug)" not in output, output
    return result


def test_the_sweep_reaches_every_kind_of_field() -> None:
    spec_fields = {name.split("=")[0] for name, _ in SPEC_CASES}
    for expected in (
        "tables.0.vocabulary_size",
        "tables.0.dim",
        "tables.0.jax.max_ids_per_partition",
        "tables.0.jax.suggested_coo_buffer_size_per_device",
        "tables.0.jax.stack_position",
        "tables.0.quantization.num_buckets",
        "features.0.output_shape.0",
        "features.0.input_shape.1",
        "jax.global_device_count",
        "jax.rotation",
        "jax.stack_max_ids_per_partition.shared",
    ):
        assert expected in spec_fields
    proto_fields = {name.split("=")[0] for name, _ in PROTO_CASES}
    for expected in (
        "stacked_table_specs.0.stack_vocab_size",
        "stacked_table_specs.0.num_sparsecores",
        "stacked_table_specs.0.table_specs.1.shard_rotation",
        "stacked_table_specs.0.table_specs.1.feature_specs.0.col_shift",
        "stacked_table_specs.0.table_specs.0.feature_specs.0.output_shape.0",
    ):
        assert expected in proto_fields


@pytest.mark.slow
@pytest.mark.parametrize(("name", "text"), SPEC_CASES, ids=[name for name, _ in SPEC_CASES])
def test_a_jax_spec_with_an_extreme_integer(name: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / "spec.textproto"
    path.write_text("# proto-message: tpuemb.spec.EmbeddingSpec\n" + text)
    checked = _run("check", str(path))
    compiled = tmp_path / "out.pbtxt"
    done = _run("compile", str(path), "--target", "jax", "-o", str(compiled))
    if "[error]" in checked.output:  # compile refuses a spec with errors, and writes nothing
        assert (done.exit_code, compiled.exists()) == (1, False), (name, done.output)
    if done.exit_code == 0:
        # What compile writes, tpuemb itself takes without an error.
        again = _run("check", str(compiled))
        assert again.exit_code == 0, (name, again.output)
        _run("explain", "--memory", "--tpu", "v6e", str(compiled))
    _run("explain", "--memory", str(path))


@pytest.mark.slow
@pytest.mark.parametrize(("name", "text"), PROTO_CASES, ids=[name for name, _ in PROTO_CASES])
def test_an_embedding_spec_proto_with_an_extreme_integer(
    name: str, text: str, tmp_path: Path
) -> None:
    path = tmp_path / "stacked.pbtxt"
    path.write_text(text)
    _run("check", str(path))
    _run("explain", str(path))
    _run("explain", "--memory", str(path))
    _run("explain", "--memory", "--tpu", "v6e", str(path))
    _run("compile", str(path), "--target", "jax")
