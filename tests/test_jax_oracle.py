"""tpuemb's JAX SparseCore support against jax-tpu-embedding itself (`make test-jax`; skipped where
the library is not installed -- the project never needs JAX).

(a) Our mirror of embedding_spec.proto against the installed library's generated module, field for
field. (b) For generated cases -- 1 to 12 tables, dimensions 1 to 300, every optimizer the library
has, shared tables, limits, 1 to 256 devices, 2 and 4 SparseCores a device, tables alone,
auto-stacked and stacked by hand -- the library stacks the tables on CPU
(`prepare_feature_specs_for_training`) and writes its `EmbeddingSpecProto`
(`create_proto_from_feature_specs`); tpuemb reads it as text, JSON and binary without being told
the type, raises nothing on it (no false positive of the JAX rules), and catches each rule's mistake
made on purpose in a copy.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

jte = pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")

from google.protobuf import descriptor_pb2, json_format, text_format  # noqa: E402
from jax_tpu_embedding.sparsecore.lib.nn import embedding_spec, table_stacking  # noqa: E402
from jax_tpu_embedding.sparsecore.lib.proto import embedding_spec_pb2 as theirs_pb2  # noqa: E402

from tpuemb_cli.api import lint_file  # noqa: E402
from tpuemb_cli.pb.jax import embedding_spec_pb2 as ours_pb2  # noqa: E402

VERSION = importlib.metadata.version("jax-tpu-embedding")
# What 0.2.0 added to the proto: a 0.1.0 library lacks exactly these.
ADDED_IN_0_2_0 = {
    "OptimizerSpecProto",
    "TableSpecProto.combiner",
    "TableSpecProto.optimizer",
    "StackedTableSpecProto.activation_mem_bytes_limit",
}


def _create_proto(features: Any, devices: int, cores: int) -> Any:
    """`create_proto_from_feature_specs`: in embedding.py in 0.1.0, in embedding_proto_utils.py
    from 0.2.0."""
    for module in ("embedding_proto_utils", "embedding"):
        try:
            found = importlib.import_module(f"jax_tpu_embedding.sparsecore.lib.nn.{module}")
        except ImportError:
            continue
        if hasattr(found, "create_proto_from_feature_specs"):
            return found.create_proto_from_feature_specs(features, devices, cores)
    raise AssertionError("no create_proto_from_feature_specs in the library")


# (a) The descriptor.


def _file(module: Any) -> descriptor_pb2.FileDescriptorProto:
    proto = descriptor_pb2.FileDescriptorProto()
    module.DESCRIPTOR.CopyToProto(proto)
    return proto


def _elements(proto: descriptor_pb2.FileDescriptorProto, package: str) -> dict[str, str]:
    """Every message, enum and field by its name in the file: its facts as text, the package
    written as PKG."""

    def facts(message: Any) -> str:
        copy = type(message)()
        copy.CopyFrom(message)
        for name in ("field", "nested_type", "enum_type", "oneof_decl"):
            if name in copy.DESCRIPTOR.fields_by_name:
                copy.ClearField(name)  # listed on their own
        return text_format.MessageToString(copy).replace(package, "PKG")

    found: dict[str, str] = {}

    def walk(message: descriptor_pb2.DescriptorProto, prefix: str) -> None:
        name = f"{prefix}{message.name}"
        found[name] = facts(message)
        for field in message.field:
            found[f"{name}.{field.name}"] = facts(field)
        for oneof in message.oneof_decl:
            found[f"{name}.{oneof.name}"] = facts(oneof)
        for nested in message.nested_type:
            walk(nested, f"{name}.")
        for enum in message.enum_type:
            found[f"{name}.{enum.name}"] = str(enum)

    for message in proto.message_type:
        walk(message, "")
    return found


def _addition(name: str) -> str:
    """The 0.2.0 addition an element of ours belongs to: OptimizerSpecProto's own elements are
    it; a proto3 `optional` field's synthetic oneof (`_name`) is the field."""
    if name.startswith("OptimizerSpecProto"):
        return "OptimizerSpecProto"
    message, _, element = name.rpartition(".")
    return f"{message}.{element[1:]}" if element.startswith("_") else name


