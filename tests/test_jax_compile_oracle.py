"""`tpuemb compile --target jax` against jax-tpu-embedding itself (`make test-jax`; skipped where
the library is not installed -- the project never needs JAX).

For generated cases -- 1 to 40 tables, dimensions 1 to 300, every optimizer class the library has
(with drawn hyperparameters; custom ones of one update function and of two), tables shared by two or
three features, per-table limits, 1 to 256 devices, 2 and 4 SparseCores a device, tables alone,
auto-stacked (short and long names, a rotation, stacks split by the activation limit) and stacked by
hand (in a drawn order, with per-stack limits), features in lists and dicts -- the library's
FeatureSpecs are built on CPU, `tpuemb_cli.jax.spec_from_jax` reads them into a spec, and the
library stacks them (`stack_tables` / `auto_stack_tables`), prepares them
(`prepare_feature_specs_for_training`) and writes its proto (`create_proto_from_feature_specs`).
tpuemb's proto -- from the spec written to a file, through `tpuemb compile --target jax --to
binary`, and from the API (`compile_jax`) -- must be the library's byte for byte; each stack's COO
buffer in tpuemb's memory model must be the library's `compute_coo_buffer_size_per_device`. Setups
the library refuses (mixed optimizers or combiners in an explicit stack, explicit stacks with
auto-stacking, an output shape without samples) make `compile` exit 1 with the finding that says so.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

jte = pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")

from click.testing import CliRunner  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from jax_tpu_embedding.sparsecore.lib.nn import embedding_spec, table_stacking  # noqa: E402

from tpuemb_cli.cli import main  # noqa: E402
from tpuemb_cli.frontends.jax.spec import layout as jax_layout  # noqa: E402
from tpuemb_cli.frontends.jax.spec import optimizer_key as jax_optimizer_key  # noqa: E402
from tpuemb_cli.frontends.jax.spec import stacking as jax_stacking  # noqa: E402
from tpuemb_cli.frontends.jax.spec.memory import model  # noqa: E402
from tpuemb_cli.jax import compile_jax, lint_jax, spec_from_jax  # noqa: E402

from .jax_release import (  # noqa: E402
    DEFAULT_ACTIVATION_MEM_BYTES_LIMIT,
    VERSION,
    as_010,
    records_training,
)

HEADER = "# proto-message: tpuemb.spec.EmbeddingSpec\n"
OPTIMIZER_CLASSES = sorted(
    name
    for name in dir(embedding_spec)
    if name.endswith("OptimizerSpec") and name not in ("OptimizerSpec", "CustomOptimizerSpec")
)
# Hyperparameters drawn per class (the learning rate for all): values that change the hash.
DRAWN = {
    "AdagradOptimizerSpec": {"initial_accumulator_value": (0.1, 0.5)},
    "AdamOptimizerSpec": {"beta_1": (0.9, 0.8), "epsilon": (1e-8, 1e-6)},
    "AdagradMomentumOptimizerSpec": {"momentum": (0.9, 0.5), "use_nesterov": (False, True)},
    "FTRLOptimizerSpec": {"l1_regularization_strength": (0.0, 0.01)},
    "LaPropOptimizerSpec": {"b1": (0.9, 0.8)},
    "F2AOptimizerSpec": {"rho": (0.1, 0.2)},
}


def _initializer(key: Any, shape: Any, dtype: Any = None) -> Any:
    import jax.numpy as jnp

    return jnp.zeros(shape)


def _optimizer(rng: random.Random, name: str) -> Any:
    settings = {key: rng.choice(values) for key, values in DRAWN.get(name, {}).items()}
    return getattr(embedding_spec, name)(learning_rate=rng.choice([0.1, 0.01]), **settings)


def _update_one(*args: Any) -> Any:
    return args


def _update_two(*args: Any) -> Any:
    return args


def _customs(rng: random.Random) -> list[Any]:
    """CustomOptimizerSpecs: two of one update function (one optimizer to the library's hash)
    and one of another."""
    rate = rng.choice([0.1, 0.01])
    return [
        embedding_spec.CustomOptimizerSpec(
            learning_rate=rate, custom_computation_fn=update, short_name_str="mine"
        )
        for update in (_update_one, _update_one, _update_two)
    ]


def _limits(values: dict[str, int]) -> Any:
    """A `stack_to_max_ids_per_partition` callable: the stack's value, else the default."""
    return lambda name, samples: values.get(name, 256)


class Case:
    """One generated setup: fresh FeatureSpecs on each `build`, and what the script asks the
    library for (stacking, rotation, names, limits)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        rng = random.Random(2700 + seed)
        self.devices = {0: 1, 1: 256}.get(seed, rng.choice([1, 2, 4, 8, 16, 32, 64, 128, 256]))
        self.cores = (2, 4)[seed % 2]
        self.stacking = ("alone", "auto", "explicit")[seed % 3]
        self.count = {2: 40, 3: 1, 4: 2}.get(seed, rng.randint(1, 40))
        self.rotation = rng.choice([None, None, 0, 1, 3]) if self.stacking != "alone" else None
        self.short_names = rng.random() < 0.7
        # Big batches on some cases, so that auto-stacking splits groups at the 2 MiB limit.
        self.big = rng.random() < 0.3
        self.as_dict = rng.random() < 0.4
        self.draws = rng.getstate()

    def build(self) -> tuple[Any, list[Any], dict[str, list[str]], dict[str, tuple[int, int]]]:
        """(features as the script passes them, their tables, explicit stacks, stack limits)."""
        rng = random.Random()
        rng.setstate(self.draws)
        total = self.devices * self.cores
        pool = [_optimizer(rng, name) for name in OPTIMIZER_CLASSES]
        if self.seed % 4 == 3:
            pool += _customs(rng)
        shared = rng.choice(pool)
        tables = []
        for index in range(self.count):
            optimizer = shared if rng.random() < 0.7 else pool[index % len(pool)]
            limits = {}
            if rng.random() < 0.6:
                limits["max_ids_per_partition"] = rng.choice([64, 256, 1024, 4096])
                limits["max_unique_ids_per_partition"] = rng.choice([32, 64, 256])
            long_name = rng.random() < 0.2
            tables.append(
                embedding_spec.TableSpec(
                    name=f"{'a_rather_long_table_name_' if long_name else 't'}{index}",
                    vocabulary_size=rng.choice(
                        [1, 7, 100, 1000, 2_000_000, rng.randint(1, 100_000)]
                    ),
                    embedding_dim=rng.choice([1, 8, 12, 16, 64, 128, 300, rng.randint(1, 300)]),
                    initializer=_initializer,
                    optimizer=optimizer,
                    combiner=rng.choice(["sum", "sum", "mean"]),
                    **limits,
                )
            )
        features = []
        for index, table in enumerate(tables):
            for copy in range(rng.choice([1, 1, 1, 2, 3])):  # shared tables
                batch = total * rng.choice(
                    [1, 2, 8, rng.randint(1, 64)] + ([rng.randint(500, 4000)] if self.big else [])
                )
                sequence = rng.choice([None, None, 2, 5])
                name = f"{rng.choice('zyxabc')}{index}_{copy}"
                if sequence is None:
                    shapes = ([batch, rng.randint(1, 4)], [batch, table.embedding_dim])
                else:
                    shapes = ([batch, sequence], [batch, sequence, table.embedding_dim])
                features.append(
                    embedding_spec.FeatureSpec(
                        name=name, table_spec=table, input_shape=shapes[0], output_shape=shapes[1]
                    )
                )
        rng.shuffle(features)  # flatten order is not table order
        stacks: dict[str, list[str]] = {}
        stack_limits: dict[str, tuple[int, int]] = {}
        if self.stacking == "explicit":
            # Tables of one optimizer and combiner, in drawn groups and a drawn order.
            kinds: dict[tuple[int, str], list[str]] = {}
            for table in tables:
                kinds.setdefault((id(table.optimizer), table.combiner), []).append(table.name)
            for k, names in enumerate(kinds.values()):
                rng.shuffle(names)
                while names and rng.random() < 0.8:
                    size = rng.randint(1, len(names))
                    group, names = names[:size], names[size:]
                    stacks[f"stack_{k}_{len(stacks)}"] = group
            for name in stacks:
                if rng.random() < 0.5:
                    stack_limits[name] = (rng.choice([128, 512, 2048]), rng.choice([64, 128]))
        structure: Any = features
        if self.as_dict:
            structure = {f"k{rng.randint(0, 10**6)}_{i}": f for i, f in enumerate(features)}
        return structure, tables, stacks, stack_limits

    def options(
        self, stacks: dict[str, list[str]], limits: dict[str, tuple[int, int]]
    ) -> dict[str, Any]:
        """spec_from_jax's (and compile_jax's) keywords for this case."""
        return {
            "global_device_count": self.devices,
            "num_sc_per_device": self.cores,
            "stacks": stacks,
            "auto_stack": self.stacking == "auto",
            "use_short_stack_names": self.short_names,
            "rotation": self.rotation,
            "stack_limits": limits,
        }

    def run_library(
        self, structure: Any, stacks: dict[str, list[str]], limits: dict[str, tuple[int, int]]
    ) -> Any:
        """The library's stacking, preparation and proto, in place on ``structure``."""
        max_ids = _limits({name: pair[0] for name, pair in limits.items()})
        max_unique = _limits({name: pair[1] for name, pair in limits.items()})
        if self.stacking == "auto":
            table_stacking.auto_stack_tables(
                structure,
                self.devices,
                self.cores,
                rotation=self.rotation,
                use_short_stack_names=self.short_names,
            )
        for name, group in stacks.items():
            table_stacking.stack_tables(
                structure,
                group,
                self.devices,
                self.cores,
                rotation=self.rotation,
                stack_to_max_ids_per_partition=max_ids,
                stack_to_max_unique_ids_per_partition=max_unique,
                stack_name=name,
            )
        jte.prepare_feature_specs_for_training(structure, self.devices, self.cores)
        return jte.create_proto_from_feature_specs(structure, self.devices, self.cores)


