"""Write the Orbax checkpoint oracle fixtures under tests/data/orbax/ (issue 39).

Run with the oracle environment (jax, jax-tpu-embedding, orbax-checkpoint, tensorstore):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 JAX_PLATFORMS=cpu \
        build/venv-jax/bin/python tests/data/orbax/make_fixtures.py

Cases `linen_manager`, `nnx_manager` and `jit_manager` hold the same stacks inside a model's tree,
as the library's Linen layer, its NNX layer (saved as 0.2.0's `save_checkpoint` does) and its
Shakespeare jit example write them; `keras_cpu_manager` and `keras_sparsecore_manager` what
Keras-RS's JaxKeras3CheckpointManager writes (they need keras-rs: run in build/venv-keras with
KERAS_BACKEND=jax and `--only keras_cpu_manager keras_sparsecore_manager`; without `--only` the
script builds the other cases). `--only NAME...` rebuilds some cases and leaves the others.

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
# Every case, in README order.
CASES = (
    "adagrad_manager",
    "adam_manager",
    "sgd_standard",
    "linen_manager",
    "nnx_manager",
    "jit_manager",
    "keras_cpu_manager",
    "keras_sparsecore_manager",
)
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
    """What was handed to Orbax: every jax.Array leaf with its global shape, dtype and sharding
    (a model's dense parameters and step counters sit on one device: no mesh, no spec)."""
    out: dict[str, Any] = {}
    for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
        sharding = leaf.sharding
        named = isinstance(sharding, jax.sharding.NamedSharding)
        out[key_str(path)] = {
            "shape": list(leaf.shape),
            "dtype": str(leaf.dtype),
            "mesh": dict(sharding.mesh.shape) if named else None,
            "partition_spec": list(sharding.spec) if named else None,
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
        named = hasattr(sharding, "axis_names")
        arrays[key] = {
            "key_path": [_key_name(k) for k in path],
            "shape": list(leaf.shape),
            "dtype": str(np.dtype(leaf.dtype)),
            "sharding": {
                "type": type(sharding).__name__,
                "mesh_shape": [int(n) for n in sharding.shape] if named else None,
                "axis_names": list(sharding.axis_names) if named else None,
                "partition_spec": list(sharding.partition_spec) if named else None,
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


def _linen_params(features: dict[str, Any], mesh: jax.sharding.Mesh) -> Any:
    """The params of a Linen model holding the library's own Linen layer
    (lib/flax/linen/embed.py `SparseCoreEmbed`, as the Shakespeare flax_model.py uses it) and a
    dense layer, from `Model.init`. The layer asks the device for its SparseCore count, which a
    CPU has none of (`Unknown sparsecore count for device kind: cpu`), so its module's
    `utils.num_sparsecores_per_device` answers NUM_SC_PER_DEVICE; nothing else is changed. The
    init only reads the layer's `embedding_table` (its `setup` creates the param with
    `init_embedding_variables`), since a lookup needs a TPU."""
    import jax.numpy as jnp
    from jax_tpu_embedding.sparsecore.lib.flax.linen import embed as linen_embed

    nn: Any = importlib.import_module("flax.linen")

    linen_embed.utils.num_sparsecores_per_device = lambda *_a, **_k: NUM_SC_PER_DEVICE

    class Model(nn.Module):  # type: ignore[misc]
        @nn.compact  # type: ignore[untyped-decorator]
        def __call__(self, x: Any) -> Any:
            layer = linen_embed.SparseCoreEmbed(
                feature_specs=features, mesh=mesh, sharding_axis=AXIS
            )
            return nn.Dense(8)(x), layer.embedding_table

    return Model().init(jax.random.key(0), jnp.zeros((4, 16)))


def _nnx_model(features: dict[str, Any], mesh: jax.sharding.Mesh) -> tuple[Any, Any]:
    """An NNX model holding the library's own NNX layer (lib/flax/nnx/embed.py
    `SparseCoreEmbed`) and an `nnx.Linear`, and an `nnx.Optimizer` (optax Adam) over the dense
    parameters only (`embed.is_non_embedding_variables`, as the library's NNX example filters
    them): 0.2.0's `checkpoint_utils.save_checkpoint` saves `nnx.state(model)` and
    `nnx.state(optimizer, nnx.OptState)`. Same SparseCore-count patch as the Linen layer."""
    from jax_tpu_embedding.sparsecore.lib.flax.nnx import embed as nnx_embed

    optax: Any = importlib.import_module("optax")
    nnx: Any = importlib.import_module("flax.nnx")

    nnx_embed.utils.num_sparsecores_per_device = lambda *_a, **_k: NUM_SC_PER_DEVICE

    class Model(nnx.Module):  # type: ignore[misc]
        def __init__(self, rngs: nnx.Rngs) -> None:
            self.embedding_layer = nnx_embed.SparseCoreEmbed(features, AXIS, mesh, rngs)
            self.dense = nnx.Linear(16, 8, rngs=rngs)

    model = Model(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx_embed.is_non_embedding_variables)
    return nnx.state(model), nnx.state(optimizer, nnx.OptState)


def _jit_train_state() -> Any:
    """The Shakespeare jit example's `TrainState(params, opt_state)`: a dense Linen model's
    params and its optax Adam state (the embedding variables are an item of their own)."""
    import jax.numpy as jnp

    flax: Any = importlib.import_module("flax")
    optax: Any = importlib.import_module("optax")
    nn: Any = importlib.import_module("flax.linen")

    class TrainState:
        params: Any
        opt_state: Any

    state_class: Any = flax.struct.dataclass(TrainState)
    params = nn.Dense(8).init(jax.random.key(1), jnp.zeros((4, 16)))
    return state_class(params=params, opt_state=optax.adam(1e-3).init(params))


TREE_SAVES = {
    "linen_manager": """\
    params = Model().init(rng, x)   # Model: the library's linen SparseCoreEmbed + nn.Dense(8)
    mgr = ocp.CheckpointManager("ckpt", item_handlers={
        "params": ocp.StandardCheckpointHandler(),
        "embedding_spec": ocp.ProtoCheckpointHandler(filename="embedding_spec.pbtxt")}, ...)
    mgr.save(STEP, args=ocp.args.Composite(params=ocp.args.StandardSave(params),
                                           embedding_spec=ocp.args.ProtoSave(proto)))
""",
    "nnx_manager": """\
    # Model: the library's nnx SparseCoreEmbed + nnx.Linear(16, 8);
    # optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=embed.is_non_embedding_variables)
    # as 0.2.0's checkpoint_utils.create_checkpoint_manager + save_checkpoint write it:
    mgr = ocp.CheckpointManager("ckpt", options=..., handler_registry=registry)
    # registry: model, optimizer -> StandardCheckpointHandler; embedding_spec ->
    # ProtoCheckpointHandler() (default filename proto.pbtxt)
    mgr.save(STEP, args=ocp.args.Composite(model=ocp.args.StandardSave(nnx.state(model)),
        optimizer=ocp.args.StandardSave(nnx.state(optimizer, nnx.OptState)),
        embedding_spec=ocp.args.ProtoSave(proto)))
""",
    "jit_manager": """\
    # as examples/shakespeare/jax_sc_shakespeare_jit.py saves (items and handlers by name):
    mgr = ocp.CheckpointManager("ckpt", options=...)
    mgr.save(STEP, args=ocp.args.Composite(**{
        "train_state": ocp.args.PyTreeSave(train_state),   # TrainState(params, opt_state)
        "emb_variables": ocp.args.PyTreeSave(variables),
        "stacking_proto": ocp.args.ProtoSave(proto)}))     # default filename proto.pbtxt
""",
}


def build_tree_case(out: Path, name: str, step: int, mesh: jax.sharding.Mesh) -> dict[str, Any]:
    """The stacks inside a model's tree, as each of the library's ways of training saves them:
    `linen_manager` (Linen layer params), `nnx_manager` (0.2.0's NNX save_checkpoint items),
    `jit_manager` (the Shakespeare jit example's items)."""
    optimizer = embedding_spec.AdagradOptimizerSpec(learning_rate=0.1)
    features = make_features(optimizer)
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(AXIS, None))
    proto = embedding.create_proto_from_feature_specs(features, NUM_DEVICES, NUM_SC_PER_DEVICE)
    pytree: set[str] = set()
    if name == "linen_manager":
        items = {"params": _linen_params(features, mesh)}
        proto_item, proto_file = "embedding_spec", "embedding_spec.pbtxt"
        stacks_at = ["params", "params", "SparseCoreEmbed_0", "sc_embedding_variables", "value"]
    elif name == "nnx_manager":
        model, opt_state = _nnx_model(features, mesh)
        items = {"model": model, "optimizer": opt_state}
        proto_item, proto_file = "embedding_spec", "proto.pbtxt"
        stacks_at = ["model", "embedding_layer", "embedding_table", "value"]
    else:
        items = {
            "train_state": _jit_train_state(),
            "emb_variables": make_variables(features, sharding),
        }
        pytree = set(items)
        proto_item, proto_file = "stacking_proto", "proto.pbtxt"
        stacks_at = ["emb_variables"]

    def handlers() -> dict[str, Any]:
        out: dict[str, Any] = {
            n: ocp.PyTreeCheckpointHandler() if n in pytree else ocp.StandardCheckpointHandler()
            for n in items
        }
        out[proto_item] = ocp.ProtoCheckpointHandler(filename=proto_file)
        return out

    case = out / name
    shutil.rmtree(case, ignore_errors=True)
    root = case / "ckpt"
    options = ocp.CheckpointManagerOptions(enable_async_checkpointing=False)
    save = {
        n: ocp.args.PyTreeSave(v) if n in pytree else ocp.args.StandardSave(v)
        for n, v in items.items()
    }
    with ocp.CheckpointManager(root, item_handlers=handlers(), options=options) as mgr:
        mgr.save(step, args=ocp.args.Composite(**save, **{proto_item: ocp.args.ProtoSave(proto)}))
        mgr.wait_until_finished()
    with ocp.CheckpointManager(root, item_handlers=handlers(), options=options) as mgr:
        step_md = mgr.metadata(step)
        item_md = mgr.item_metadata(step)
        for n, tree in items.items():
            abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, tree)
            arg = (
                ocp.args.PyTreeRestore(
                    item=abstract,
                    restore_args=ocp.checkpoint_utils.construct_restore_args(abstract),
                )
                if n in pytree
                else ocp.args.StandardRestore(abstract)
            )
            restored = getattr(mgr.restore(step, args=ocp.args.Composite(**{n: arg})), n)
            for a, b in zip(jax.tree.leaves(tree), jax.tree.leaves(restored), strict=True):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        restored_proto = getattr(
            mgr.restore(
                step, args=ocp.args.Composite(**{proto_item: ocp.args.ProtoRestore(type(proto))})
            ),
            proto_item,
        )
        assert restored_proto == proto
    # Where the stacks are: the key path of every stack's table inside its item.
    stacks: Any = items
    for key in stacks_at:
        # A Linen box (`.value`) or an nnx.State / Variable (`["value"]`) on the way down.
        if key != "value":
            stacks = stacks[key]
        elif hasattr(stacks, "get_value"):  # an nnx.Variable
            stacks = stacks.get_value()
        else:  # the Linen box
            stacks = stacks.value
    step_dir = root / str(step)
    records: dict[str | None, Any] = {
        n: {
            "handler": type(handlers()[n]).__name__,
            "metadata_api": f"CheckpointManager({root.name!r}).item_metadata({step})[{n!r}]",
            **tree_metadata_record(item_md[n]),
            "ocdbt": ocdbt_record(step_dir / n),
        }
        for n in items
    }
    records[proto_item] = {
        "handler": "ProtoCheckpointHandler",
        "metadata_api": f"CheckpointManager({root.name!r}).item_metadata({step})[{proto_item!r}]",
        "item_metadata": item_md[proto_item],
        "file": f"{proto_item}/{proto_file}",
        "proto": (
            "jax_tpu_embedding.sparsecore.lib.proto.embedding_spec_pb2.EmbeddingSpecProto"
            " (text format)"
        ),
    }
    expected = {
        "case": name,
        "writer": "ocp.CheckpointManager",
        "step_dir": f"ckpt/{step}",
        "step": step,
        "item_handlers": step_md.item_handlers,
        "stacks_at": {
            "item": stacks_at[0],
            "key_path": stacks_at[1:],
            "stacks": {
                stack: {
                    "table": [*stacks_at, stack, "table"],
                    "slots": [[*stacks_at, stack, "slot", slot] for slot in variables.slot._fields],
                }
                for stack, variables in stacks.items()
            },
            "proto_item": proto_item,
            "proto_file": f"{proto_item}/{proto_file}",
        },
        "items": records,
        "saved": {n: saved_arrays(tree) for n, tree in items.items()},
        "library": {
            "stacks": stack_info(features),
            "num_sc_per_device": NUM_SC_PER_DEVICE,
            "devices": NUM_DEVICES,
        },
        "save_code": TREE_SAVES[name].replace("STEP", str(step)),
    }
    return finish_case(case, expected)


KERAS_SAVE = """\
    # KERAS_BACKEND=jax, in build/venv-keras (keras-rs, keras, jax, jax-tpu-embedding 0.1.0):
    user = TableConfig(name="user", vocabulary_size=100, embedding_dim=8,
                       optimizer=keras.optimizers.Adagrad(0.1))        # item: 60 x 8, the same
    features = {"user_id": FeatureConfig(name="user_id", table=user, input_shape=(64, 1),
                                         output_shape=(64, 8)), "item_id": ...}
    emb = keras_rs.layers.DistributedEmbedding(features, name="emb")
    outputs = emb({k: keras.Input(batch_shape=(64, 1), dtype="int32", name=k) for k in features})
    model = keras.Model(inputs, keras.layers.Dense(1, name="dense")(concatenated outputs))
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="mse")
    model.optimizer.build(model.trainable_variables)
    # keras_rs.src.layers.embedding.jax.checkpoint_utils:
    mgr = JaxKeras3CheckpointManager(model, "ckpt", max_to_keep=2)
    mgr.save_state(STEP)   # CheckpointManager.save(STEP, args=StandardSave(model.get_state_tree()
                           #   minus metrics_variables)): one unnamed item, `default`
"""


def build_keras_case(out: Path, name: str, step: int, sparsecore: bool) -> dict[str, Any]:
    """What Keras-RS's `JaxKeras3CheckpointManager` writes for a `DistributedEmbedding` under the
    JAX backend: on a CPU as it is (`keras_cpu_manager`: no SparseCore, so every table takes the
    `default_device` placement, an unstacked Keras embedding), and with the SparseCore path
    simulated (`keras_sparsecore_manager`: `_has_sparsecore` says yes and each device has
    NUM_SC_PER_DEVICE SparseCores, as tests/keras_probe.py does, with Keras's DataParallel
    distribution over the 8 devices), the stacked variables a TPU job writes. Needs keras-rs:
    run in build/venv-keras with `--only keras_cpu_manager keras_sparsecore_manager`."""
    os.environ.setdefault("KERAS_BACKEND", "jax")
    keras: Any = importlib.import_module("keras")
    keras_rs: Any = importlib.import_module("keras_rs")
    checkpoint_utils: Any = importlib.import_module(
        "keras_rs.src.layers.embedding.jax.checkpoint_utils"
    )
    if sparsecore:
        base: Any = importlib.import_module(
            "keras_rs.src.layers.embedding.base_distributed_embedding"
        )
        jax_layer: Any = importlib.import_module(
            "keras_rs.src.layers.embedding.jax.distributed_embedding"
        )
        base.DistributedEmbedding._has_sparsecore = lambda self: True
        jax_layer.jte_utils.num_sparsecores_per_device = lambda device=None: NUM_SC_PER_DEVICE
        keras.distribution.set_distribution(keras.distribution.DataParallel(devices=jax.devices()))
    keras.utils.set_random_seed(0)
    features = {}
    for table_name, vocabulary in (("user", 100), ("item", 60)):
        table = keras_rs.layers.TableConfig(
            name=table_name,
            vocabulary_size=vocabulary,
            embedding_dim=8,
            optimizer=keras.optimizers.Adagrad(0.1),
        )
        features[f"{table_name}_id"] = keras_rs.layers.FeatureConfig(
            name=f"{table_name}_id", table=table, input_shape=(BATCH, 1), output_shape=(BATCH, 8)
        )
    layer = keras_rs.layers.DistributedEmbedding(features, name="emb")
    inputs = {k: keras.Input(batch_shape=(BATCH, 1), dtype="int32", name=k) for k in features}
    outputs = layer(inputs)
    joined = keras.layers.Concatenate()([outputs["user_id"], outputs["item_id"]])
    model = keras.Model(inputs, keras.layers.Dense(1, name="dense")(joined))
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="mse")
    model.optimizer.build(model.trainable_variables)
    case = out / name
    shutil.rmtree(case, ignore_errors=True)
    root = case / "ckpt"
    manager = checkpoint_utils.JaxKeras3CheckpointManager(model, root, max_to_keep=2)
    manager.save_state(step)
    manager.wait_until_finished()
    state = {k: v for k, v in model.get_state_tree().items() if k != "metrics_variables"}
    manager.close()
    with ocp.CheckpointManager(root, item_handlers=ocp.StandardCheckpointHandler()) as reader:
        step_md = reader.metadata(step)
        item_md = reader.item_metadata(step)
        abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, state)
        restored = reader.restore(step, args=ocp.args.StandardRestore(abstract))
        for a, b in zip(jax.tree.leaves(state), jax.tree.leaves(restored), strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    weights = [[w.path, list(w.shape)] for w in layer.weights]
    expected = {
        "case": name,
        "writer": "keras_rs JaxKeras3CheckpointManager (ocp.CheckpointManager)",
        "step_dir": f"ckpt/{step}",
        "step": step,
        "item_handlers": step_md.item_handlers,
        "keras": {
            "placement": "sparsecore (simulated)" if sparsecore else "default_device",
            "layer_weights": weights,
            "embedding_spec": None,
        },
        "items": {
            "default": {
                "handler": "StandardCheckpointHandler",
                "metadata_api": f"CheckpointManager({root.name!r}).item_metadata({step})",
                **tree_metadata_record(item_md),
                "ocdbt": ocdbt_record(root / str(step) / "default"),
            }
        },
        "saved": {"default": saved_arrays(state)},
        "save_code": KERAS_SAVE.replace("STEP", str(step)),
        "versions": {
            d: importlib.metadata.version(d) for d in ("keras-rs", "keras", "orbax-checkpoint")
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
            assert s["partition_spec"] == r["sharding"]["partition_spec"], (key, s, r)
            if any(s["partition_spec"] or ()):
                assert s["shard_shape"] == r["write_shape"], (key, s, r)
            # A replicated array (Keras's DataParallel variables) is written in slices, one per
            # replica (Orbax's replica-parallel save): its write_shape is not its shard shape.
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
    parser.add_argument(
        "--only",
        nargs="*",
        choices=CASES,
        help="rebuild these cases only, none for the README alone (it is written from every "
        "case's expected.json)",
    )
    arguments = parser.parse_args()
    out = arguments.out.resolve()
    assert jax.device_count() == NUM_DEVICES, jax.devices()
    mesh = jax.sharding.Mesh(jax.devices(), [AXIS])
    builders = {
        "adagrad_manager": lambda: build_manager_case(
            out,
            "adagrad_manager",
            embedding_spec.AdagradOptimizerSpec(learning_rate=0.1),
            100,
            mesh,
        ),
        "adam_manager": lambda: build_manager_case(
            out, "adam_manager", embedding_spec.AdamOptimizerSpec(learning_rate=0.01), 7, mesh
        ),
        "sgd_standard": lambda: build_standard_case(
            out, "sgd_standard", embedding_spec.SGDOptimizerSpec(learning_rate=0.1), mesh
        ),
        "linen_manager": lambda: build_tree_case(out, "linen_manager", 3, mesh),
        "nnx_manager": lambda: build_tree_case(out, "nnx_manager", 5, mesh),
        "jit_manager": lambda: build_tree_case(out, "jit_manager", 9, mesh),
        "keras_cpu_manager": lambda: build_keras_case(out, "keras_cpu_manager", 2, False),
        "keras_sparsecore_manager": lambda: build_keras_case(
            out, "keras_sparsecore_manager", 4, True
        ),
    }
    assert list(builders) == list(CASES)
    # Without --only: every case this environment can build (the Keras ones need keras-rs).
    default = [n for n in CASES if not n.startswith("keras_")]
    for name in default if arguments.only is None else arguments.only:
        builders[name]()
    cases = [json.loads((out / name / "expected.json").read_text()) for name in CASES]
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

TREES = """\
## Where the stacks sit in a model's tree

Key paths as Orbax writes them in `_METADATA` (every key `key_type` 2, a dict key), for a stack
`S` (`expected.json` -> `stacks_at`: `item` and `key_path` down to the `{S: ...}` dict, and per
stack the item followed by the key path of its `table` and of each slot):

- the library's variables as an item (`adagrad_manager`, `adam_manager`): items `params`,
  `embedding_spec`; table `('S', 'table')` in `params`; layout
  `embedding_spec/embedding_spec.pbtxt`.
- a bare `StandardCheckpointer` directory (`sgd_standard`): one item at the directory;
  `('S', 'table')`; no layout.
- the Linen `SparseCoreEmbed` layer (`linen_manager`): items `params`, `embedding_spec`;
  `('params', 'SparseCoreEmbed_0', 'sc_embedding_variables', 'value', 'S', 'table')` in
  `params`; layout `embedding_spec/embedding_spec.pbtxt`.
- NNX as 0.2.0's `save_checkpoint` writes it (`nnx_manager`): items `model`, `optimizer`,
  `embedding_spec`; `('embedding_layer', 'embedding_table', 'value', 'S', 'table')` in `model`;
  layout `embedding_spec/proto.pbtxt`. Written here with 0.1.0's NNX layer and the items by
  hand; 0.2.0's own `create_checkpoint_manager` + `save_checkpoint` (Python 3.12, flax 0.12.12,
  the same model) write the same items, key paths and file, and a proto with each table's
  `combiner` and `optimizer` besides.
- the Shakespeare jit example (`jit_manager`): items `train_state`, `emb_variables`,
  `stacking_proto`; `('S', 'table')` in `emb_variables`; layout `stacking_proto/proto.pbtxt`.
- Keras-RS `DistributedEmbedding` with `JaxKeras3CheckpointManager.save_state`
  (`keras_cpu_manager`, `keras_sparsecore_manager`): one unnamed item, `default`, holding
  `model.get_state_tree()` (less `metrics_variables`); no layout item. On a CPU keras-rs finds no
  SparseCore and places every table on the default device: a plain Keras embedding per table,
  unstacked and unpadded, `('trainable_variables', 'emb', '<table>', 'embeddings')`, the
  TableConfig's optimizer ignored and the model's (Adam) making
  `('optimizer_variables', 'adam', 'emb_<table>_embeddings_momentum')`: no stack at all. With the
  SparseCore path (simulated), one flat key per variable, the stack name inside the key string:
  `('trainable_variables', 'emb', 'var:S:table')` and
  `('trainable_variables', 'emb', 'var:S:table:slot:<field>')`, on a mesh axis `sparsecore` (not
  `sparsecore_sharding`), and keras-rs names the stack `item_user` where
  `stack_tables(["user", "item"])` says `user_item`.

Slots are `(..., 'S', 'slot', '<field>')` beside `table` in every jax-tpu-embedding tree.
`value` is a key of its own: the Linen layer boxes its param in `WithSparseCoreLayout` (an
`nn.Partitioned`, whose field is `value`), and `nnx.state(model)` saves each `nnx.Variable` (the
layer's `EmbeddingVariablesParam` `embedding_table`, and `dense.kernel`) as a dict holding
`value`. The layer's attribute name (`embedding_layer` here, `SparseCoreEmbed_0` for an unnamed
Linen submodule) is the user's. The dense parameters and optimizer counters sit on one device
(`SingleDeviceSharding`, no mesh, `write_shape` = the shape). The item and proto-file names vary
with the writer: 0.2.0's `create_checkpoint_manager` registers a `ProtoCheckpointHandler()` with
the default filename `proto.pbtxt`, and the jit example names its items `train_state`,
`emb_variables` and `stacking_proto` (and restores `emb_variables` with a bare
`PyTreeRestore()`, no target: whatever shape was saved comes back, and a changed layout fails,
if at all, later in the jitted step).
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
11. **A replicated array is written in slices.** Keras's DataParallel variables (and, with the
   SparseCore path simulated on CPU, keras-rs's stacked table: partition spec `(None, None)` on
   the `sparsecore` axis) are saved one slice per replica (`keras_sparsecore_manager`: a
   `(512, 8)` table with `write_shape` `(64, 8)`, a `(16, 1)` kernel with `(2, 1)`), so the
   global shape is *not* `write_shape` x the mesh axes of the partition spec there; only
   `.zarray` says it.
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
        "and the Keras-RS ones (`make test-keras`'s environment) with",
        "",
        "    XLA_FLAGS=--xla_force_host_platform_device_count=8 JAX_PLATFORMS=cpu \\",
        "        KERAS_BACKEND=jax build/venv-keras/bin/python \\",
        "        tests/data/orbax/make_fixtures.py \\",
        "        --only keras_cpu_manager keras_sparsecore_manager",
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
        save = case.get("save_code") or (
            MANAGER_SAVE.replace("STEP", str(case["step"]))
            if case["step"] is not None
            else STANDARD_SAVE
        )
        lines += [save.rstrip("\n"), ""]
        if "stacks_at" in case:
            at = case["stacks_at"]
            lines += [
                f"Stacks at: item `{at['item']}`, key path `{tuple(at['key_path'])}`; the "
                f"layout in item `{at['proto_item']}` (`{at['proto_file']}`).",
                "",
            ]
        if "keras" in case:
            k = case["keras"]
            weights = ", ".join(f"`{path}` {tuple(shape)}" for path, shape in k["layer_weights"])
            lines += [
                f"Placement: {k['placement']}; the layer's weights: {weights}; no "
                "EmbeddingSpecProto item. Written with "
                + ", ".join(f"{d} {v}" for d, v in case.get("versions", {}).items())
                + ".",
                "",
            ]
        for stack in case.get("library", {}).get("stacks", []):
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
                sharding = a["sharding"]
                if sharding["axis_names"] is None:
                    mesh, spec = f"({sharding['type']})", "-"
                else:
                    mesh = str(
                        dict(zip(sharding["axis_names"], sharding["mesh_shape"], strict=True))
                    )
                    spec = str(tuple(sharding["partition_spec"]))
                lines.append(
                    f"| `{key}` | {tuple(a['shape'])} | {a['dtype']} | {mesh} "
                    f"| {spec} | {tuple(a['write_shape'])} |"
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
    lines += [f"Total of the {len(cases)} checkpoints: {total:,} bytes.", ""]
    lines += [TREES.rstrip("\n"), "", FINDINGS.rstrip("\n"), ""]
    path.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
