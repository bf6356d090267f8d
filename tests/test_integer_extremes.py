"""Every integer a document can hold, at its extremes: no command's work may grow with a number
written in the document (a 300-byte spec with `sparse_cores_per_chip: 2147483647` once spun in a
search as long as that number), and none may end in a traceback.

Each integer field of the spec schema (found by walking EmbeddingSpec's descriptor: tables,
features, topology, schedules, quantization, the optimizer, the SparseCore limits) and of a
TPUEmbeddingConfiguration text config (walking its descriptor, every nested message) is set, one
at a time, in an otherwise valid document, to 0, -1, 2^31-1 and 2^63-1; `check`, `compile`
(`--target sparsecore` too, for a spec), `explain` and `explain --memory` then each run in
process -- and, on a JAX spec (a `jax` section), `check` and `compile --target jax` -- and
must finish within a second with exit code 0 or 1 (or 2 with an error message). Each case takes
a fraction of a second (the whole sweep, about 200 documents, a few seconds), so all of it is in
`make test`.
"""

from __future__ import annotations

import copy
import resource
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from google.protobuf import text_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from tpuemb_cli.cli import main
from tpuemb_cli.model.pbcompat import is_repeated
from tpuemb_cli.pb.spec.embedding_spec_pb2 import EmbeddingSpec
from tpuemb_cli.pb.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration

VALUES = (0, -1, 2**31 - 1, 2**63 - 1)
BUDGET = 1.0  # seconds a command may take
_INTEGERS = {
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_INT64,
    FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_UINT64,
    FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED32,
    FieldDescriptor.TYPE_FIXED64,
    FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_SFIXED64,
    FieldDescriptor.TYPE_ENUM,  # written as a number, an enum is an integer too
}

# A SparseCore spec with every message the schema has: the sweep sets one integer in it at a time.
SPEC: dict[str, Any] = {
    "optimizer": {
        "adagrad": {"initial_accumulator_value": 0.1},
        "learning_rate": {"constant": 0.1},
    },
    "schedules": [{"name": "decay", "tag": 0}],
    "tables": [
        {
            "name": "video",
            "vocabulary_size": 1000,
            "dim": 16,
            "optimizer": {"sgd": {}, "learning_rate": {"schedule": "decay"}},
            "quantization": {"num_buckets": 4, "lower": -1.0, "upper": 1.0},
        },
        {"name": "user", "vocabulary_size": 7, "dim": 8},
    ],
    "features": [
        {"name": "watched", "table": "video", "output_shape": [16], "input_shape": [16, 1]},
        {"name": "who", "table": "user", "max_sequence_length": 2, "output_shape": [16, 2]},
    ],
    "topology": {
        "num_hosts": 2,
        "cores_per_host": 4,
        "num_cores_per_replica": 1,
        "per_replica_batch_size": 16,
        "accelerator": "v5p",
        "sparse_cores_per_chip": 4,
    },
    "sparse_core": {
        "max_ids_per_chip_per_sample": 64,
        "max_ids_per_table": {"user_video": 256},
        "max_unique_ids_per_table": {"user_video": 256},
    },
}