CASES = range(48)


def _compile_cli(tmp_path: Path, spec: Any, *options: str) -> tuple[int, bytes, str]:
    path, out = tmp_path / "model.spec.textproto", tmp_path / "model.binpb"
    path.write_text(HEADER + text_format.MessageToString(spec))
    out.unlink(missing_ok=True)
    result = CliRunner().invoke(
        main,
        ["compile", str(path), "--target", "jax", "--to", "binary", "-o", str(out), *options],
    )
    return result.exit_code, out.read_bytes() if out.exists() else b"", result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("seed", CASES)
def test_compile_is_the_librarys_proto_byte_for_byte(seed: int, tmp_path: Path) -> None:
    case = Case(seed)
    structure, _, stacks, limits = case.build()
    spec = spec_from_jax(structure, **case.options(stacks, limits))
    from_api = compile_jax(structure, **case.options(stacks, limits))
    from_api_next = compile_jax(structure, **case.options(stacks, limits), version="0.2.0")
    theirs = case.run_library(structure, stacks, limits)
    expected = as_010(theirs).SerializeToString()
    exit_code, written, stderr = _compile_cli(tmp_path, spec)
    # A feature of output [batch, positions, dim] the library writes a proto for, and gets wrong
    # at the lookup (tests/test_jax_front_oracle_stacking.py): jax-batch-mismatch, an error, so
    # the command line refuses the spec; the API, which does not lint, writes the proto.
    sequences = sum(len(feature.output_shape) > 2 for feature in spec.features)
    if sequences:
        errors = [line for line in stderr.splitlines() if "[error]" in line]
        assert exit_code == 1 and len(errors) == sequences, stderr
        assert all(" TE679 [error] " in line for line in errors), stderr
    else:
        # Warnings (TE693: a table's own limits ignored in a stack) go to stderr; no error.
        assert exit_code == 0 and "[error]" not in stderr, stderr
        assert written == expected, text_format.MessageToString(theirs)
    assert from_api.SerializeToString() == expected
    if records_training(theirs):  # 0.2.0: --jax-version 0.2.0 writes its proto, fields and all
        # Deterministic: a map's entries (the optimizer's parameters) sorted by key, as tpuemb
        # writes binary; in what order the library's come hangs on the protobuf runtime.
        expected = theirs.SerializeToString(deterministic=True)
        exit_code, written, stderr = _compile_cli(tmp_path, spec, "--jax-version", "0.2.0")
        if not sequences:
            assert exit_code == 0 and "[error]" not in stderr, stderr
            assert written == expected, text_format.MessageToString(theirs)
        assert from_api_next.SerializeToString(deterministic=True) == expected
        assert {s.activation_mem_bytes_limit for s in theirs.stacked_table_specs} == {
            DEFAULT_ACTIVATION_MEM_BYTES_LIMIT
        }
    # The COO buffer tpuemb's memory model gives each stack is the library's.
    sizes = jte.compute_coo_buffer_size_per_device(structure, case.devices, case.cores)
    memory = model(from_api, case.cores)
    assert {stack.name: stack.coo_size(case.cores) for stack in memory.stacks} == sizes


