"""Write the Orbax checkpoint oracle fixtures under tests/data/orbax/ (issue 39).

Run with the oracle environment (jax, jax-tpu-embedding, orbax-checkpoint, tensorstore):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 JAX_PLATFORMS=cpu \
        build/venv-jax/bin/python tests/data/orbax/make_fixtures.py

Each case directory gets a `ckpt/` written by Orbax itself from variables the library itself made
(jax_tpu_embedding.sparsecore: TableSpec/FeatureSpec, table_stacking.stack_tables,
embedding.prepare_feature_specs_for_training, embedding.init_embedding_variables,
embedding.create_proto_from_feature_specs), and an `expected.json`: what Orbax's own metadata API
reads back (global shape, dtype, sharding, write/chunk shape per array), plus the zarr `.zarray`
records read out of the OCDBT store with tensorstore, i.e. the ground truth a pure-Python reader
must reproduce. README.md is regenerated from the same data.

The script re-creates every case from scratch (timestamps in _CHECKPOINT_METADATA and the absolute
path in commit_success.txt change on every run; the array bytes do not: the RNG key is fixed).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import os
import re
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any

if os.environ.get("JAX_PLATFORMS") != "cpu" or "device_count=8" not in os.environ.get(
    "XLA_FLAGS", ""
):
    sys.exit(
        "run with XLA_FLAGS=--xla_force_host_platform_device_count=8 JAX_PLATFORMS=cpu "
        "(the fixtures are for a mesh of 8 devices)"
    )

import jax
import numpy as np
import orbax.checkpoint as ocp
from jax_tpu_embedding.sparsecore.lib.nn import embedding, embedding_spec, table_stacking

# tensorstore ships no type information and is not in the lint environment: imported by name.
ts: Any = importlib.import_module("tensorstore")

HERE = Path(__file__).resolve().parent
NUM_DEVICES = 8
# The library cannot tell a CPU's SparseCore count (utils.num_sparsecores_per_device raises
# "Unknown sparsecore count for device kind: cpu"), so it is given explicitly: 4 is the
# NUM_SC_PER_DEVICE_MAP value for 'TPU v5' / 'TPU v5p'.
NUM_SC_PER_DEVICE = 4
# The axis name and partition spec the library's own Flax layer uses
# (lib/flax/linen/embed.py: sharding_axis='sparsecore_sharding', PartitionSpec(axis, None)).
AXIS = "sparsecore_sharding"
BATCH = 64


def make_features(optimizer: embedding_spec.OptimizerSpec) -> dict[str, embedding_spec.FeatureSpec]:
    """Two tables (user: 300 x 16, item: 200 x 12) in one stack, stacked as the library does."""
    init = jax.nn.initializers.truncated_normal(stddev=0.02)
    user = embedding_spec.TableSpec(
        name="user",
        vocabulary_size=300,
        embedding_dim=16,
        initializer=init,
        optimizer=optimizer,
        combiner="sum",
    )
    item = embedding_spec.TableSpec(
        name="item",
        vocabulary_size=200,
        embedding_dim=12,
        initializer=init,
        optimizer=optimizer,
        combiner="sum",
    )
    features = {
        "user_id": embedding_spec.FeatureSpec(
            name="user_id", table_spec=user, input_shape=[BATCH, 1], output_shape=[BATCH, 16]
        ),
        "item_id": embedding_spec.FeatureSpec(
            name="item_id", table_spec=item, input_shape=[BATCH, 1], output_shape=[BATCH, 12]
        ),
    }
    # Default stack name (table_stacking._get_stack_name): the table names joined by "_".
    table_stacking.stack_tables(
        features,
        ["user", "item"],
        global_device_count=NUM_DEVICES,
        num_sc_per_device=NUM_SC_PER_DEVICE,
    )
    # A no-op once every table is stacked, but it is the call a training loop makes.
    embedding.prepare_feature_specs_for_training(
        features, global_device_count=NUM_DEVICES, num_sc_per_device=NUM_SC_PER_DEVICE
    )
    return features


def make_variables(
    features: dict[str, embedding_spec.FeatureSpec], sharding: jax.sharding.NamedSharding
) -> Any:
    table_specs = {name: f.table_spec for name, f in features.items()}
    return embedding.init_embedding_variables(
        jax.random.key(0), table_specs, sharding, num_sparsecore_per_device=NUM_SC_PER_DEVICE
    )


def key_str(path: tuple[Any, ...]) -> str:
    return str(tuple(_key_name(k) for k in path))


def _key_name(k: Any) -> str:
    for attr in ("key", "name", "idx"):
        if hasattr(k, attr):
            return str(getattr(k, attr))
    return str(k)


def saved_arrays(tree: Any) -> dict[str, Any]:
    """What was handed to Orbax: every jax.Array leaf with its global shape, dtype and sharding."""
    out: dict[str, Any] = {}
    for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
        sharding = leaf.sharding
        out[key_str(path)] = {
            "shape": list(leaf.shape),
            "dtype": str(leaf.dtype),
            "mesh": dict(sharding.mesh.shape),
            "partition_spec": list(sharding.spec),
            "shard_shape": list(sharding.shard_shape(leaf.shape)),
        }
    return out


def stack_info(features: dict[str, embedding_spec.FeatureSpec]) -> list[dict[str, Any]]:
    out = []
    for name, s in embedding.get_stacked_table_specs(features).items():
        tables = sorted(
            {
                f.table_spec.name: f.table_spec
                for f in features.values()
                if f.table_spec.stacked_table_spec.stack_name == name
            }.values(),
            key=lambda t: t.setting_in_stack.row_offset_in_shard,
        )
        out.append(
            {
                "stack_name": name,
                "stack_vocab_size": s.stack_vocab_size,
                "stack_embedding_dim": s.stack_embedding_dim,
                "optimizer": type(s.optimizer).__name__,
                "slot_names": list(s.optimizer.slot_variables_initializers()._fields),
                "tables": [
                    {
                        "name": t.name,
                        "vocabulary_size": t.vocabulary_size,
                        "embedding_dim": t.embedding_dim,
                        "padded_vocab_size": t.setting_in_stack.padded_vocab_size,
                        "padded_embedding_dim": t.setting_in_stack.padded_embedding_dim,
                        "row_offset_in_shard": t.setting_in_stack.row_offset_in_shard,
                        "shard_rotation": t.setting_in_stack.shard_rotation,
                    }
                    for t in tables
                ],
            }
        )
    return out


def tree_metadata_record(tree_md: Any) -> dict[str, Any]:
    """Orbax's TreeMetadata as plain JSON: the arrays and the non-array (None) leaves."""
    arrays: dict[str, Any] = {}
    others: dict[str, Any] = {}
    tree = tree_md.tree if hasattr(tree_md, "tree") else tree_md
    leaves = jax.tree_util.tree_flatten_with_path(tree, is_leaf=lambda x: x is None)[0]
    for path, leaf in leaves:
        key = key_str(path)
        if leaf is None:
            others[key] = None
            continue
        sharding = leaf.sharding
        arrays[key] = {
            "key_path": [_key_name(k) for k in path],
            "shape": list(leaf.shape),
            "dtype": str(np.dtype(leaf.dtype)),
            "sharding": {
                "type": type(sharding).__name__,
                "mesh_shape": [int(n) for n in sharding.shape],
                "axis_names": list(sharding.axis_names),
                "partition_spec": list(sharding.partition_spec),
            },
            "write_shape": list(leaf.storage.write_shape),
            "chunk_shape": list(leaf.storage.chunk_shape),
        }
    return {"arrays": arrays, "none_leaves": others}