# A JAX spec (a `jax` section, as spec_from_jax writes it) with every message the JAX part of the
# schema has -- a stack in an order of its own, its limits, a rotation, a table alone, a shared
# table -- for `compile --target jax`.
JAX_SPEC: dict[str, Any] = {
    "tables": [
        {
            "name": "video",
            "vocabulary_size": 1000,
            "dim": 16,
            "combiner": "sum",
            "jax": {
                "optimizer": {
                    "type": "AdagradOptimizerSpec",
                    "learning_rate": {"constant": 0.1},
                    "settings": {"initial_accumulator_value": 0.1},
                },
                "stack": "s",
                "stack_position": 1,
            },
        },
        {
            "name": "user",
            "vocabulary_size": 7,
            "dim": 12,
            "combiner": "sum",
            "jax": {
                "optimizer": {
                    "type": "AdagradOptimizerSpec",
                    "learning_rate": {"constant": 0.1},
                    "settings": {"initial_accumulator_value": 0.1},
                },
                "stack": "s",
                "stack_position": 0,
            },
        },
        {
            "name": "country",
            "vocabulary_size": 300,
            "dim": 8,
            "combiner": "mean",
            # Alone: a stack would drop it (jax-stacking-drops-setting).
            "quantization": {"num_buckets": 4, "lower": -1.0, "upper": 1.0},
            "jax": {
                "optimizer": {"type": "SGDOptimizerSpec"},
                "max_ids_per_partition": 64,
                "max_unique_ids_per_partition": 32,
                "suggested_coo_buffer_size_per_device": 1024,
            },
        },
    ],
    "features": [
        {"name": "watched", "table": "video", "input_shape": [64, 1], "output_shape": [64, 16]},
        {"name": "who", "table": "user", "input_shape": [64, 2], "output_shape": [64, 12]},
        {"name": "where", "table": "country", "input_shape": [64, 1], "output_shape": [64, 8]},
        {"name": "seen", "table": "video", "input_shape": [32, 1], "output_shape": [32, 16]},
    ],
    "jax": {
        "global_device_count": 4,
        "num_sc_per_device": 4,
        "rotation": 1,
        "stack_max_ids_per_partition": {"s": 512},
        "stack_max_unique_ids_per_partition": {"s": 128},
    },
}

CONFIG = """\
table_descriptor {
  name: "video"
  vocabulary_size: 1000
  dimension: 16
  optimization_parameters {
    adagrad {}
    learning_rate { dynamic { tag: 0 } }
    gradient_accumulation_status: ENABLED
  }
}
mode: TRAINING
num_hosts: 2
num_tensor_cores: 8
sharding_strategy: DIV_DEFAULT
feature_descriptor { name: "watched" table_id: 0 input_shape: 16 }
spmd_sharding { enabled: true num_cores_per_replica: 2 }
"""

Path_ = tuple[str | int, ...]


def _integer_fields(
    descriptor: Any,  # a Descriptor (of either protobuf implementation)
    prefix: tuple[FieldDescriptor, ...] = (),
    seen: frozenset[str] = frozenset(),
) -> Iterator[tuple[FieldDescriptor, ...]]:
    """Every integer field under ``descriptor``, as the chain of fields that leads to it; a
    message type is not entered again inside itself."""
    if descriptor.full_name in seen:
        return
    inside = seen | {descriptor.full_name}
    for field in descriptor.fields:
        chain = (*prefix, field)
        if field.type in _INTEGERS:
            yield chain
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            yield from _integer_fields(field.message_type, chain, inside)


# -- specs: YAML ----------------------------------------------------------------------------------


def _is_map(field: FieldDescriptor) -> bool:
    entry = field.message_type
    return entry is not None and bool(entry.GetOptions().map_entry)


def _spec_cases(base: dict[str, Any]) -> list[tuple[str, Path_]]:
    """(label, path in ``base``) of every integer field of the spec schema."""
    cases = []
    for chain in _integer_fields(EmbeddingSpec.DESCRIPTOR):
        path: list[str | int] = []
        node: Any = base
        for field in chain:
            if isinstance(node, dict) and _is_map(field):
                # A map's value: the key (of the base spec; "s" where it has none) is the last
                # step.
                path += [field.name, next(iter(node.get(field.name) or {"s": 0}))]
                break
            path.append(field.name)
            if is_repeated(field):
                path.append(0)
            node = node.get(field.name, {}) if isinstance(node, dict) else {}
            if isinstance(node, list):
                node = node[0] if node else {}
        cases.append((".".join(str(step) for step in path), tuple(path)))
    return cases


def _set(document: dict[str, Any], path: Path_, value: int) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    node: Any = changed
    for step, following in pairwise(path):
        if isinstance(step, int):
            while len(node) <= step:
                node.append({})
            node = node[step]
        else:
            default: Any = [] if isinstance(following, int) else {}
            node = node.setdefault(step, default)
    last = path[-1]
    if isinstance(last, int):
        node[:] = [value]  # a repeated integer: the list is the one value
    else:
        node[last] = value
    return changed


