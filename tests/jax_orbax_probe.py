"""Run by tests/test_jax_orbax_oracle.py in a subprocess (``python -m tests.jax_orbax_probe OUT
CASE...``), since the oracle needs 8 CPU devices and the test process may have started JAX with
one: for each case of tests/jax_orbax_cases.py, writes under OUT/<case>/ a REAL Orbax checkpoint of
jax-tpu-embedding's stacked variables under the OLD layout (known values per table and slot,
stacked by the library, sharded over a Mesh of the layout's devices with
PartitionSpec('sparsecore_sharding', None)) and NEW's EmbeddingSpecProto in text, then restores
the checkpoint with Orbax into NEW's abstract tree and prints one JSON line: what Orbax did
(`error` and its message, or for each stack whether every table's and slot's rows are where
NEW's proto reads them), and the paths the CLI is to be given.

A table's rows are "right" when the rows and columns the old and the new table share hold the
table's original values (a table grown or shrunk within its padding keeps them; docs/jax.md calls
that a training change); a table or slot the checkpoint did not hold (a renamed table, a slot of
another optimizer) has no original values, so whatever it restores is wrong.
"""

from __future__ import annotations

import json
import os
import sys
import zlib
from pathlib import Path
from typing import Any

from tests.jax_orbax_cases import BY_NAME, Case, Layout

AXIS = "sparsecore_sharding"
BATCH = 64
STEP = 100
NUM_DEVICES = 8
DEFAULT_ACTIVATION_MEM_BYTES_LIMIT = 2048 * 1024


def _optimizers() -> dict[str, Any]:
    from jax_tpu_embedding.sparsecore.lib.nn import embedding_spec as es

    return {
        "sgd": es.SGDOptimizerSpec(learning_rate=0.1),
        "adagrad": es.AdagradOptimizerSpec(learning_rate=0.1),
        "adagrad_lr": es.AdagradOptimizerSpec(learning_rate=0.05),
        "adam": es.AdamOptimizerSpec(learning_rate=0.01),
        "ftrl": es.FTRLOptimizerSpec(learning_rate=0.1),
        "adagrad_momentum": es.AdagradMomentumOptimizerSpec(learning_rate=0.1),
        "laprop": es.LaPropOptimizerSpec(learning_rate=0.01),
    }


# 0.2.0's OptimizerSpecProto.OptimizerType per optimizer (LaProp has no number: CUSTOM).
PROTO_TYPE = {
    "sgd": "SGD",
    "adagrad": "ADAGRAD",
    "adagrad_lr": "ADAGRAD",
    "adam": "ADAM",
    "ftrl": "FTRL",
    "adagrad_momentum": "ADAGRAD_MOMENTUM",
    "laprop": "CUSTOM",
}


def features(layout: Layout) -> dict[str, Any]:
    """The layout's FeatureSpecs, stacked as a training script does."""
    import jax.numpy as jnp
    from jax_tpu_embedding.sparsecore.lib.nn import embedding, table_stacking
    from jax_tpu_embedding.sparsecore.lib.nn import embedding_spec as es

    optimizer = _optimizers()[layout.optimizer]
    out = {}
    for t in layout.tables:
        extra = {"max_ids_per_partition": t.max_ids} if t.max_ids else {}
        table = es.TableSpec(
            name=t.name,
            vocabulary_size=t.vocab,
            embedding_dim=t.dim,
            initializer=lambda key, shape, dtype=jnp.float32: jnp.zeros(shape, dtype),
            optimizer=optimizer,
            combiner="sum",
            **extra,
        )
        out[f"{t.name}_id"] = es.FeatureSpec(
            name=f"{t.name}_id",
            table_spec=table,
            input_shape=[BATCH, 1],
            output_shape=[BATCH, t.dim],
        )
    for i, group in enumerate(layout.groups):
        name = layout.names[i] if i < len(layout.names) else None
        table_stacking.stack_tables(
            out,
            list(group),
            global_device_count=layout.devices,
            num_sc_per_device=layout.cores,
            rotation=layout.rotation,
            stack_name=name,
        )
    embedding.prepare_feature_specs_for_training(
        out, global_device_count=layout.devices, num_sc_per_device=layout.cores
    )
    return out


def proto_of(layout: Layout) -> Any:
    from jax_tpu_embedding.sparsecore.lib.nn import embedding

    return embedding.create_proto_from_feature_specs(features(layout), layout.devices, layout.cores)


