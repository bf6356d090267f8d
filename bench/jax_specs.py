"""Large JAX inputs, command by command (issue 27); ``python -m bench.jax_specs [repeat]``
runs these lines alone, and ``python -m bench.jax_specs --write DIR`` only writes the inputs
(spec_1k.textproto, spec_proto_1k.binpb, auto_1k.textproto, ... and the same at 10k).

Four kinds of input, each at 1,000 and 10,000 tables:

- ``spec``: a spec with a `jax` section (jax-tpu-embedding's FeatureSpecs, as `spec_from_jax`
  writes them) on 8 devices of 4 SparseCores, each table alone: a stack each;
- ``auto``: the same tables auto-stacked (`jax.auto_stack`), the batches drawn so that the four
  groups (dimension x optimizer) split into hundreds of stacks;
- ``spec_proto``, ``auto_proto``: the EmbeddingSpecProto the library writes for each
  (`compile --target jax`): 10,000 stacks, and hundreds;
- ``one_stack``: an EmbeddingSpecProto of ONE stack of all the tables (issue 36: TE685 and TE686
  compared each table and feature with every earlier one, 50 s for 50,000 tables).

Each runs `convert --to yaml/json/text` and `check`, a spec `compile --target jax`, a proto
`explain` and `explain --memory --tpu v5p`, each in a process of its own (bench/sparsecore.py's
`command`), best of ``repeat``; the summary gives each one's 10k/1k time (target <= 11: linear).
`convert --to yaml` of the 10,000-stack proto took 37 s (71 s on a busy machine): PyYAML's
pure-Python emitter, then its pure-Python parser reading the output back to prove it lossless
(now libyaml's, and read back only when the message holds a NaN or an unknown field).
"""

from __future__ import annotations

import random
from pathlib import Path

from bench.sparsecore import Measured, bench_main, command

SIZES = (1_000, 10_000)
HEADER = "# proto-message: tpuemb.spec.EmbeddingSpec\n"
_OPTIMIZERS = (
    'type: "SGDOptimizerSpec" learning_rate { constant: 0.1 }',
    'type: "AdagradOptimizerSpec" learning_rate { constant: 0.05 } '
    'settings { key: "initial_accumulator_value" value: 0.1 }',
)


def spec(tables: int, auto: bool) -> str:
    """The text of a JAX spec of ``tables`` tables, one feature each."""
    drawn = random.Random(28)
    lines = [HEADER]
    for index in range(tables):
        dim = (8, 16)[index % 2]
        lines.append(
            f'tables {{ name: "table_{index}" vocabulary_size: {1_000 + index} dim: {dim} '
            f'combiner: "sum" jax {{ optimizer {{ {_OPTIMIZERS[index // 2 % 2]} }} '
            "max_ids_per_partition: 256 max_unique_ids_per_partition: 256 } }\n"
        )
    for index in range(tables):
        batch = drawn.choice((4_096, 16_384, 65_536))
        dim = (8, 16)[index % 2]
        lines.append(
            f'features {{ name: "feature_{index}" table: "table_{index}" '
            f"output_shape: [{batch}, {dim}] input_shape: [{batch}, 1] }}\n"
        )
    lines.append(
        f"jax {{ global_device_count: 8 num_sc_per_device: 4 auto_stack: {str(auto).lower()} }}\n"
    )
    return "".join(lines)


def one_stack(tables: int) -> str:
    """The text of an EmbeddingSpecProto of one stack of ``tables`` tables of 64 padded rows on
    8 SparseCores, one feature of 16 samples each, laid out as the library lays them out."""
    cores, rows, batch = 8, 64, 16
    lines = [
        "# proto-message: third_party.py.jax_tpu_embedding.sparsecore_lib_proto."
        "EmbeddingSpecProto\n",
        f'stacked_table_specs {{ stack_name: "big" stack_vocab_size: {rows * tables} '
        f"stack_embedding_dim: 8 total_sample_count: {batch * tables} "
        f"max_ids_per_partition: {batch * tables} max_unique_ids_per_partition: 256 "
        f"num_sparsecores: {cores}\n",
    ]
    for index in range(tables):
        lines.append(
            f'  table_specs {{ table_name: "t{index}" vocab_size: {rows} embedding_dim: 8 '
            f"padded_vocab_size: {rows} padded_embedding_dim: 8 "
            f"row_offset_in_shard: {index * rows // cores} shard_rotation: {index % cores} "
            f'feature_specs {{ feature_name: "f{index}" input_shape: [{batch}, 1] '
            f"output_shape: [{batch}, 8] row_offset: {batch * index} "
            f"col_offset: {index * rows} col_shift: {index % cores} }} }}\n"
        )
    lines.append("}\n")
    return "".join(lines)