SPEC_CASES = _spec_cases(SPEC)
SPEC_IDS = [label for label, _ in SPEC_CASES]
SPEC_PATHS = [path for _, path in SPEC_CASES]
JAX_CASES = _spec_cases(JAX_SPEC)
JAX_IDS = [label for label, _ in JAX_CASES]
JAX_PATHS = [path for _, path in JAX_CASES]
SPEC_COMMANDS = (
    ("check",),
    ("compile",),
    ("compile", "--target", "sparsecore"),
    ("explain",),
    ("explain", "--memory"),
)
JAX_COMMANDS = (
    ("check",),
    ("compile", "--target", "jax"),
    ("compile", "--target", "jax", "--to", "binary"),
)


# -- configs: text format -------------------------------------------------------------------------


def _config_cases() -> list[tuple[str, tuple[FieldDescriptor, ...]]]:
    return [
        (".".join(field.name for field in chain), chain)
        for chain in _integer_fields(TPUEmbeddingConfiguration.DESCRIPTOR)
    ]


def _text(
    message: Message, chain: tuple[FieldDescriptor, ...], value: int, indent: str = ""
) -> str:
    """``message`` in text format with the field at the end of ``chain`` written as ``value`` (any
    integer: the protobuf classes would refuse one out of the field's range), the messages on
    the way created where absent, and a oneof's other member dropped."""
    head, rest = chain[0], chain[1:]
    lines = []
    for field, current in message.ListFields():
        if field.number == head.number:
            continue
        if head.containing_oneof is not None and field.containing_oneof is head.containing_oneof:
            continue
        part = type(message)()
        if is_repeated(field):
            getattr(part, field.name).extend(current)
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            getattr(part, field.name).CopyFrom(current)
        else:
            setattr(part, field.name, current)
        lines += text_format.MessageToString(part).splitlines()
    if not rest:
        lines.append(f"{head.name}: {value}")  # a repeated integer: this one value
    else:
        others: list[Message] = []
        if is_repeated(head):
            existing = list(getattr(message, head.name))
            inner = existing[0] if existing else getattr(type(message)(), head.name).add()
            others = existing[1:]
        else:
            inner = getattr(message, head.name)
        lines += [f"{head.name} {{", *_text(inner, rest, value, "  ").splitlines(), "}"]
        for other in others:
            body = text_format.MessageToString(other).splitlines()
            lines += [f"{head.name} {{", *("  " + line for line in body), "}"]
    return "".join(f"{indent}{line}\n" for line in lines if line.strip())


CONFIG_CASES = _config_cases()
CONFIG_IDS = [label for label, _ in CONFIG_CASES]
CONFIG_CHAINS = [chain for _, chain in CONFIG_CASES]
CONFIG_COMMANDS = (("check",), ("compile",), ("explain",), ("explain", "--memory", "--tpu", "v5p"))


# -- running --------------------------------------------------------------------------------------


class _TooLong(Exception):
    pass


@contextmanager
def _bounded() -> Iterator[None]:
    """A safety net for a command that would not end: an alarm after 20 s, and no more than
    2 GiB of address space above what the process has (a list as long as a number in the
    document fails fast instead of filling the machine's memory)."""

    def expired(signum: int, frame: FrameType | None) -> None:
        raise _TooLong

    previous = signal.signal(signal.SIGALRM, expired)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    size = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
    limit = size + (2 << 30)
    resource.setrlimit(resource.RLIMIT_AS, (limit if hard < 0 else min(limit, hard), hard))
    signal.alarm(20)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _run(path: Path, command: tuple[str, ...]) -> None:
    started = time.perf_counter()
    with _bounded():
        result = CliRunner().invoke(main, [*command, str(path)])
    took = time.perf_counter() - started
    shown = f"{' '.join(command)} {path.name}: exit {result.exit_code}, {took:.2f} s"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{shown}: raised {result.exception!r}") from result.exception
    output = result.stdout + result.stderr
    assert "Traceback" not in output, shown
    assert result.exit_code in (0, 1, 2), shown
    if result.exit_code == 2:
        assert result.stderr.startswith("tpuemb: error: "), (shown, result.stderr)
    assert took < BUDGET, shown