SPEC_HEADER = "# proto-message: tpuemb.spec.EmbeddingSpec\n"


def proto_text(layout: Layout, fmt: str) -> str:
    """NEW as text: the library's (0.1.0) proto, or as 0.2.0 writes it, with each table's
    combiner and optimizer and each stack's activation limit (tpuemb's field-for-field mirror of
    0.2.0's schema), or a tpuemb spec (`spec_from_jax` of the same feature specs)."""
    from google.protobuf import text_format

    if fmt == "spec":
        # A tpuemb spec with a `jax` section, read off the library's own prepared features.
        from tpuemb_cli.jax import spec_from_jax

        spec = spec_from_jax(
            features(layout), global_device_count=layout.devices, num_sc_per_device=layout.cores
        )
        return SPEC_HEADER + text_format.MessageToString(spec)
    proto = proto_of(layout)
    text = text_format.MessageToString(proto)
    if fmt == "0.1.0":
        return text
    from tpuemb_cli.pb.jax.embedding_spec_pb2 import EmbeddingSpecProto, OptimizerSpecProto

    mirror = text_format.Parse(text, EmbeddingSpecProto())
    optimizer = _optimizers()[layout.optimizer]
    for stack in mirror.stacked_table_specs:
        stack.activation_mem_bytes_limit = DEFAULT_ACTIVATION_MEM_BYTES_LIMIT
        for table in stack.table_specs:
            table.combiner = "sum"
            table.optimizer.type = getattr(OptimizerSpecProto, PROTO_TYPE[layout.optimizer])
            table.optimizer.learning_rate = float(optimizer.learning_rate)
    return text_format.MessageToString(mirror)


def _values(table: str, slot: str, vocab: int, dim: int) -> Any:
    """Distinct, reproducible values for every row of a table (or of one of its slots)."""
    import numpy as np

    seed = zlib.crc32(f"{table}/{slot}".encode())
    return np.random.default_rng(seed).standard_normal((vocab, dim)).astype(np.float32)


def mesh_of(layout: Layout) -> Any:
    import jax
    import numpy as np

    return jax.sharding.Mesh(np.array(jax.devices()[: layout.devices]), [AXIS])


def sharding_of(layout: Layout) -> Any:
    import jax

    return jax.sharding.NamedSharding(mesh_of(layout), jax.sharding.PartitionSpec(AXIS, None))


def slot_class(layout: Layout) -> Any:
    return type(_optimizers()[layout.optimizer].slot_variables_initializers())