def test_the_cases_cover_what_the_brief_asks() -> None:
    cases = [Case(seed) for seed in CASES]
    built = [case.build() for case in cases]
    assert {(c.stacking, c.cores) for c in cases} == {
        (s, n) for s in ("alone", "auto", "explicit") for n in (2, 4)
    }
    assert {1, 256} <= {c.devices for c in cases}
    assert {1, 40} <= {c.count for c in cases}
    dims = {t.embedding_dim for _, tables, _, _ in built for t in tables}
    assert {1, 300} <= dims
    classes = {type(t.optimizer).__name__ for _, tables, _, _ in built for t in tables}
    assert classes == {*OPTIMIZER_CLASSES, "CustomOptimizerSpec"} and len(classes) >= 8
    shared = [name for structure, _, _, _ in built for name, n in _uses(structure).items() if n > 1]
    assert shared
    assert any(any(len(g) > 1 for g in stacks.values()) for _, _, stacks, _ in built)
    assert any(limits for _, _, _, limits in built)
    # Some compared through the command line too: no feature of a sequence output (TE679).
    assert any(
        all(
            len(feature.output_shape) == 2
            for feature in (structure.values() if isinstance(structure, dict) else structure)
        )
        for structure, _, _, _ in built
    )
    assert {c.rotation for c in cases} >= {None, 0, 1, 3}
    # Auto-stacking's rarer paths: a shortened (hashed) stack name, a group split at the
    # activation limit.
    hashed = split = 0
    for case, (structure, _, stacks, limits) in zip(cases, built, strict=True):
        spec = spec_from_jax(structure, **case.options(stacks, limits))
        names = list(jax_layout.layout(spec).stacks)
        hashed += any("..." in name for name in names)
        if case.stacking == "auto":
            keys = {
                (jax_stacking.padded_dim(t.dim), jax_optimizer_key.optimizer_key(t), t.combiner)
                for t in spec.tables
            }
            split += len(jax_stacking.groups(spec)) > len(keys)
    assert hashed and split