def test_the_mirror_is_the_librarys_proto_field_for_field() -> None:
    ours, theirs = _file(ours_pb2), _file(theirs_pb2)
    print(f"jax-tpu-embedding {VERSION}: {theirs.name}, package {theirs.package}")
    assert (ours.syntax, ours.options) == (theirs.syntax, theirs.options)
    mine, library = _elements(ours, ours.package), _elements(theirs, theirs.package)
    for name, facts in library.items():
        assert mine.get(name) == facts, name
    extra = {_addition(name) for name in mine if name not in library}
    # Ours mirrors 0.2.0: an older library lacks what 0.2.0 added, and nothing else.
    if VERSION.startswith("0.1."):
        assert extra == ADDED_IN_0_2_0
    else:
        assert not extra
    # Declaration order, too.
    assert [m.name for m in theirs.message_type] == [
        m.name for m in ours.message_type if m.name in {t.name for t in theirs.message_type}
    ]


# (b) Generated cases.


def _optimizers() -> list[Any]:
    """One of each optimizer the library has (a custom one needs a user's update function)."""
    made = []
    for name in sorted(dir(embedding_spec)):
        if not name.endswith("OptimizerSpec") or name in ("OptimizerSpec", "CustomOptimizerSpec"):
            continue
        made.append(getattr(embedding_spec, name)(learning_rate=0.1))
    return made


def _initializer(key: Any, shape: Any, dtype: Any = None) -> Any:
    import jax.numpy as jnp

    return jnp.zeros(shape)


class Case:
    """One generated setup: its tables and features, devices, SparseCores and stacking."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        self.seed = seed
        self.devices = rng.choice([1, 2, 4, 8, 16, 32, 64, 128, 256])
        self.cores = (2, 4)[seed % 2]
        self.stacking = ("alone", "auto", "explicit")[seed % 3]
        optimizers = _optimizers()
        total = self.devices * self.cores
        self.tables = []
        # One optimizer and combiner for most cases, so that the stacking has tables to stack.
        shared = rng.choice(optimizers)
        for index in range(rng.randint(1, 12)):
            optimizer = shared if rng.random() < 0.7 else optimizers[index % len(optimizers)]
            self.tables.append(
                embedding_spec.TableSpec(
                    name=f"t{index}",
                    vocabulary_size=rng.choice([1, 7, 100, 1000, rng.randint(1, 100_000)]),
                    embedding_dim=rng.choice([1, 8, 12, 16, 64, rng.randint(1, 300)]),
                    initializer=_initializer,
                    optimizer=optimizer,
                    combiner=rng.choice(["sum", "sum", "mean"]),
                    max_ids_per_partition=rng.choice([64, 256, 1024]),
                    max_unique_ids_per_partition=rng.choice([32, 64]),
                )
            )
        self.features = []
        for index, table in enumerate(self.tables):
            # Some tables are looked up by two features (shared tables).
            for copy in range(2 if rng.random() < 0.25 else 1):
                batch = total * rng.randint(1, 8)
                ids = rng.randint(1, 4)
                self.features.append(
                    embedding_spec.FeatureSpec(
                        name=f"f{index}_{copy}",
                        table_spec=table,
                        input_shape=[batch, ids],
                        output_shape=[batch, table.embedding_dim],
                    )
                )
        self.rng = rng

    def stack(self) -> Any:
        """The library's proto for this case, after its stacking."""
        if self.stacking == "auto":
            jte.auto_stack_tables(self.features, self.devices, self.cores)
        elif self.stacking == "explicit":
            first = self.tables[0]
            group = [
                t.name
                for t in self.tables
                if t.optimizer is first.optimizer and t.combiner == first.combiner
            ]
            table_stacking.stack_tables(self.features, group, self.devices, self.cores)
        jte.prepare_feature_specs_for_training(self.features, self.devices, self.cores)
        return _create_proto(self.features, self.devices, self.cores)


CASES = range(42)


def _codes(path: Path) -> list[str]:
    return sorted(finding.rule for finding in lint_file(path, isolated=True))