def stacks_of(layout: Layout) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The library's variables for ``layout`` holding known values: ``{stack:
    EmbeddingVariables(table, slot)}``, each array laid out by the library's TableSpec-driven
    `stack_and_shard_tables` (the layout `init_embedding_variables` allocates and the lookups
    read) and sharded over the layout's devices as the TPU does, and the per-table originals by
    array name (`table` or a slot's field name).

    Not `stack_and_shard_feature_tables(tables, proto)`: it concatenates a stack's tables in the
    proto's order, and `create_proto_from_feature_specs` lists them in the features' order
    (`item_id` before `user_id` in a dict), not by `row_offset_in_shard`, so for BASE it puts
    `item` where the variables and `unstack_and_unshard_stacked_tables` have `user`. The
    round trip below checks the layout before anything is saved."""
    import jax
    import numpy as np
    from jax_tpu_embedding.sparsecore.lib.nn import embedding, table_stacking

    specs = {f.table_spec.name: f.table_spec for f in features(layout).values()}
    proto = proto_of(layout)
    sharding = sharding_of(layout)
    fields = ("table", *slot_class(layout)._fields)
    originals = {
        name: {t.name: _values(t.name, name, t.vocab, t.dim) for t in layout.tables}
        for name in fields
    }
    shards = layout.devices * layout.cores
    stacked = {
        name: table_stacking.stack_and_shard_tables(specs, per_table, shards, pad_value=0.0)
        for name, per_table in originals.items()
    }
    variables = {}
    for stack in proto.stacked_table_specs:
        key = stack.stack_name
        shape = (stack.stack_vocab_size, stack.stack_embedding_dim)
        arrays = {n: jax.device_put(stacked[n][key].reshape(shape), sharding) for n in fields}
        variables[key] = embedding.EmbeddingVariables(
            table=arrays["table"], slot=slot_class(layout)(*(arrays[n] for n in fields[1:]))
        )
    device = jax.devices()[0]
    for name in fields:
        back = table_stacking.unstack_and_unshard_stacked_tables(
            {k: jax.device_put(_array(v, name), device) for k, v in variables.items()},
            proto,
        )
        for table, original in originals[name].items():
            np.testing.assert_array_equal(np.asarray(back[table]), original)
    return variables, originals


def _array(variables: Any, name: str) -> Any:
    return variables.table if name == "table" else getattr(variables.slot, name)


def abstract_stacks(layout: Layout) -> dict[str, Any]:
    """NEW's variables as an abstract tree: what a job under NEW hands Orbax to restore into."""
    import jax
    import numpy as np
    from jax_tpu_embedding.sparsecore.lib.nn import embedding

    sharding = sharding_of(layout)
    cls = slot_class(layout)
    out = {}
    for stack in proto_of(layout).stacked_table_specs:
        shape = (stack.stack_vocab_size, stack.stack_embedding_dim)

        def sds(shape: tuple[int, int] = shape) -> Any:
            return jax.ShapeDtypeStruct(shape, np.float32, sharding=sharding)

        out[stack.stack_name] = embedding.EmbeddingVariables(
            table=sds(), slot=cls(*(sds() for _ in cls._fields))
        )
    return out


# -- the trees around the stacks


def _dense(concrete: bool) -> dict[str, Any]:
    """The rest of a model: a dense layer, replicated (its values do not matter here)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    def leaf(shape: tuple[int, ...]) -> Any:
        if concrete:
            return jnp.full(shape, 0.5, jnp.float32)
        return jax.ShapeDtypeStruct(shape, np.float32)

    return {"kernel": leaf((16, 8)), "bias": leaf((8,))}


def _step(concrete: bool) -> Any:
    import jax
    import jax.numpy as jnp
    import numpy as np

    return jnp.asarray(7, jnp.int32) if concrete else jax.ShapeDtypeStruct((), np.int32)


def items_of(tree: str, stacks: dict[str, Any], concrete: bool) -> dict[str, Any]:
    """The checkpoint's items other than the proto, with ``stacks`` where the tree keeps them
    (README "Trees" in tests/data/orbax says where each comes from)."""
    dense = _dense(concrete)
    if tree == "flat":
        return {"params": stacks}
    if tree == "jit":
        # jax_sc_shakespeare_jit.py: TrainState(params, opt_state) of the dense model, the
        # library's variables as their own item.
        return {
            "train_state": {"params": {"params": {"Dense_0": dense}}, "opt_state": _step(concrete)},
            "emb_variables": stacks,
        }
    if tree == "linen":
        # The Linen SparseCoreEmbed layer's param `sc_embedding_variables`, boxed in
        # WithSparseCoreLayout (an nn.Partitioned: its `value`).
        return {
            "params": {
                "params": {
                    "SparseCoreEmbed_0": {"sc_embedding_variables": {"value": stacks}},
                    "Dense_0": dense,
                }
            }
        }
    if tree == "keras":
        # Keras-RS's JaxKeras3CheckpointManager: one unnamed item (`default`) holding
        # model.get_state_tree(); the SparseCore layer's variables are flat keys
        # `var:<stack>:table` and `var:<stack>:table:slot:<field>` of the layer (`emb`).
        flat: dict[str, Any] = {}
        for name, variables in stacks.items():
            flat[f"var:{name}:table"] = variables.table
            for field_name in variables.slot._fields:
                flat[f"var:{name}:table:slot:{field_name}"] = getattr(variables.slot, field_name)
        return {
            "default": {
                "trainable_variables": {"emb": flat, "dense": dense},
                "optimizer_variables": {"adam": {"iteration": _step(concrete)}},
            }
        }
    if tree == "nnx":
        # 0.2.0's save_checkpoint: nnx.state(model) (each Variable saved as its `value`),
        # nnx.state(optimizer, nnx.OptState).
        return {
            "model": {
                "embedding_layer": {"embedding_table": {"value": stacks}},
                "dense": {k: {"value": v} for k, v in dense.items()},
            },
            "optimizer": {"step": {"value": _step(concrete)}},
        }
    raise ValueError(tree)


# Where each tree keeps the stacks: item, then the keys down to `{stack: EmbeddingVariables}`.
STACKS_AT: dict[str, tuple[str, ...]] = {
    "flat": ("params",),
    "jit": ("emb_variables",),
    "linen": ("params", "params", "SparseCoreEmbed_0", "sc_embedding_variables", "value"),
    "nnx": ("model", "embedding_layer", "embedding_table", "value"),
    "keras": ("default", "trainable_variables", "emb"),
}


def stacks_in(tree: str, items: dict[str, Any]) -> dict[str, Any]:
    if tree == "keras":
        return _keras_stacks(items["default"]["trainable_variables"]["emb"])
    node: Any = items
    for key in STACKS_AT[tree]:
        node = node[key]
    stacks: dict[str, Any] = node
    return stacks


def _keras_stacks(flat: dict[str, Any]) -> dict[str, Any]:
    """Keras-RS's flat `var:<stack>:table[:slot:<field>]` keys back to ``{stack: (table,
    slot)}``, each with `.table` and `.slot.<field>` as the library's variables have."""
    from types import SimpleNamespace

    stacks: dict[str, Any] = {}
    for key, array in flat.items():
        _, stack, _, *slot = key.split(":")
        entry = stacks.setdefault(stack, SimpleNamespace(table=None, slot=SimpleNamespace()))
        if slot:
            setattr(entry.slot, slot[1], array)
        else:
            entry.table = array
    return stacks