def _uses(structure: Any) -> dict[str, int]:
    features = structure.values() if isinstance(structure, dict) else structure
    counted: dict[str, int] = {}
    for feature in features:
        counted[feature.table_spec.name] = counted.get(feature.table_spec.name, 0) + 1
    return counted


# Setups the library refuses: compile exits 1 with the rule that says why.


def _table(name: str, optimizer: Any, combiner: str = "sum") -> Any:
    return embedding_spec.TableSpec(
        name=name,
        vocabulary_size=1000,
        embedding_dim=16,
        initializer=_initializer,
        optimizer=optimizer,
        combiner=combiner,
    )


def _features(*tables: Any) -> list[Any]:
    return [
        embedding_spec.FeatureSpec(
            name=f"f_{t.name}", table_spec=t, input_shape=[64, 1], output_shape=[64, 16]
        )
        for t in tables
    ]


def _refused_setups() -> list[tuple[str, list[Any], dict[str, Any]]]:
    sgd = embedding_spec.SGDOptimizerSpec(learning_rate=0.1)
    adagrad = embedding_spec.AdagradOptimizerSpec(learning_rate=0.1)
    return [
        (
            "TE692",
            _features(_table("a", sgd), _table("b", adagrad)),
            {"stacks": {"ab": ["a", "b"]}},
        ),
        (
            "TE692",
            _features(_table("a", sgd, "sum"), _table("b", sgd, "mean")),
            {"stacks": {"ab": ["b", "a"]}},
        ),
        (
            "TE696",
            _features(_table("a", sgd), _table("b", sgd)),
            {"stacks": {"ab": ["a", "b"]}, "auto_stack": True},
        ),
        (
            "TE696",
            [
                embedding_spec.FeatureSpec(
                    name="f", table_spec=_table("a", sgd), input_shape=[64, 1], output_shape=[16]
                )
            ],
            {},
        ),
        # stack_tables calls the library refuses (KeyError, ValueError) that spec_from_jax records.
        ("TE696", _features(_table("a", sgd), _table("b", sgd)), {"stacks": {"s": ["a", "nope"]}}),
        ("TE696", _features(_table("a", sgd), _table("b", sgd)), {"stacks": {"s": ["a", "a"]}}),
        ("TE696", _features(_table("a", sgd), _table("b", sgd)), {"stacks": {"s": []}}),
        (
            "TE696",
            _features(_table("a", sgd), _table("b", sgd)),
            {"stacks": {"s": ["a", "b"], "t": ["a"]}},
        ),
    ]