def write(directory: Path) -> dict[str, Path]:
    """The inputs, in ``directory``: each kind's name and size ("auto 10k") to its path (the
    protos compiled by `tpuemb compile --target jax`)."""
    paths: dict[str, Path] = {}
    for tables in SIZES:
        size = f"{tables // 1000}k"
        for kind, auto in (("spec", False), ("auto", True)):
            path = directory / f"{kind}_{size}.textproto"
            path.write_text(spec(tables, auto))
            paths[f"{kind} {size}"] = path
            proto = directory / f"{kind}_proto_{size}.binpb"
            command(["compile", "--target", "jax", "--to", "binary", "-o", str(proto), str(path)])
            assert proto.exists(), f"{path} did not compile"
            paths[f"{kind}_proto {size}"] = proto
        path = directory / f"one_stack_{size}.pbtxt"
        path.write_text(one_stack(tables))
        paths[f"one_stack {size}"] = path
    return paths


CONVERSIONS: dict[str, list[str]] = {
    "convert --to yaml": ["convert", "--to", "yaml"],
    "convert --to json": ["convert", "--to", "json"],
    "convert --to text": ["convert", "--to", "text"],
    "check": ["check", "--format", "json"],
}
COMMANDS: dict[str, list[str]] = {
    **CONVERSIONS,
    "compile --target jax": ["compile", "--target", "jax"],
    "explain": ["explain"],
    "explain --memory": ["explain", "--memory", "--tpu", "v5p"],
}
DIFF = ["diff", "--format", "json", "--fail-on", "none"]
# What each kind of input runs: a spec compiles (explain takes its proto), a proto explains.
KINDS = {
    "spec": [*CONVERSIONS, "compile --target jax"],
    "auto": [*CONVERSIONS, "compile --target jax"],
    "spec_proto": [*CONVERSIONS, "explain", "explain --memory"],
    "auto_proto": [*CONVERSIONS, "explain", "explain --memory"],
    "one_stack": ["check", "explain", "explain --memory"],
}


def run(directory: Path, repeat: int) -> list[tuple[str, float, str]]:
    """Prints the measurements; returns the summary's (label, ratio, target) rows."""
    paths = write(directory)
    best: dict[tuple[str, str, int], Measured] = {}
    for _ in range(max(repeat, 1)):
        for kind, names in KINDS.items():
            for name in names:
                for tables in SIZES:
                    path = paths[f"{kind} {tables // 1000}k"]
                    measured = command([*COMMANDS[name], str(path)])
                    key = (kind, name, tables)
                    if key not in best or measured.seconds < best[key].seconds:
                        best[key] = measured
        for tables in SIZES:
            # Every table alone against auto-stacked: each table moves to another stack.
            size = f"{tables // 1000}k"
            pair = [str(paths[f"spec {size}"]), str(paths[f"auto {size}"])]
            measured = command([*DIFF, *pair])
            key = ("spec/auto", "diff", tables)
            if key not in best or measured.seconds < best[key].seconds:
                best[key] = measured
    print(f"\nJAX specs and EmbeddingSpecProtos (`tpuemb` in a process, best of {repeat})")
    rows = []
    for kind, names in [*KINDS.items(), ("spec/auto", ["diff"])]:
        for name in names:
            small, large = (best[(kind, name, tables)].seconds for tables in SIZES)
            print(f"  {kind:<10} {name:<22} 1k {small:6.2f} s   10k {large:6.2f} s")
            rows.append((f"JAX {kind} {name} 10k / 1k", large / small, "<= 11"))
    return rows


def main() -> int:
    return bench_main(__doc__.splitlines()[0], write, run, 1)


if __name__ == "__main__":
    raise SystemExit(main())