PROTO_ITEM = {
    "flat": ("embedding_spec", "embedding_spec.pbtxt"),
    "jit": ("stacking_proto", "proto.pbtxt"),
    "linen": ("embedding_spec", "embedding_spec.pbtxt"),
    "nnx": ("embedding_spec", "proto.pbtxt"),
}
PYTREE_ITEMS = {"train_state", "emb_variables"}


def _handlers(tree: str, with_proto: bool) -> dict[str, Any]:
    import orbax.checkpoint as ocp

    names = items_of(tree, {}, concrete=False)
    handlers: dict[str, Any] = {
        n: ocp.PyTreeCheckpointHandler() if n in PYTREE_ITEMS else ocp.StandardCheckpointHandler()
        for n in names
    }
    if with_proto:
        item, filename = PROTO_ITEM[tree]
        handlers[item] = ocp.ProtoCheckpointHandler(filename=filename)
    return handlers


def _save_args(items: dict[str, Any]) -> dict[str, Any]:
    import orbax.checkpoint as ocp

    return {
        n: ocp.args.PyTreeSave(v) if n in PYTREE_ITEMS else ocp.args.StandardSave(v)
        for n, v in items.items()
    }


def _restore_args(items: dict[str, Any]) -> dict[str, Any]:
    import orbax.checkpoint as ocp

    out = {}
    for n, v in items.items():
        if n in PYTREE_ITEMS:
            out[n] = ocp.args.PyTreeRestore(
                item=v, restore_args=ocp.checkpoint_utils.construct_restore_args(v)
            )
        else:
            out[n] = ocp.args.StandardRestore(v)
    return out


def write(case: Case, out: Path) -> tuple[dict[str, dict[str, Any]], Path, list[str]]:
    """Write the case's checkpoint; return the originals, the path for the CLI and its extra
    arguments."""
    import jax
    import orbax.checkpoint as ocp

    variables, originals = stacks_of(case.old)
    if case.replicated:
        everywhere = jax.sharding.NamedSharding(
            mesh_of(case.old), jax.sharding.PartitionSpec(None, None)
        )
        variables = jax.tree.map(lambda a: jax.device_put(a, everywhere), variables)
    root = out / "ckpt"
    if case.writer == "standard":
        with ocp.StandardCheckpointer() as checkpointer:
            checkpointer.save(root, variables)
            checkpointer.wait_until_finished()
        return originals, root, []
    with_proto = case.writer == "manager"
    options = ocp.CheckpointManagerOptions(enable_async_checkpointing=False)
    if case.tree == "keras":
        # A single-item manager, as JaxKeras3CheckpointManager.save_state: item `default`.
        assert not with_proto and case.cli_path != "root-step"
        with ocp.CheckpointManager(root, options=options) as manager:
            item = items_of(case.tree, variables, concrete=True)["default"]
            manager.save(STEP, args=ocp.args.StandardSave(item))
            manager.wait_until_finished()
        return originals, root / str(STEP) if case.cli_path == "step" else root, []
    with ocp.CheckpointManager(
        root, item_handlers=_handlers(case.tree, with_proto), options=options
    ) as manager:
        steps = [(STEP, case.old, variables)]
        if case.cli_path == "root-step":
            # A later step of another layout: `--step` must pick the older one.
            later = Layout(tables=case.old.tables, devices=case.old.devices, cores=2)
            steps.append((STEP + 1, later, stacks_of(later)[0]))
        for step, layout, stacks in steps:
            args = _save_args(items_of(case.tree, stacks, concrete=True))
            if with_proto:
                args[PROTO_ITEM[case.tree][0]] = ocp.args.ProtoSave(proto_of(layout))
            manager.save(step, args=ocp.args.Composite(**args))
        manager.wait_until_finished()
    if case.cli_path == "step":
        return originals, root / str(STEP), []
    if case.cli_path == "root":
        return originals, root, []
    return originals, root, ["--step", str(STEP)]