@pytest.mark.parametrize("index", range(8))
def test_what_the_library_refuses_compile_refuses_with_the_finding(
    index: int, tmp_path: Path
) -> None:
    code, features, asked = _refused_setups()[index]
    spec = spec_from_jax(features, global_device_count=2, num_sc_per_device=2, **asked)
    with pytest.raises((ValueError, TypeError, KeyError)):
        for name, group in asked.get("stacks", {}).items():
            table_stacking.stack_tables(features, group, 2, 2, stack_name=name)
        if asked.get("auto_stack"):
            table_stacking.auto_stack_tables(features, 2, 2)
        jte.prepare_feature_specs_for_training(features, 2, 2)
        jte.create_proto_from_feature_specs(features, 2, 2)
    exit_code, written, stderr = _compile_cli(tmp_path, spec)
    assert (exit_code, written) == (1, b"")
    assert f" {code} [error] " in stderr
    assert stderr.endswith("not compiled: the spec has errors\n")


@pytest.mark.parametrize("name", [None, ""])
def test_a_stack_without_a_name_is_named_as_the_library_names_it(name: str | None) -> None:
    sgd = embedding_spec.SGDOptimizerSpec(learning_rate=0.1)
    features = _features(_table("a", sgd), _table("b", sgd))
    ours = compile_jax(
        features, global_device_count=2, num_sc_per_device=2, stacks={name: ["a", "b"]}
    )
    table_stacking.stack_tables(features, ["a", "b"], 2, 2, stack_name=name)
    jte.prepare_feature_specs_for_training(features, 2, 2)
    theirs = jte.create_proto_from_feature_specs(features, 2, 2)
    assert [s.stack_name for s in ours.stacked_table_specs] == ["a_b"]
    assert ours.SerializeToString() == as_010(theirs).SerializeToString()


# The goldens of tests/test_jax_compile.py (which runs without JAX): each setup's spec, as
# spec_from_jax writes it, and the library's own proto for it (as 0.1.0 writes it:
# tests/jax_release.py), in tests/data/jax/compile/.

