"""The case table of the Orbax checkpoint oracle (issue 39; tests/test_jax_orbax_oracle.py).

Each case is a stacked layout the checkpoint was written under (OLD), a layout to restore into
(NEW), how the checkpoint was written (a CheckpointManager with or without the
`EmbeddingSpecProto` item, or a bare StandardCheckpointer directory), in which tree the stacks
sit (the trees jax-tpu-embedding's own examples and layers write), and the outcome expected of
Orbax: `error` (restoring NEW's abstract tree raises), `silent` (it restores and some table's or
slot's rows are not where NEW reads them) or `ok` (every row where NEW reads it). The expected
outcome is written by hand from docs/jax.md and what Orbax 0.12.8 was measured to do; the oracle
asserts Orbax agrees, then that `tpuemb diff --against-checkpoint` says the same.

This module imports neither JAX nor the library: the test collects the cases from it, and
tests/jax_orbax_probe.py (run in a subprocess with 8 CPU devices) builds them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

Outcome = Literal["ok", "silent", "error"]
# How the checkpoint is written: `manager` = CheckpointManager with the tree's items and the
# layout's EmbeddingSpecProto item, `noproto` = the same without the proto item, `standard` =
# a bare `StandardCheckpointer().save(path, stacks)` directory (no proto, no step).
Writer = Literal["manager", "noproto", "standard"]
# Where the stacks sit: `flat` = item `params` is `{stack: EmbeddingVariables}` (tests/data/orbax);
# `jit` = the Shakespeare jit example's items `train_state` + `emb_variables` + `stacking_proto`;
# `linen` = the Linen SparseCoreEmbed layer's params; `nnx` = 0.2.0's `save_checkpoint` (items
# `model`, `optimizer`, `embedding_spec`).
# `keras` = Keras-RS's JaxKeras3CheckpointManager (one item `default`, flat `var:<stack>:table`
# keys; never a proto item).
Tree = Literal["flat", "jit", "linen", "nnx", "keras"]


@dataclass(frozen=True)
class Table:
    """A table: name, rows, width, and the stack limits a FeatureSpec passes on (0 = default)."""

    name: str
    vocab: int
    dim: int
    max_ids: int = 0


@dataclass(frozen=True)
class Layout:
    """A stacked layout as a training script sets it up: its tables, which are stacked together
    (`stack_tables`, under the default name or `names`' entry), the others left to
    `prepare_feature_specs_for_training` (one stack each), the topology and the optimizer."""

    tables: tuple[Table, ...]
    groups: tuple[tuple[str, ...], ...] = ()
    names: tuple[str | None, ...] = ()
    devices: int = 8
    cores: int = 4
    optimizer: str = "adagrad"
    rotation: int | None = None

    def with_table(self, name: str, **changes: int) -> Layout:
        """The layout with table ``name``'s sizes or limits changed (``vocab=400``)."""
        tables = tuple(
            Table(t.name, **{"vocab": t.vocab, "dim": t.dim, "max_ids": t.max_ids, **changes})
            if t.name == name
            else t
            for t in self.tables
        )
        return replace(self, tables=tables)


@dataclass(frozen=True)
class Case:
    name: str
    old: Layout
    new: Layout
    expect: Outcome
    writer: Writer = "manager"
    tree: Tree = "flat"
    # What the CLI is given: the step directory, or the manager's root (latest step), or the root
    # and `--step` (with a later step of another layout written beside it).
    cli_path: Literal["step", "root", "root-step"] = "step"
    # NEW as 0.2.0 writes it (each table's optimizer and combiner recorded), as 0.1.0 does, or a
    # tpuemb spec with a `jax` section (`tpuemb_cli.jax.spec_from_jax` of NEW's feature specs).
    new_format: Literal["0.2.0", "0.1.0", "spec"] = "0.2.0"
    # The saved stacks replicated on every device (PartitionSpec(None, None), as keras-rs's
    # SparseCore variables come out on CPU) instead of split by rows: Orbax writes one slice per
    # replica, so `write_shape` is not a shard of the global shape.
    replicated: bool = False
    why: str = field(default="", compare=False)


USER, ITEM, COUNTRY = Table("user", 300, 16), Table("item", 200, 12), Table("country", 40, 8)
# With 8 devices x 4 SparseCores (32), rows pad to a multiple of 256: user_item is 768 x 16,
# country 256 x 8.
BASE = Layout(tables=(USER, ITEM, COUNTRY), groups=(("user", "item"),))
# Tables whose rows are already a multiple of 8 x 32: 8 -> 4 or 2 devices, or 4 -> 2 SparseCores
# a device, keeps every padded size, so the stack keeps its shape and only its layout changes.
ROUND = Layout(
    tables=(Table("user", 512, 16), Table("item", 256, 16), Table("country", 256, 8)),
    groups=(("user", "item"),),
)
# Two tables of one size under an explicit stack name: reordering or renaming them keeps the
# stack's key and shape.
NAMED = Layout(
    tables=(Table("user", 300, 16), Table("item", 300, 16)),
    groups=(("user", "item"),),
    names=("emb",),
)
# The same tables written on 4 devices (a job that grows to 8).
ROUND4 = replace(ROUND, devices=4)
ALONE = Layout(tables=(Table("user", 512, 16),))


def _opt(layout: Layout, optimizer: str) -> Layout:
    return replace(layout, optimizer=optimizer)


CASES: tuple[Case, ...] = (
    # -- unchanged
    Case("unchanged", BASE, BASE, "ok"),
    Case("unchanged_sgd", _opt(BASE, "sgd"), _opt(BASE, "sgd"), "ok"),
    Case("unchanged_adam", _opt(BASE, "adam"), _opt(BASE, "adam"), "ok"),
    Case("unchanged_ftrl", _opt(BASE, "ftrl"), _opt(BASE, "ftrl"), "ok"),
    Case("unchanged_new_as_0_1_0", BASE, BASE, "ok", new_format="0.1.0"),
    Case("unchanged_root_latest", BASE, BASE, "ok", cli_path="root"),
    Case("older_step_by_number", BASE, BASE, "ok", cli_path="root-step"),
    # -- topology
    Case("devices_8_to_4", BASE, replace(BASE, devices=4), "error", why="user pads 512 -> 384"),
    Case("devices_8_to_2", BASE, replace(BASE, devices=2), "error"),
    Case("devices_8_to_4_same_shape", ROUND, replace(ROUND, devices=4), "silent"),
    Case("devices_8_to_2_same_shape", ROUND, replace(ROUND, devices=2), "silent"),
    Case("devices_4_to_8_same_shape", ROUND4, replace(ROUND4, devices=8), "silent"),
    Case("cores_4_to_2", BASE, replace(BASE, cores=2), "error"),
    Case("cores_4_to_2_same_shape", ROUND, replace(ROUND, cores=2), "silent"),
    Case(
        "same_sparsecores_other_rotation",
        replace(ROUND, cores=2),
        replace(ROUND, devices=4, cores=4),
        "silent",
        why="8 x 2 -> 4 x 4: as many SparseCores, item's rotation 2 -> 4",
    ),
    Case("table_alone_devices_8_to_4", ALONE, replace(ALONE, devices=4), "silent"),
    Case("rotation_argument", ROUND, replace(ROUND, rotation=0), "silent"),
    Case("rotation_argument_same_value", ROUND, replace(ROUND, rotation=4), "ok"),
    # -- stacks
    Case(
        "table_joins_stack",
        BASE,
        replace(BASE, groups=(("user", "item", "country"),)),
        "error",
        why="the stack is renamed user_item_country, country's own stack gone",
    ),
    Case("table_leaves_stack", BASE, replace(BASE, groups=()), "error"),
    Case("stack_renamed", BASE, replace(BASE, names=("emb",)), "error"),
    Case("tables_reordered_default_name", BASE, replace(BASE, groups=(("item", "user"),)), "error"),
    Case(
        "tables_reordered_named_stack", NAMED, replace(NAMED, groups=(("item", "user"),)), "silent"
    ),
    Case(
        "table_renamed_in_named_stack",
        NAMED,
        replace(
            NAMED,
            tables=(Table("user", 300, 16), Table("product", 300, 16)),
            groups=(("user", "product"),),
        ),
        "silent",
        why="`product` reads `item`'s rows",
    ),
    Case(
        "table_removed",
        BASE,
        replace(BASE, tables=(USER, ITEM)),
        "error",
        why="the checkpoint's `country` entry has no place in the new tree",
    ),
    Case(
        "table_added",
        BASE,
        replace(BASE, tables=(USER, ITEM, COUNTRY, Table("region", 50, 8))),
        "error",
    ),
    Case(
        "table_added_to_stack",
        BASE,
        replace(
            BASE,
            tables=(USER, ITEM, COUNTRY, Table("region", 50, 16)),
            groups=(("user", "item", "region"),),
            names=("user_item",),
        ),
        "error",
        why="same stack name, 768 -> 1024 rows",
    ),
    Case(
        "two_stacks_one_silent",
        ROUND,
        replace(ROUND, groups=(("item", "user"),), names=("user_item",)),
        "silent",
        why="user_item's tables swap places; country unchanged",
    ),
    # -- sizes
    Case("user_grown_within_padding", BASE, BASE.with_table("user", vocab=400), "ok"),
    Case("user_shrunk_within_padding", BASE, BASE.with_table("user", vocab=260), "ok"),
    Case("user_grown_beyond_padding", BASE, BASE.with_table("user", vocab=600), "error"),
    Case("user_shrunk_beyond_padding", BASE, BASE.with_table("user", vocab=200), "error"),
    Case("item_dim_grown_within_padding", BASE, BASE.with_table("item", dim=16), "ok"),
    Case(
        "item_dim_shrunk_same_stack_width",
        BASE,
        BASE.with_table("item", dim=8),
        "ok",
        why="item pads to 8 but the stack stays 16 wide (user's)",
    ),
    Case("user_dim_grown", BASE, BASE.with_table("user", dim=24), "error"),
    Case("country_dim_grown", BASE, BASE.with_table("country", dim=12), "error"),
    Case("country_vocab_grown_within_padding", BASE, BASE.with_table("country", vocab=250), "ok"),
    Case("limits_changed", BASE, BASE.with_table("country", max_ids=64), "ok"),
    # -- optimizer
    Case("adagrad_to_adam", BASE, _opt(BASE, "adam"), "error"),
    Case(
        "adam_to_ftrl",
        _opt(BASE, "adam"),
        _opt(BASE, "ftrl"),
        "error",
        why="as many slots, other names: Orbax matches the NamedTuple's fields by name",
    ),
    Case("sgd_to_adagrad", _opt(BASE, "sgd"), BASE, "error"),
    Case("adagrad_to_sgd", BASE, _opt(BASE, "sgd"), "error"),
    Case("adagrad_to_adagrad_momentum", BASE, _opt(BASE, "adagrad_momentum"), "error"),
    Case("ftrl_to_adagrad_momentum", _opt(BASE, "ftrl"), _opt(BASE, "adagrad_momentum"), "error"),
    Case("adagrad_learning_rate", BASE, _opt(BASE, "adagrad_lr"), "ok"),
    Case(
        "adam_to_laprop",
        _opt(BASE, "adam"),
        _opt(BASE, "laprop"),
        "error",
        why="Adam's momentum, velocity vs LaProp's mu, nu; NEW records LaProp as CUSTOM",
    ),
    Case("unchanged_laprop", _opt(BASE, "laprop"), _opt(BASE, "laprop"), "ok"),
    # -- without the proto item: tpuemb cannot tell a same-shape re-layout
    Case("noproto_unchanged", BASE, BASE, "ok", writer="noproto"),
    Case("noproto_same_shape", ROUND, replace(ROUND, devices=4), "silent", writer="noproto"),
    Case("noproto_shape_change", BASE, replace(BASE, devices=4), "error", writer="noproto"),
    Case("noproto_adam_to_ftrl", _opt(BASE, "adam"), _opt(BASE, "ftrl"), "error", writer="noproto"),
    Case("standard_unchanged", BASE, BASE, "ok", writer="standard"),
    Case("standard_unchanged_sgd", _opt(BASE, "sgd"), _opt(BASE, "sgd"), "ok", writer="standard"),
    Case("standard_same_shape", ROUND, replace(ROUND, cores=2), "silent", writer="standard"),
    Case(
        "standard_shape_change", BASE, BASE.with_table("user", dim=24), "error", writer="standard"
    ),
    Case("standard_stack_renamed", BASE, replace(BASE, names=("emb",)), "error", writer="standard"),
    # -- the stacks inside a model's tree
    Case("jit_unchanged", BASE, BASE, "ok", tree="jit"),
    Case("jit_same_shape", ROUND, replace(ROUND, devices=4), "silent", tree="jit"),
    Case("jit_shape_change", BASE, replace(BASE, devices=4), "error", tree="jit"),
    Case("linen_unchanged", _opt(BASE, "adam"), _opt(BASE, "adam"), "ok", tree="linen"),
    Case("linen_same_shape", ROUND, replace(ROUND, cores=2), "silent", tree="linen"),
    Case("linen_shape_change", BASE, BASE.with_table("item", vocab=300), "error", tree="linen"),
    Case(
        "linen_noproto_same_shape", ROUND, replace(ROUND, devices=2), "silent", "noproto", "linen"
    ),
    Case("nnx_unchanged", BASE, BASE, "ok", tree="nnx"),
    Case("nnx_same_shape", ROUND, replace(ROUND, devices=4), "silent", tree="nnx"),
    Case("nnx_optimizer_change", BASE, _opt(BASE, "adam"), "error", tree="nnx"),
    Case("nnx_noproto_unchanged", BASE, BASE, "ok", writer="noproto", tree="nnx"),
    Case("replicated_unchanged", BASE, BASE, "ok", replicated=True),
    Case("replicated_same_shape", ROUND, replace(ROUND, devices=4), "silent", replicated=True),
    Case(
        "replicated_shape_change", BASE, BASE.with_table("user", dim=24), "error", replicated=True
    ),
    # -- NEW as a tpuemb spec
    Case("spec_unchanged", BASE, BASE, "ok", new_format="spec"),
    Case("spec_devices_same_shape", ROUND, replace(ROUND, devices=4), "silent", new_format="spec"),
    Case("spec_devices_8_to_4", BASE, replace(BASE, devices=4), "error", new_format="spec"),
    Case("spec_adagrad_to_adam", BASE, _opt(BASE, "adam"), "error", new_format="spec"),
    Case(
        "spec_adam_to_laprop", _opt(BASE, "adam"), _opt(BASE, "laprop"), "error", new_format="spec"
    ),
    Case(
        "spec_unchanged_laprop", _opt(BASE, "laprop"), _opt(BASE, "laprop"), "ok", new_format="spec"
    ),
    Case(
        "spec_table_joins_stack",
        BASE,
        replace(BASE, groups=(("user", "item", "country"),)),
        "error",
        new_format="spec",
    ),
    Case(
        "spec_noproto_same_shape",
        ROUND,
        replace(ROUND, cores=2),
        "silent",
        "noproto",
        new_format="spec",
    ),
    Case("keras_unchanged", BASE, BASE, "ok", writer="noproto", tree="keras"),
    Case("keras_same_shape", ROUND, replace(ROUND, devices=4), "silent", "noproto", "keras"),
    Case("keras_shape_change", BASE, BASE.with_table("item", dim=24), "error", "noproto", "keras"),
    Case(
        "keras_optimizer_change",
        BASE,
        _opt(BASE, "adam"),
        "error",
        "noproto",
        "keras",
        cli_path="root",
    ),
)

BY_NAME = {case.name: case for case in CASES}
assert len(BY_NAME) == len(CASES), "case names must be unique"
