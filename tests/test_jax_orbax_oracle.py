"""`tpuemb diff --against-checkpoint` against REAL Orbax checkpoints of jax-tpu-embedding's stacked
variables (issue 39; `make test-jax`, skipped where the library or Orbax is missing).

For each case of tests/jax_orbax_cases.py (a layout change: devices, SparseCores a device, a table
joining or leaving a stack, tables grown, shrunk, renamed, reordered, added or removed, the
optimizer, the stack's name; with and without the checkpoint's EmbeddingSpecProto item; the stacks
flat or inside a Linen, NNX, jit-example or Keras-RS tree; NEW as the library's proto, as 0.2.0's,
or as a tpuemb spec with a `jax` section), tests/jax_orbax_probe.py writes a checkpoint
with Orbax under OLD and restores it with Orbax into NEW's abstract tree, on 8 CPU devices in a
subprocess (the test process may have started JAX with one). That is the ground truth:

- Orbax raises: `error`;
- Orbax restores, and some table's or slot's rows are not where NEW's proto reads them
  (`unstack_and_unshard_stacked_tables` with NEW's proto against the values written): `silent`;
- Orbax restores and every row is where NEW reads it: `ok`.

`test_orbax_ground_truth` holds the outcome written in the case table against what Orbax does;
`test_diff_matches_orbax` holds tpuemb's verdict against Orbax's: a `restore-error` change iff
Orbax refuses; otherwise a `silent-reinit` iff some rows moved, but where the checkpoint has no
EmbeddingSpecProto item (a re-layout that keeps every shape cannot be seen there): then an
`unverified-layout` warning for each stack that restores and never a `silent-reinit`.
Where NEW records a CUSTOM optimizer (LaProp: 0.2.0's proto has no number for it, so NEW names
no slots) tpuemb cannot tell either verdict and says so: `unverified-layout` for each stack. The
cases where tpuemb is known to answer otherwise (`CLI_GAPS`) are strict xfails.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jax_tpu_embedding.sparsecore.lib.nn.embedding")
pytest.importorskip("orbax.checkpoint")

from click.testing import CliRunner

from tests import jax_orbax_probe
from tests.jax_orbax_cases import CASES, Case
from tpuemb_cli.cli import main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "data" / "orbax"
IDS = [case.name for case in CASES]

# Optimizers 0.2.0's proto records as CUSTOM (no number of their own), so NEW does not name
# their slots: against a checkpoint holding slots, tpuemb cannot tell Orbax's verdict and says
# so, an `unverified-layout` warning per stack, whatever Orbax does.
CUSTOM = {name for name, kind in jax_orbax_probe.PROTO_TYPE.items() if kind == "CUSTOM"}

# Where tpuemb's verdict is known to differ from Orbax's, case name -> why: the case stays,
# marked, and an xfail that starts passing fails (strict) so the mark goes when the gap closes.
CLI_GAPS: dict[str, str] = {}
CLI_CASES = [
    pytest.param(
        case,
        id=case.name,
        marks=[pytest.mark.xfail(reason=CLI_GAPS[case.name], strict=True)]
        if case.name in CLI_GAPS
        else [],
    )
    for case in CASES
]


@pytest.fixture(scope="module")
def orbax(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Every case's checkpoint, NEW proto and Orbax's verdict, from one probe subprocess."""
    out = tmp_path_factory.mktemp("orbax")
    ran = subprocess.run(
        [sys.executable, "-m", "tests.jax_orbax_probe", str(out), *IDS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    lines = [json.loads(line) for line in ran.stdout.splitlines() if line.startswith("{")]
    return {line["case"]: line for line in lines}


def test_the_case_table_covers_the_changes() -> None:
    """At least 40 changes, each outcome, each writer and each tree more than once."""
    assert len(CASES) >= 40
    assert min(Counter(case.expect for case in CASES).values()) >= 10
    writers = Counter(case.writer for case in CASES)
    trees = Counter(case.tree for case in CASES)
    assert set(writers) == {"manager", "noproto", "standard"} and min(writers.values()) >= 4
    assert set(trees) == {"flat", "jit", "linen", "nnx", "keras"} and min(trees.values()) >= 3
    assert Counter(case.new_format for case in CASES)["spec"] >= 5
    # Keras-RS never saves the layout.
    assert all(case.writer == "noproto" for case in CASES if case.tree == "keras")
    # Without the proto item, a same-shape re-layout is there to be missed (never silent-reinit).
    assert any(c.writer != "manager" and c.expect == "silent" for c in CASES)


@pytest.mark.parametrize(
    ("tree", "fixture"),
    [("linen", "linen_manager"), ("nnx", "nnx_manager"), ("jit", "jit_manager")],
)
def test_the_trees_are_the_ones_the_library_writes(tree: str, fixture: str) -> None:
    """The probe builds each model's tree by hand (plain dicts, any layout); the fixtures were
    written by the library's own Linen and NNX layers and its jit example's items
    (tests/data/orbax/make_fixtures.py): the stacks sit at the same key path, with the layout
    in the same item and file."""
    at = json.loads((FIXTURES / fixture / "expected.json").read_text())["stacks_at"]
    assert (at["item"], *at["key_path"]) == jax_orbax_probe.STACKS_AT[tree]
    item, filename = jax_orbax_probe.PROTO_ITEM[tree]
    assert at["proto_file"] == f"{item}/{filename}"
    written = {
        "jit": {"train_state", "emb_variables"},
        "linen": {"params"},
        "nnx": {"model", "optimizer"},
    }
    assert set(jax_orbax_probe.items_of(tree, {}, concrete=False)) == written[tree]
    fixture_items = json.loads((FIXTURES / fixture / "expected.json").read_text())["items"]
    assert set(fixture_items) == written[tree] | {item}


def test_the_keras_tree_is_the_one_keras_rs_writes() -> None:
    """The probe's Keras-RS tree has the keys JaxKeras3CheckpointManager wrote for a
    DistributedEmbedding on the (simulated) SparseCore path (tests/data/orbax
    keras_sparsecore_manager): item `default`, `('trainable_variables', '<layer>',
    'var:<stack>:table')` and `...:slot:<field>`."""
    expected = json.loads((FIXTURES / "keras_sparsecore_manager" / "expected.json").read_text())
    keys = {tuple(a["key_path"]) for a in expected["items"]["default"]["arrays"].values()}
    stack_keys = {k for k in keys if k[:2] == ("trainable_variables", "emb") and ":" in k[2]}
    assert stack_keys == {
        ("trainable_variables", "emb", "var:item_user:table"),
        ("trainable_variables", "emb", "var:item_user:table:slot:accumulator"),
    }
    assert jax_orbax_probe.STACKS_AT["keras"] == ("default", "trainable_variables", "emb")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_orbax_ground_truth(orbax: dict[str, dict[str, Any]], case: Case) -> None:
    """What the case table expects is what Orbax does."""
    truth = orbax[case.name]
    detail = truth.get("error", "")[:2000] or truth.get("wrong")
    assert truth["outcome"] == case.expect, (case.why, detail)


def _diff(truth: dict[str, Any]) -> tuple[int, list[dict[str, Any]], str]:
    args = ["diff", "--isolated", "--format", "json", "--against-checkpoint"]
    args += [truth["checkpoint"], *truth["cli_extra"], truth["new"]]
    result = CliRunner().invoke(main, args)
    changes = json.loads(result.stdout)["changes"] if result.exit_code in (0, 1) else []
    return result.exit_code, changes, result.output


@pytest.mark.parametrize("case", CLI_CASES)
def test_diff_matches_orbax(orbax: dict[str, dict[str, Any]], case: Case) -> None:
    """tpuemb's verdict from the files alone is Orbax's."""
    truth = orbax[case.name]
    code, changes, output = _diff(truth)
    assert code in (0, 1), output
    kinds = Counter(change["kind"] for change in changes)
    shown = [(c["kind"], c["table"], c["message"][:200]) for c in changes]
    # Exit 1 exactly when some change is an error (restore-error and silent-reinit are).
    assert code == int(any(c["severity"] == "error" for c in changes)), shown
    if case.new_format == "0.2.0" and case.new.optimizer in CUSTOM:
        # NEW cannot name its slots: no verdict either way, a warning for each stack.
        assert kinds["restore-error"] == kinds["silent-reinit"] == 0, shown
        unverified = {c["table"] for c in changes if c["kind"] == "unverified-layout"}
        assert unverified == set(truth["new_stacks"]), shown
        return
    assert (kinds["restore-error"] > 0) == (truth["outcome"] == "error"), shown
    if case.writer == "manager":
        assert (kinds["silent-reinit"] > 0) == (truth["outcome"] == "silent"), shown
        assert kinds["unverified-layout"] == 0, shown
        if truth["outcome"] == "silent":
            # Per stack: a silent-reinit names each stack some of whose rows moved, and no other.
            moved = {stack for stack, arrays in truth["wrong"].items() if arrays}
            named = {c["table"] for c in changes if c["kind"] == "silent-reinit"}
            assert named == moved, shown
    else:
        assert kinds["silent-reinit"] == 0, shown
        if truth["outcome"] != "error":
            unverified = {c["table"] for c in changes if c["kind"] == "unverified-layout"}
            assert unverified == set(truth["new_stacks"]), shown
            assert all(
                c["severity"] == "warning" for c in changes if c["kind"] == "unverified-layout"
            ), shown


def test_restacking_by_proto_follows_the_protos_table_order_not_the_offsets() -> None:
    """Why the probe lays its values out with `stack_and_shard_tables` (the TableSpecs): the
    library's `stack_and_shard_feature_tables(tables, proto)`, the restacking half of the recipe
    docs/jax.md and diff's help give, concatenates a stack's tables in the proto's order, while
    `create_proto_from_feature_specs` lists them in the features' order (a dict's sorted keys:
    `item_id` before `user_id`) and the variables and `unstack_and_unshard_stacked_tables` place
    them by `row_offset_in_shard` (`user` at 0, `item` at 16). For such a proto the round trip
    through the library's own pair of functions moves the rows."""
    import jax.numpy as jnp
    import numpy as np
    from jax_tpu_embedding.sparsecore.lib.nn import table_stacking

    from tests.jax_orbax_cases import BASE

    proto = jax_orbax_probe.proto_of(BASE)
    (stack,) = [s for s in proto.stacked_table_specs if s.stack_name == "user_item"]
    assert [t.table_name for t in stack.table_specs] == ["item", "user"]
    assert [t.row_offset_in_shard for t in stack.table_specs] == [16, 0]
    values = {
        t.name: jnp.asarray(np.random.default_rng(len(t.name)).standard_normal((t.vocab, t.dim)))
        for t in BASE.tables
    }
    stacked = table_stacking.stack_and_shard_feature_tables(values, proto)
    back = table_stacking.unstack_and_unshard_stacked_tables(stacked, proto)
    assert np.array_equal(np.asarray(back["country"]), np.asarray(values["country"]))
    for name in ("user", "item"):
        assert not np.array_equal(np.asarray(back[name]), np.asarray(values[name]))
    # With the proto's tables in offset order, the same pair is a round trip.
    ordered = type(proto)()
    ordered.CopyFrom(proto)
    for s in ordered.stacked_table_specs:
        tables = sorted(s.table_specs, key=lambda t: t.row_offset_in_shard)
        copies = [type(t)() for t in tables]
        for copy, t in zip(copies, tables, strict=True):
            copy.CopyFrom(t)
        del s.table_specs[:]
        s.table_specs.extend(copies)
    stacked = table_stacking.stack_and_shard_feature_tables(values, ordered)
    back = table_stacking.unstack_and_unshard_stacked_tables(stacked, ordered)
    for name, original in values.items():
        np.testing.assert_array_equal(np.asarray(back[name]), np.asarray(original))