GOLDEN = Path(__file__).parent / "data" / "jax" / "compile"


def _golden_setup(name: str) -> tuple[Any, dict[str, Any]]:
    """(features, spec_from_jax keywords) of a golden setup."""
    sgd = embedding_spec.SGDOptimizerSpec(learning_rate=0.1)
    adagrad = embedding_spec.AdagradOptimizerSpec(learning_rate=0.05)

    def table(table_name: str, vocab: int, dim: int, optimizer: Any, **limits: int) -> Any:
        return embedding_spec.TableSpec(
            name=table_name,
            vocabulary_size=vocab,
            embedding_dim=dim,
            initializer=_initializer,
            optimizer=optimizer,
            combiner="sum",
            **limits,
        )

    def feature(feature_name: str, on: Any, batch: int) -> Any:
        return embedding_spec.FeatureSpec(
            name=feature_name,
            table_spec=on,
            input_shape=[batch, 1],
            output_shape=[batch, on.embedding_dim],
        )

    if name == "alone":  # every table a stack of its own; a shared table's features by name
        user = table("user", 1000, 16, adagrad, max_ids_per_partition=64)
        video = table("video", 50, 12, sgd)
        features = [feature("watch_b", video, 32), feature("user", user, 32)]
        features.append(feature("watch_a", video, 64))
        return features, {"global_device_count": 4, "num_sc_per_device": 4}
    if name == "auto":  # auto-stacked: by width and optimizer, one group split by activations
        tables = [
            table("query", 5000, 16, sgd),
            table("history", 700, 12, sgd),
            table("country", 200, 64, sgd),
            table("category", 100, 16, adagrad),
            table("clicks_in_the_last_thirty_days_by_item", 9000, 16, sgd),
        ]
        structure = {
            "a": feature("query", tables[0], 64),
            "b": [feature("history", tables[1], 64), feature("country", tables[2], 64)],
            "c": feature("category", tables[3], 64),
            "d": feature("clicks", tables[4], 2**19),
        }
        return structure, {"global_device_count": 2, "num_sc_per_device": 2, "auto_stack": True}
    # explicit: a stack in the order asked for, its limits and a rotation; a table alone
    a, b, c = table("a", 1000, 32, sgd), table("b", 300, 8, adagrad), table("c", 20, 30, sgd)
    features = [feature("fa", a, 128), feature("fb", b, 128), feature("fc", c, 128)]
    return features, {
        "global_device_count": 8,
        "num_sc_per_device": 2,
        "stacks": {"shared": ["c", "a"]},
        "rotation": 1,
        "stack_limits": {"shared": (512, 128)},
    }


def _golden_library_proto(features: Any, asked: dict[str, Any]) -> Any:
    """The library's own proto for a golden setup (as its release writes it)."""
    devices, cores = asked["global_device_count"], asked["num_sc_per_device"]
    if asked.get("auto_stack"):
        jte.auto_stack_tables(features, devices, cores)
    for stack, group in asked.get("stacks", {}).items():
        ids, unique = asked["stack_limits"][stack]
        table_stacking.stack_tables(
            features,
            group,
            devices,
            cores,
            rotation=asked.get("rotation"),
            stack_to_max_ids_per_partition=_limits({stack: ids}),
            stack_to_max_unique_ids_per_partition=_limits({stack: unique}),
            stack_name=stack,
        )
    jte.prepare_feature_specs_for_training(features, devices, cores)
    return jte.create_proto_from_feature_specs(features, devices, cores)


GOLDENS = ("alone", "auto", "explicit")