def _spec_sweep(
    tmp_path: Path,
    values: tuple[int, ...],
    path: Path_,
    base: dict[str, Any] = SPEC,
    commands: tuple[tuple[str, ...], ...] = SPEC_COMMANDS,
) -> None:
    for value in values:
        file = tmp_path / "extreme.spec.yaml"
        file.write_text(yaml.safe_dump(_set(base, path, value), sort_keys=False))
        for command in commands:
            _run(file, command)


def _config_sweep(
    tmp_path: Path, values: tuple[int, ...], chain: tuple[FieldDescriptor, ...]
) -> None:
    base = text_format.Parse(CONFIG, TPUEmbeddingConfiguration())
    for value in values:
        file = tmp_path / "extreme.pbtxt"
        file.write_text(_text(base, chain, value))
        for command in CONFIG_COMMANDS:
            _run(file, command)


def test_the_bases_are_clean(tmp_path: Path) -> None:
    spec = tmp_path / "base.spec.yaml"
    spec.write_text(yaml.safe_dump(SPEC, sort_keys=False))
    config = tmp_path / "base.pbtxt"
    config.write_text(CONFIG)
    jax = tmp_path / "jax.spec.yaml"
    jax.write_text(yaml.safe_dump(JAX_SPEC, sort_keys=False))
    for file in (spec, config, jax):
        result = CliRunner().invoke(main, ["check", str(file)])
        assert result.exit_code == 0, result.output
    # The JAX base compiles: the sweep reaches the library's stacking, not a refusal.
    result = CliRunner().invoke(main, ["compile", "--target", "jax", str(jax)])
    assert (result.exit_code, result.stderr) == (0, "")
    assert 'stack_name: "s"' in result.stdout and "shard_rotation: 1" in result.stdout


def test_the_walk_reaches_every_part_of_the_spec() -> None:
    tops = {path[0] for _, path in SPEC_CASES}
    assert tops == {"schedules", "tables", "features", "topology", "sparse_core", "jax"}
    # The optimizer has no integer field (its settings are floats and booleans): were one
    # added, the walk would find it and the top-level set above would change.
    optimizer = EmbeddingSpec.DESCRIPTOR.fields_by_name["optimizer"].message_type
    assert not list(_integer_fields(optimizer))
    assert len(SPEC_CASES) >= 15 and len(CONFIG_CASES) >= 15


@pytest.mark.parametrize("path", SPEC_PATHS, ids=SPEC_IDS)
@pytest.mark.slow
def test_spec_integers_at_the_extremes(tmp_path: Path, path: Path_) -> None:
    _spec_sweep(tmp_path, VALUES, path)


@pytest.mark.parametrize("path", JAX_PATHS, ids=JAX_IDS)
@pytest.mark.slow
def test_jax_spec_integers_at_the_extremes(tmp_path: Path, path: Path_) -> None:
    _spec_sweep(tmp_path, VALUES, path, JAX_SPEC, JAX_COMMANDS)


@pytest.mark.parametrize("chain", CONFIG_CHAINS, ids=CONFIG_IDS)
@pytest.mark.slow
def test_config_integers_at_the_extremes(
    tmp_path: Path, chain: tuple[FieldDescriptor, ...]
) -> None:
    _config_sweep(tmp_path, VALUES, chain)


def test_diff_of_a_table_padded_to_the_most_hosts(tmp_path: Path) -> None:
    # A vocabulary equal to the host count may be any row count up to it (TensorFlow pads to
    # the hosts): 2^31 - 1 of them were once listed one by one.
    hosts = 2**31 - 1
    old = tmp_path / "old.pbtxt"
    most = CONFIG.replace("num_hosts: 2", f"num_hosts: {hosts}").replace("1000", str(hosts))
    old.write_text(most)
    new = tmp_path / "new.pbtxt"
    new.write_text(CONFIG.replace("1000", "999"))
    for pair in ((old, new), (new, old), (old, old)):
        started = time.perf_counter()
        with _bounded():
            result = CliRunner().invoke(main, ["diff", str(pair[0]), str(pair[1])])
        assert result.exception is None or isinstance(result.exception, SystemExit), result
        assert result.exit_code in (0, 1), result.output
        assert time.perf_counter() - started < BUDGET