def ocdbt_record(item_dir: Path) -> dict[str, Any]:
    """The item's OCDBT keys and each array's decoded zarr .zarray (read with tensorstore)."""
    kv = ts.KvStore.open({"driver": "ocdbt", "base": f"file://{item_dir}"}).result()
    keys = sorted(k.decode() for k in kv.list().result())
    zarrays = {}
    for k in keys:
        if k.endswith("/.zarray"):
            zarrays[k] = json.loads(kv.read(k).result().value)
    return {"keys": keys, "zarray": zarrays}


def files_record(root: Path) -> list[dict[str, Any]]:
    return [
        {"path": str(p.relative_to(root)), "bytes": p.stat().st_size}
        for p in sorted(root.rglob("*"))
        if p.is_file()
    ]


def check_restore(item_dir_or_mgr: Any, tree: Any, restore: Any) -> None:
    """The fixture must restore into the library's own variables (Orbax round trip)."""
    abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, tree)
    restored = restore(abstract)
    for a, b in zip(jax.tree.leaves(tree), jax.tree.leaves(restored), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        assert a.sharding == b.sharding, (a.sharding, b.sharding)


def build_manager_case(
    out: Path,
    name: str,
    optimizer: embedding_spec.OptimizerSpec,
    step: int,
    mesh: jax.sharding.Mesh,
) -> dict[str, Any]:
    features = make_features(optimizer)
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(AXIS, None))
    variables = make_variables(features, sharding)
    proto = embedding.create_proto_from_feature_specs(features, NUM_DEVICES, NUM_SC_PER_DEVICE)
    case = out / name
    shutil.rmtree(case, ignore_errors=True)
    root = case / "ckpt"
    handlers = {
        "params": ocp.StandardCheckpointHandler(),
        "embedding_spec": ocp.ProtoCheckpointHandler(filename="embedding_spec.pbtxt"),
    }
    options = ocp.CheckpointManagerOptions(enable_async_checkpointing=False)
    with ocp.CheckpointManager(root, item_handlers=handlers, options=options) as mgr:
        mgr.save(
            step,
            args=ocp.args.Composite(
                params=ocp.args.StandardSave(variables), embedding_spec=ocp.args.ProtoSave(proto)
            ),
        )
        mgr.wait_until_finished()
    with ocp.CheckpointManager(
        root,
        item_handlers={
            "params": ocp.StandardCheckpointHandler(),
            "embedding_spec": ocp.ProtoCheckpointHandler(filename="embedding_spec.pbtxt"),
        },
        options=options,
    ) as mgr:
        assert mgr.all_steps() == [step], mgr.all_steps()
        step_md = mgr.metadata(step)
        item_md = mgr.item_metadata(step)
        check_restore(
            mgr,
            variables,
            lambda abstract: (
                mgr.restore(
                    step, args=ocp.args.Composite(params=ocp.args.StandardRestore(abstract))
                ).params
            ),
        )
        restored_proto = mgr.restore(
            step,
            args=ocp.args.Composite(embedding_spec=ocp.args.ProtoRestore(type(proto))),
        ).embedding_spec
        assert restored_proto == proto
    step_dir = root / str(step)
    expected = {
        "case": name,
        "writer": "ocp.CheckpointManager",
        "step_dir": f"ckpt/{step}",
        "step": step,
        "item_handlers": step_md.item_handlers,
        "items": {
            "params": {
                "handler": "StandardCheckpointHandler",
                "metadata_api": f"CheckpointManager({root.name!r}).item_metadata({step})['params']",
                **tree_metadata_record(item_md["params"]),
                "ocdbt": ocdbt_record(step_dir / "params"),
            },
            "embedding_spec": {
                "handler": "ProtoCheckpointHandler",
                "metadata_api": (
                    f"CheckpointManager({root.name!r}).item_metadata({step})['embedding_spec']"
                ),
                "item_metadata": item_md["embedding_spec"],
                "file": "embedding_spec/embedding_spec.pbtxt",
                "proto": (
                    "jax_tpu_embedding.sparsecore.lib.proto.embedding_spec_pb2.EmbeddingSpecProto"
                    " (text format)"
                ),
            },
        },
        "saved": {"params": saved_arrays(variables)},
        "library": {
            "stacks": stack_info(features),
            "num_sc_per_device": NUM_SC_PER_DEVICE,
            "devices": NUM_DEVICES,
        },
    }
    return finish_case(case, expected)