def write_goldens() -> None:
    """Writes the goldens (`python -m tests.test_jax_compile_oracle` in build/venv-jax, then in
    build/venv-jax-next for the 0.2.0 ones)."""
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name in GOLDENS:
        features, asked = _golden_setup(name)
        spec = spec_from_jax(features, **asked)
        (GOLDEN / f"{name}.spec.textproto").write_text(HEADER + text_format.MessageToString(spec))
        proto = _golden_library_proto(features, asked)
        (GOLDEN / f"{name}.library.pbtxt").write_text(text_format.MessageToString(as_010(proto)))
        if records_training(proto):  # under 0.2.0: its own proto as well
            (GOLDEN / f"{name}.library-0.2.0.pbtxt").write_text(text_format.MessageToString(proto))


@pytest.mark.parametrize("name", GOLDENS)
def test_the_goldens_are_the_librarys(name: str) -> None:
    features, asked = _golden_setup(name)
    spec = HEADER + text_format.MessageToString(spec_from_jax(features, **asked))
    assert (GOLDEN / f"{name}.spec.textproto").read_text() == spec
    proto = _golden_library_proto(features, asked)
    assert (GOLDEN / f"{name}.library.pbtxt").read_text() == text_format.MessageToString(
        as_010(proto)
    )
    if records_training(proto):
        newer = (GOLDEN / f"{name}.library-0.2.0.pbtxt").read_text()
        assert newer == text_format.MessageToString(proto)


if __name__ == "__main__":
    write_goldens()


def test_custom_optimizers_stack_as_the_librarys_hash_says(tmp_path: Path) -> None:
    # Two objects of one update function are one optimizer to the library; another function, or
    # another learning rate, another.
    def custom(update: Any, rate: float = 0.1) -> Any:
        return embedding_spec.CustomOptimizerSpec(
            learning_rate=rate, custom_computation_fn=update, short_name_str="mine"
        )

    optimizers = [
        custom(_update_one),
        custom(_update_one),
        custom(_update_two),
        custom(_update_one, 0.2),
    ]
    tables = [_table(name, optimizer) for name, optimizer in zip("abcd", optimizers, strict=True)]
    features = _features(*tables)
    asked: dict[str, Any] = {"global_device_count": 2, "num_sc_per_device": 2, "auto_stack": True}
    spec = spec_from_jax(features, **asked)
    assert [t.jax.optimizer.custom for t in spec.tables] == ["mine#0", "mine#0", "mine#1", "mine#0"]
    exit_code, written, stderr = _compile_cli(tmp_path, spec)
    assert (exit_code, stderr) == (0, "")
    jte.auto_stack_tables(features, 2, 2)
    jte.prepare_feature_specs_for_training(features, 2, 2)
    theirs = jte.create_proto_from_feature_specs(features, 2, 2)
    assert written == as_010(theirs).SerializeToString()
    assert [s.stack_name for s in theirs.stacked_table_specs] == ["a_b", "c", "d"]


def test_learning_rates_float32_cannot_tell_apart_stack_as_the_librarys_hash_says(
    tmp_path: Path,
) -> None:
    # 0.1, 0.3 / 3 and numpy's float32 0.1 are one float32 (the spec's LearningRate.constant),
    # but three optimizers to the library, which compares the hash of the Python value.
    import numpy as np

    rates = [0.1, 0.3 / 3, np.float32(0.1), 0.1]
    tables = [
        _table(name, embedding_spec.SGDOptimizerSpec(learning_rate=rate))
        for name, rate in zip("abcd", rates, strict=True)
    ]
    features = _features(*tables)
    asked: dict[str, Any] = {"global_device_count": 2, "num_sc_per_device": 2, "auto_stack": True}
    spec = spec_from_jax(features, **asked)
    exit_code, written, stderr = _compile_cli(tmp_path, spec)
    assert (exit_code, stderr) == (0, "")
    jte.auto_stack_tables(features, 2, 2)
    jte.prepare_feature_specs_for_training(features, 2, 2)
    theirs = jte.create_proto_from_feature_specs(features, 2, 2)
    assert written == as_010(theirs).SerializeToString()
    assert [s.stack_name for s in theirs.stacked_table_specs] == ["a_d", "b", "c"]
    # Asked to stack two of them by hand, the library refuses; so does tpuemb (TE692).
    with pytest.raises(ValueError, match="different optimizers"):
        table_stacking.stack_tables(
            _features(
                *[
                    _table(n, embedding_spec.SGDOptimizerSpec(learning_rate=r))
                    for n, r in zip("ab", rates[:2], strict=True)
                ]
            ),
            ["a", "b"],
            2,
            2,
            stack_name="s",
        )
    explicit = spec_from_jax(
        _features(
            *[
                _table(n, embedding_spec.SGDOptimizerSpec(learning_rate=r))
                for n, r in zip("ab", rates[:2], strict=True)
            ]
        ),
        global_device_count=2,
        num_sc_per_device=2,
        stacks={"s": ["a", "b"]},
    )
    exit_code, _, _ = _compile_cli(tmp_path, explicit)
    assert exit_code == 1