def _written(tmp_path: Path, proto: Any) -> dict[str, Path]:
    files = {
        "spec.pbtxt": text_format.MessageToString(proto).encode(),
        "spec.json": json_format.MessageToJson(proto).encode(),
        "spec.binpb": proto.SerializeToString(),
    }
    written = {}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        written[name] = tmp_path / name
    return written


# Each rule's mistake, made in a copy of the library's proto: the code it must raise, and the
# change (False: this case has nothing to change that way).
Corruption = tuple[str, Callable[[Any], bool]]


def _stack(spec: Any) -> Any:
    return spec.stacked_table_specs[0]


def _table(spec: Any) -> Any:
    return _stack(spec).table_specs[0]


def _feature(spec: Any) -> Any:
    return _table(spec).feature_specs[0]


def _add(target: Any, field: str, delta: int) -> bool:
    setattr(target, field, getattr(target, field) + delta)
    return True


def _limit_below_batch(spec: Any) -> bool:
    """A feature carrying more ids than the stack's limit lets through."""
    stack = _stack(spec)
    cores = stack.num_sparsecores
    _feature(spec).input_shape[:] = [cores * cores * (stack.max_ids_per_partition + 1), 1]
    return True


def _wider_output(spec: Any) -> bool:
    shape = _feature(spec).output_shape
    shape[-1] += 1
    return True


def _stack_twice(spec: Any) -> bool:
    """The first stack a second time: its name and its tables' names again."""
    spec.stacked_table_specs.add().CopyFrom(_stack(spec))
    return True


CORRUPTIONS: list[Corruption] = [
    ("TE681", lambda spec: _add(_stack(spec), "num_sparsecores", -_stack(spec).num_sparsecores)),
    ("TE682", lambda spec: _add(_stack(spec), "stack_vocab_size", 8)),
    ("TE683", lambda spec: _add(_table(spec), "padded_vocab_size", 1)),
    ("TE684", lambda spec: _add(_table(spec), "padded_embedding_dim", 8)),
    ("TE685", lambda spec: _add(_table(spec), "shard_rotation", _stack(spec).num_sparsecores)),
    ("TE686", lambda spec: _add(_feature(spec), "col_shift", 1)),
    ("TE687", lambda spec: _add(_stack(spec), "max_ids_per_partition", -(10**9))),
    (
        "TE688",
        lambda spec: _add(
            _stack(spec),
            "max_unique_ids_per_partition",
            _stack(spec).max_ids_per_partition,
        ),
    ),
    ("TE689", _limit_below_batch),
    ("TE690", _wider_output),
    ("TE697", _stack_twice),
]


@pytest.mark.slow
@pytest.mark.parametrize("seed", CASES)
def test_the_librarys_proto_reads_clean_and_each_mistake_is_caught(
    seed: int, tmp_path: Path
) -> None:
    case = Case(seed)
    proto = case.stack()
    assert isinstance(proto, theirs_pb2.EmbeddingSpecProto)
    ours = ours_pb2.EmbeddingSpecProto.FromString(proto.SerializeToString())
    # Deterministic: 0.2.0's proto has maps (an optimizer's parameters), whose entries a
    # parsed message may serialize in another order.
    assert ours.SerializeToString(deterministic=True) == proto.SerializeToString(deterministic=True)
    # No false positive, in every encoding, recognised without --type.
    for path in _written(tmp_path, proto).values():
        assert _codes(path) == [], (path.name, text_format.MessageToString(proto))
    # Each mistake (by case, in turn) is caught where it was made.
    code, corrupt = CORRUPTIONS[seed % len(CORRUPTIONS)]
    broken = ours_pb2.EmbeddingSpecProto()
    broken.CopyFrom(ours)
    if not corrupt(broken):
        pytest.skip(f"{code}: this case has nothing to corrupt that way")
    path = tmp_path / "broken.binpb"
    path.write_bytes(broken.SerializeToString())
    assert code in _codes(path), text_format.MessageToString(broken)


def test_every_stacking_and_core_count_is_generated() -> None:
    kinds = {(Case(seed).stacking, Case(seed).cores) for seed in CASES}
    assert kinds == {(s, c) for s in ("alone", "auto", "explicit") for c in (2, 4)}
    assert len(_optimizers()) >= 5