def build_standard_case(
    out: Path, name: str, optimizer: embedding_spec.OptimizerSpec, mesh: jax.sharding.Mesh
) -> dict[str, Any]:
    features = make_features(optimizer)
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(AXIS, None))
    variables = make_variables(features, sharding)
    case = out / name
    shutil.rmtree(case, ignore_errors=True)
    case.mkdir(parents=True)
    ckpt = case / "ckpt"
    with ocp.StandardCheckpointer() as checkpointer:
        checkpointer.save(ckpt, variables)
        checkpointer.wait_until_finished()
    with ocp.StandardCheckpointer() as checkpointer:
        step_md = checkpointer.metadata(ckpt)
        check_restore(ckpt, variables, lambda abstract: checkpointer.restore(ckpt, abstract))
    expected = {
        "case": name,
        "writer": "ocp.StandardCheckpointer",
        "step_dir": "ckpt",
        "step": None,
        "item_handlers": step_md.item_handlers,
        "items": {
            # A bare StandardCheckpointer directory is one item living at the step directory itself.
            None: {
                "handler": "StandardCheckpointHandler",
                "metadata_api": "ocp.StandardCheckpointer().metadata('ckpt').item_metadata",
                **tree_metadata_record(step_md.item_metadata),
                "ocdbt": ocdbt_record(ckpt),
            }
        },
        "saved": {None: saved_arrays(variables)},
        "library": {
            "stacks": stack_info(features),
            "num_sc_per_device": NUM_SC_PER_DEVICE,
            "devices": NUM_DEVICES,
        },
    }
    return finish_case(case, expected)