def test_the_first_fit_split_is_the_librarys_on_many_stacks() -> None:
    """`_first_fit` (a tree of the stacks' sums, not the library's sum of every stack for every
    table) splits as `_split_groups_by_memory_limit` does: for groups of up to 400 tables with
    activations under, at and past the limit (ties, zeros, tables alone past it), and for one of
    1,500 tables that fills hundreds of stacks, each stack with room left that later tables fit."""
    limit = jax_stacking.ACTIVATION_LIMIT
    drawn = random.Random(28)
    cases = []
    for _ in range(300):
        size = drawn.randint(1, 400)
        pool = (0, 1, limit // 3, limit // 2, limit // 2 + 1, limit - 1, limit, limit + 1)
        cases.append(
            [drawn.choice((drawn.choice(pool), drawn.randint(0, limit))) for _ in range(size)]
        )
    cases.append([drawn.randint(limit // 4, limit) for _ in range(1_500)])
    for activations in cases:
        names = [f"t{i}" for i in range(len(activations))]
        by_name = dict(zip(names, activations, strict=True))
        theirs = table_stacking._split_groups_by_memory_limit([names], by_name, limit)
        ours = jax_stacking._first_fit(list(range(len(names))), dict(enumerate(activations)), limit)
        assert [[names[i] for i in stack] for stack in ours] == theirs
    assert len(jax_stacking._first_fit(list(range(1_500)), dict(enumerate(cases[-1])), limit)) > 150


@pytest.mark.skipif(
    "stablehlo" not in embedding_spec.CustomOptimizerSpec.__init__.__code__.co_varnames,
    reason="0.1.0's CustomOptimizerSpec has no StableHLO module",
)
@pytest.mark.parametrize("module", ["module @a {}", "module @b {}"])
def test_custom_optimizers_of_two_stablehlo_modules_are_two_optimizers(module: str) -> None:
    def tables() -> list[Any]:
        return [
            _table(
                name,
                embedding_spec.CustomOptimizerSpec(learning_rate=0.01, stablehlo=hlo),
            )
            for name, hlo in (("a", "module @a {}"), ("b", module))
        ]

    asked: dict[str, Any] = {"global_device_count": 4, "num_sc_per_device": 2}
    features = _features(*tables())
    jte.auto_stack_tables(features, 4, 2)
    jte.prepare_feature_specs_for_training(features, 4, 2)
    theirs = jte.create_proto_from_feature_specs(features, 4, 2)
    ours = compile_jax(_features(*tables()), auto_stack=True, version=VERSION, **asked)
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )
    # An explicit stack of the two: the library refuses two optimizers, and lint says so first
    # (jax-stack-mixed-settings).
    refused = module != "module @a {}"
    found = lint_jax(_features(*tables()), stacks={"s": ["a", "b"]}, **asked)
    assert ("TE692" in {finding.rule for finding in found}) is refused
    if refused:
        with pytest.raises(ValueError, match="different optimizers"):
            table_stacking.stack_tables(_features(*tables()), ["a", "b"], 4, 2, stack_name="s")
    else:
        table_stacking.stack_tables(_features(*tables()), ["a", "b"], 4, 2, stack_name="s")