def restore(case: Case, root: Path) -> dict[str, Any]:
    """Restore with Orbax into NEW's abstract tree, as a job under NEW would."""
    import orbax.checkpoint as ocp

    target = items_of(case.tree, abstract_stacks(case.new), concrete=False)
    if case.writer == "standard":
        with ocp.StandardCheckpointer() as checkpointer:
            return {"params": checkpointer.restore(root, target["params"])}
    options = ocp.CheckpointManagerOptions(read_only=True)
    if case.tree == "keras":
        with ocp.CheckpointManager(root, options=options) as manager:
            return {
                "default": manager.restore(STEP, args=ocp.args.StandardRestore(target["default"]))
            }
    with ocp.CheckpointManager(
        root, item_handlers=_handlers(case.tree, case.writer == "manager"), options=options
    ) as manager:
        restored = manager.restore(STEP, args=ocp.args.Composite(**_restore_args(target)))
        return {name: restored[name] for name in target}


def judge(case: Case, restored: dict[str, Any], originals: dict[str, dict[str, Any]]) -> Any:
    """Per stack of NEW: the arrays (table, slots) whose rows are not where NEW reads them."""
    import jax
    import numpy as np
    from jax_tpu_embedding.sparsecore.lib.nn import table_stacking

    proto = proto_of(case.new)
    stacks = stacks_in(case.tree, restored)
    fields = ("table", *slot_class(case.new)._fields)
    wrong: dict[str, list[str]] = {s.stack_name: [] for s in proto.stacked_table_specs}
    # On one device: the unstacked tables keep the stack's sharding, and a table's rows (300)
    # need not divide among the devices.
    device = jax.devices()[0]
    for name in fields:
        arrays = {key: jax.device_put(_array(v, name), device) for key, v in stacks.items()}
        tables = table_stacking.unstack_and_unshard_stacked_tables(arrays, proto)
        for stack in proto.stacked_table_specs:
            for t in stack.table_specs:
                original = originals.get(name, {}).get(t.table_name)
                got = np.asarray(tables[t.table_name])
                if original is None:
                    wrong[stack.stack_name].append(f"{t.table_name}.{name} (not in checkpoint)")
                    continue
                rows = min(original.shape[0], got.shape[0])
                cols = min(original.shape[1], got.shape[1])
                if not np.array_equal(got[:rows, :cols], original[:rows, :cols]):
                    wrong[stack.stack_name].append(f"{t.table_name}.{name}")
    return wrong


def run(case: Case, out: Path) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    originals, path, extra = write(case, out)
    new_path = out / ("new.spec.textproto" if case.new_format == "spec" else "new.pbtxt")
    new_path.write_text(proto_text(case.new, case.new_format))
    line: dict[str, Any] = {
        "case": case.name,
        "checkpoint": str(path),
        "cli_extra": extra,
        "new": str(new_path),
        "new_stacks": [s.stack_name for s in proto_of(case.new).stacked_table_specs],
    }
    try:
        restored = restore(case, out / "ckpt")
    except Exception as error:
        return line | {"outcome": "error", "error": f"{type(error).__name__}: {error}"}
    wrong = judge(case, restored, originals)
    outcome = "silent" if any(wrong.values()) else "ok"
    return line | {"outcome": outcome, "wrong": wrong}


def main(out: Path, names: list[str]) -> None:
    import logging

    import jax

    # The library logs each stacking (limits ignored, excess padding) at WARNING through absl's
    # handler on the root logger: noise here.
    logging.getLogger().setLevel(logging.ERROR)

    assert jax.device_count() == NUM_DEVICES, jax.devices()
    for name in names:
        print(json.dumps(run(BY_NAME[name], out / name)), flush=True)


if __name__ == "__main__":
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={NUM_DEVICES}"
    os.environ["JAX_PLATFORMS"] = "cpu"
    main(Path(sys.argv[1]), sys.argv[2:])