def finish_case(case: Path, expected: dict[str, Any]) -> dict[str, Any]:
    # The JSON must say the same thing the library handed Orbax: same shape, dtype and spec.
    for item, saved in expected["saved"].items():
        read = expected["items"][item]["arrays"]
        assert set(saved) == set(read), (saved.keys(), read.keys())
        for key, s in saved.items():
            r = read[key]
            assert (s["shape"], s["dtype"]) == (r["shape"], r["dtype"]), (key, s, r)
            assert s["shard_shape"] == r["write_shape"], (key, s, r)
            assert s["partition_spec"] == r["sharding"]["partition_spec"], (key, s, r)
    expected["files"] = files_record(case / "ckpt")
    # JSON keys must be strings: the bare StandardCheckpointer item is spelt "" (no item directory).
    expected["items"] = {("" if k is None else k): v for k, v in expected["items"].items()}
    expected["saved"] = {("" if k is None else k): v for k, v in expected["saved"].items()}
    plain = json.dumps(expected, indent=1, default=_json_scalar)
    # Lists of scalars on one line: shapes and key paths read as [768, 16], not one number a line.
    text = re.sub(
        r"\[\s*([^\[\]{}]*?)\s*\]",
        lambda m: "[" + re.sub(r"\s*\n\s*", " ", m.group(1)) + "]",
        plain,
    )
    assert json.loads(text) == json.loads(plain)
    (case / "expected.json").write_text(text + "\n")
    return expected


def _json_scalar(o: Any) -> Any:
    # The library's specs carry numpy integers (e.g. total_sample_count from np.prod).
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(f"not JSON serializable: {o!r}")


def versions() -> dict[str, str]:
    return {
        d: importlib.metadata.version(d)
        for d in (
            "jax",
            "jaxlib",
            "jax-tpu-embedding",
            "orbax-checkpoint",
            "tensorstore",
            "numpy",
            "protobuf",
        )
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE)
    out = parser.parse_args().out.resolve()
    assert jax.device_count() == NUM_DEVICES, jax.devices()
    mesh = jax.sharding.Mesh(jax.devices(), [AXIS])
    cases = [
        build_manager_case(
            out,
            "adagrad_manager",
            embedding_spec.AdagradOptimizerSpec(learning_rate=0.1),
            100,
            mesh,
        ),
        build_manager_case(
            out, "adam_manager", embedding_spec.AdamOptimizerSpec(learning_rate=0.01), 7, mesh
        ),
        build_standard_case(
            out, "sgd_standard", embedding_spec.SGDOptimizerSpec(learning_rate=0.1), mesh
        ),
    ]
    write_readme(out / "README.md", cases, versions())


LIBRARY_CALLS = """\
    init = jax.nn.initializers.truncated_normal(stddev=0.02)
    user = TableSpec(name="user", vocabulary_size=300, embedding_dim=16, initializer=init,
                     optimizer=OPTIMIZER, combiner="sum")
    item = TableSpec(name="item", vocabulary_size=200, embedding_dim=12, initializer=init,
                     optimizer=OPTIMIZER, combiner="sum")
    features = {
        "user_id": FeatureSpec(name="user_id", table_spec=user,
                               input_shape=[64, 1], output_shape=[64, 16]),
        "item_id": FeatureSpec(name="item_id", table_spec=item,
                               input_shape=[64, 1], output_shape=[64, 12]),
    }
    table_stacking.stack_tables(features, ["user", "item"],
                                global_device_count=8, num_sc_per_device=4)
    embedding.prepare_feature_specs_for_training(features,
                                                 global_device_count=8, num_sc_per_device=4)
    mesh = Mesh(jax.devices(), ["sparsecore_sharding"])
    sharding = NamedSharding(mesh, PartitionSpec("sparsecore_sharding", None))
    variables = embedding.init_embedding_variables(
        jax.random.key(0), {n: f.table_spec for n, f in features.items()}, sharding,
        num_sparsecore_per_device=4)
    # -> {"user_item": EmbeddingVariables(table=Array, slot=<Optimizer>SlotVariables(...))}
"""

MANAGER_SAVE = """\
    proto = embedding.create_proto_from_feature_specs(features, 8, 4)
    mgr = ocp.CheckpointManager("ckpt", item_handlers={
        "params": ocp.StandardCheckpointHandler(),
        "embedding_spec": ocp.ProtoCheckpointHandler(filename="embedding_spec.pbtxt")},
        options=ocp.CheckpointManagerOptions(enable_async_checkpointing=False))
    mgr.save(STEP, args=ocp.args.Composite(params=ocp.args.StandardSave(variables),
                                           embedding_spec=ocp.args.ProtoSave(proto)))
"""

STANDARD_SAVE = """\
    ocp.StandardCheckpointer().save("ckpt", variables)
"""

FINDINGS = """\
## The on-disk layout as Orbax 0.12.8 actually writes it

What a pure-Python reader has to know, checked on these fixtures (compare with issue 39's
description):

1. **The global shape and the dtype are in none of the JSON files.** `_METADATA` has, per array,
   only `value_type` ("jax.Array"), `skip_deserialize` and `write_shape` (one device's shard,
   here `[96, 16]` of a `(768, 16)` stack); `_sharding` has the mesh and partition spec;
   `array_metadatas/process_0` has `write_shape` and `chunk_shape` again. The global `shape` and
   the `dtype` (zarr spelling, `"<f4"`) live only in the zarr v2 `.zarray` record of each array,
   *inside the OCDBT key-value store* (key `user_item.table/.zarray`). Orbax's own metadata API
   (`item_metadata`, `metadata`) reads them from there through tensorstore. A reader without
   tensorstore either walks the OCDBT manifest and b-tree to get `.zarray` (the manifest and the
   b-tree node files in `d/` start with the OCDBT magic `0c db` and a header, then a zstd frame
   `28 b5 2f fd`; the `d/` files that hold chunk values are bare zstd frames, the zarr-compressed
   chunks), or derives the global shape from `write_shape` x the mesh axis sizes of the partition
   spec (here 96 x 8 = 768) and gets no dtype at all.
2. **Two OCDBT stores per item, not one.** Each process writes its own `ocdbt.process_0/`
   (`manifest.ocdbt` + `d/*`); the item's top-level `manifest.ocdbt` + `d/<one file>` is a
   merged root, and that is what Orbax opens. Small values such as `.zarray` are inlined in the
   root's b-tree node (they still read back with `ocdbt.process_0/` removed); the chunk values
   are references into `ocdbt.process_0/d/` (with that directory removed they read back empty).
   Both roots list the same keys (`expected.json` -> `items.<item>.ocdbt.keys`). Chunk keys are
   `<param>/<i>.0` (zarr `dimension_separator` "."), one chunk per device shard (`chunks` =
   `write_shape`), each zstd-compressed (zarr compressor `{"id": "zstd", "level": 1}`).
3. **`_sharding` is keyed by base64 of the dot-joined parameter name**, not of the tuple string
   used in `_METADATA`: `dXNlcl9pdGVtLnRhYmxl` = base64(`user_item.table`). Each value is itself
   a JSON *string* (double-encoded) with `sharding_type` "NamedSharding", `shape` (mesh axis
   sizes, a list in axis order), `axis_names`, `axis_types` (`"AxisType.Auto"`),
   `partition_spec` (`["sparsecore_sharding", null]`) and `device_mesh` (device ids). The same
   dotted name is the OCDBT key prefix and the `param_name` in `array_metadatas/process_0`.
4. **The library's NamedTuples are saved as dict keys.** `EmbeddingVariables(table, slot)` and
   `AdagradSlotVariables(accumulator)` / `AdamSlotVariables(momentum, velocity)` become keys
   `('user_item', 'table')`, `('user_item', 'slot', 'accumulator')`, with every `key_type` 2
   (DICT); nothing on disk records that they were NamedTuples or which optimizer made them, only
   the slot names.
5. **SGD's empty slot** (`SGDSlotVariables()`, an empty NamedTuple) is written as the key
   `('user_item', 'slot')` with `{"value_type": "None", "skip_deserialize": true}` and no
   `write_shape`; it has no `_sharding` entry, no `array_metadatas` entry and no OCDBT keys.
   Orbax's metadata API reports it as a `None` leaf (`expected.json` -> `none_leaves`).
6. **`_CHECKPOINT_METADATA`** is at the step directory: `item_handlers` is a dict item ->
   handler class path for a CheckpointManager step and a bare string for a StandardCheckpointer
   directory (as the issue says); it also carries `metrics`, `performance_metrics`,
   `init_timestamp_nsecs`, `commit_timestamp_nsecs`, `custom_metadata`. The manager writes
   nothing at its root (`ckpt/` holds only the step directory).
7. **`commit_success.txt`** is written at the step directory and in every item directory, even
   on a local file system. Its text holds the absolute path at write time (the item ones point
   at the temporary `<step>.orbax-checkpoint-tmp/<item>` directory), so these fixtures contain
   the path of the machine that made them; a reader must not rely on it.
8. **The `embedding_spec` item** (ProtoCheckpointHandler) is a text-format `EmbeddingSpecProto`
   in `embedding_spec/embedding_spec.pbtxt` (the filename is the handler's constructor argument;
   the default is `proto.pbtxt`); Orbax's `item_metadata` for it is `None`.
9. `_METADATA` also has `store_array_data_equal_to_fill_value: true` and `custom_metadata:
   null`; `.zarray` has `fill_value: null`.
10. **The `d/` files are not reproducible.** Their names are random and their number varies from
   run to run (how tensorstore batches values into data files depends on timing: the same
   Adagrad case has come out with 4 and with 6 files under `ocdbt.process_0/d/`). A reader must
   go through the manifest; the JSON files (but for the timestamps and
   commit_success.txt paths), the OCDBT keys and the array values are stable.
"""


PARAGRAPH_ITEMS = (
    "Each case directory holds `ckpt/` (what Orbax wrote) and `expected.json`: per item, per "
    "array, the key path, global `shape`, `dtype`, sharding (mesh shape, axis names, "
    "partition spec), `write_shape` and `chunk_shape` *as Orbax's own metadata API reads them"
    " back* (`CheckpointManager.item_metadata(step)` / "
    "`StandardCheckpointer().metadata(path).item_metadata`), the non-array (`None`) leaves, "
    "the OCDBT keys and decoded `.zarray` records (read with tensorstore), `saved` (what the "
    "library handed Orbax: the jax.Array shapes, dtypes, specs, shard shapes; the script "
    "asserts they equal what Orbax reads back), `library` (the stack and table specs), the "
    "step's `item_handlers` and the list of files with sizes. Every case is also restored "
    "with Orbax into the library's variables and compared array by array before it is kept."
)
PARAGRAPH_COMMON = (
    "Common to all cases: 8 CPU devices, `num_sc_per_device=4` given explicitly (the library "
    "raises `Unknown sparsecore count for device kind: cpu` otherwise; 4 is its value for TPU"
    " v5/v5p), so 32 SparseCores; vocabularies are padded to a multiple of 8 x 32 = 256 rows "
    "and dimensions to a multiple of 8. Library calls (OPTIMIZER is the case's):"
)


def write_readme(path: Path, cases: list[dict[str, Any]], vers: dict[str, str]) -> None:
    lines = [
        "# Orbax checkpoint fixtures (oracle for issue 39)",
        "",
        "Written by `make_fixtures.py` (this directory) with the library and Orbax themselves;",
        "regenerate with",
        "",
        "    XLA_FLAGS=--xla_force_host_platform_device_count=8 JAX_PLATFORMS=cpu \\",
        "        build/venv-jax/bin/python tests/data/orbax/make_fixtures.py",
        "",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in vers.items()) + ".",
        "",
        *textwrap.wrap(PARAGRAPH_ITEMS, width=100),
        "",
        *textwrap.wrap(PARAGRAPH_COMMON, width=100),
        "",
        LIBRARY_CALLS.rstrip("\n"),
        "",
    ]
    total = 0
    for case in cases:
        name = case["case"]
        size = sum(f["bytes"] for f in case["files"])
        total += size
        lines += [f"## `{name}/`", ""]
        lines += [f"Writer: `{case['writer']}`; step directory `{name}/{case['step_dir']}`.", ""]
        save = (
            MANAGER_SAVE.replace("STEP", str(case["step"]))
            if case["step"] is not None
            else STANDARD_SAVE
        )
        lines += [save.rstrip("\n"), ""]
        for stack in case["library"]["stacks"]:
            slots = (
                ", ".join(f"`{s}`" for s in stack["slot_names"])
                or "none (empty `SGDSlotVariables()`)"
            )
            lines += [
                f"Stack `{stack['stack_name']}`: {stack['stack_vocab_size']} x "
                f"{stack['stack_embedding_dim']}, optimizer `{stack['optimizer']}`, "
                f"slots: {slots}.",
                "",
                "| table | vocabulary_size | padded_vocab_size | embedding_dim "
                "| padded_embedding_dim | row_offset_in_shard | shard_rotation |",
                "|---|---|---|---|---|---|---|",
            ]
            for t in stack["tables"]:
                lines.append(
                    f"| {t['name']} | {t['vocabulary_size']} | {t['padded_vocab_size']} "
                    f"| {t['embedding_dim']} | {t['padded_embedding_dim']} "
                    f"| {t['row_offset_in_shard']} | {t['shard_rotation']} |"
                )
            lines.append("")
        for item, rec in case["items"].items():
            label = f"item `{item}`" if item else "the checkpoint (one item, no item directory)"
            lines += [
                f"Arrays of {label} (handler `{rec['handler']}`; `{rec['metadata_api']}`):",
                "",
            ]
            if "arrays" not in rec:
                lines += [
                    f"not arrays: `{rec['file']}`, {rec['proto']}; "
                    f"item metadata: `{rec['item_metadata']}`.",
                    "",
                ]
                continue
            lines += [
                "| key | global shape | dtype | mesh | partition spec | write_shape |",
                "|---|---|---|---|---|---|",
            ]
            for key, a in rec["arrays"].items():
                mesh = dict(
                    zip(a["sharding"]["axis_names"], a["sharding"]["mesh_shape"], strict=True)
                )
                lines.append(
                    f"| `{key}` | {tuple(a['shape'])} | {a['dtype']} | {mesh} "
                    f"| {tuple(a['sharding']['partition_spec'])} | {tuple(a['write_shape'])} |"
                )
            for key in rec["none_leaves"]:
                lines.append(f"| `{key}` | None leaf (`skip_deserialize`) | | | | |")
            lines.append("")
        lines += [
            f"Files under `{name}/ckpt/` ({size:,} bytes in all):",
            "",
            "| file | bytes |",
            "|---|---|",
        ]
        lines += [f"| `{f['path']}` | {f['bytes']:,} |" for f in case["files"]]
        lines.append("")
    lines += [f"Total of the three checkpoints: {total:,} bytes.", "", FINDINGS.rstrip("\n"), ""]
    path.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
