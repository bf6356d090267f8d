"""`tpuemb diff` of two SparseCore specs against TensorFlow 2.21 itself (run by `make test-tf`;
skipped elsewhere): for each pair of specs below, TensorFlow builds the real `TPUEmbeddingV2` of
the old spec on CPU under a stand-in TPUStrategy (tests/tf_tpu_standin.py: as many replicas as
the spec's partitions, its SparseCores per chip), sets every stacked variable and slot to values
of its own, saves it with `tf.train.Checkpoint`, then builds the new spec's and restores, in both
ways a program can: before the embedding is built (restore-on-create, through TensorFlow's
`TpuEmbeddingV3CheckpointAdapter`) and into built variables. Each table and slot is then read back
through TensorFlow's own unsharding (`_unshard_from_sc_to_cpu`, by the layouts).

TensorFlow's outcome is the worse of the two ways: `restore-error` when one raises,
`silent-reinit` when one leaves a table's rows, or a slot both optimizers have, other than what
the checkpoint holds for it (or a new slot at its initializer), else `ok`; and tpuemb's verdict
(its most serious change of those two kinds) must be the same. Table by table too: every table a
restore left without its rows or a slot is in a stack (or is a table) tpuemb names with one of
those kinds, and where neither way raises, every stack tpuemb names lost something. The same
checkpoints are also compared with `tpuemb diff --against-checkpoint`, which must give the same
verdict.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

tf = pytest.importorskip("tensorflow")

import numpy as np  # noqa: E402
from click.testing import CliRunner  # noqa: E402
from tensorflow.python.tpu import tpu_embedding_v2_utils as u  # noqa: E402
from tensorflow.python.tpu import tpu_embedding_v3  # noqa: E402
from tensorflow.python.tpu import tpu_embedding_v3_checkpoint_adapter as adapter  # noqa: E402

from tests.tf_tpu_standin import tpu_strategy_standin  # noqa: E402
from tpuemb_cli.cli import main  # noqa: E402

CLASSES = {
    "sgd": u.SGD,
    "adagrad": u.Adagrad,
    "adagrad_momentum": u.AdagradMomentum,
    "adam": u.Adam,
    "ftrl": u.FTRL,
}
ORDERS = ("restore before build", "restore into built")


def spec(
    tables: list[tuple[Any, ...]],
    optimizer: str = "adagrad",
    features: list[tuple[str, str, int]] | None = None,
    cores_per_host: int = 2,
    sparse_cores: int = 4,
    stacking: bool = True,
    rate: float = 0.1,
) -> dict[str, Any]:
    """A SparseCore spec: tables (name, rows, dim[, own optimizer]); features (name, table,
    samples), by default one of 16 samples per table."""
    return {
        "optimizer": {optimizer: {}, "learning_rate": {"constant": rate}},
        "tables": [
            {
                "name": t[0],
                "vocabulary_size": t[1],
                "dim": t[2],
                **(
                    {"optimizer": {t[3]: {}, "learning_rate": {"constant": rate}}}
                    if len(t) > 3
                    else {}
                ),
            }
            for t in tables
        ],
        "features": [
            {"name": name, "table": table, "output_shape": [samples]}
            for name, table, samples in (features or [(f"f_{t[0]}", t[0], 16) for t in tables])
        ],
        "topology": {
            "num_hosts": 1,
            "cores_per_host": cores_per_host,
            "per_replica_batch_size": 16,
            "accelerator": "v5p",
            "sparse_cores_per_chip": sparse_cores,
        },
        "sparse_core": {"disable_table_stacking": not stacking},
    }


BASE = [("a", 100, 8), ("b", 50, 8), ("c", 40, 16)]
FOUR = [("a", 100, 8), ("b", 100, 8)]


def _with(tables: list[tuple[Any, ...]], name: str, *value: Any) -> list[tuple[Any, ...]]:
    return [(name, *value) if t[0] == name else t for t in tables]


CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "unchanged": (spec(BASE), spec(BASE)),
    "tables listed in another order": (
        spec(BASE),
        spec(BASE[::-1], features=[(f"f_{t[0]}", t[0], 16) for t in BASE]),
    ),
    "b grows within its padding": (spec(BASE), spec(_with(BASE, "b", 60, 8))),
    "b grows past its padding": (spec(BASE), spec(_with(BASE, "b", 100, 8))),
    "b shrinks within its padding": (spec(BASE), spec(_with(BASE, "b", 40, 8))),
    "a shrinks past its padding": (spec(BASE), spec(_with(BASE, "a", 50, 8))),
    "c, alone in its stack, grows": (spec(BASE), spec(_with(BASE, "c", 200, 16))),
    "a grows as b shrinks, the stack keeps its size": (
        spec(FOUR, "sgd"),
        spec([("a", 150, 8), ("b", 50, 8)], "sgd"),
    ),
    "table added to a stack": (spec(BASE), spec([*BASE, ("d", 30, 8)])),
    "table added in a stack of its own": (spec(BASE), spec([*BASE, ("d", 30, 32)])),
    "table removed from a stack": (spec(BASE), spec([t for t in BASE if t[0] != "b"])),
    "table alone in its stack removed": (spec(BASE), spec([t for t in BASE if t[0] != "c"])),
    "table renamed": (spec(BASE), spec([("bb" if t[0] == "b" else t[0], *t[1:]) for t in BASE])),
    "b's dim 8 -> 16: it joins c's stack": (spec(BASE), spec(_with(BASE, "b", 50, 16))),
    "b's dim 8 -> 6: same padded width": (spec(BASE), spec(_with(BASE, "b", 50, 6))),
    "c's dim 16 -> 12: same padded width": (spec(BASE), spec(_with(BASE, "c", 40, 12))),
    "c's dim 16 -> 24": (spec(BASE), spec(_with(BASE, "c", 40, 24))),
    "Adagrad -> Adam": (spec(BASE), spec(BASE, "adam")),
    "Adagrad -> SGD": (spec(BASE), spec(BASE, "sgd")),
    "SGD -> Adagrad": (spec(BASE, "sgd"), spec(BASE)),
    "Adagrad -> FTRL": (spec(BASE), spec(BASE, "ftrl")),
    "Adagrad -> AdagradMomentum": (spec(BASE), spec(BASE, "adagrad_momentum")),
    "Adam -> AdagradMomentum": (spec(BASE, "adam"), spec(BASE, "adagrad_momentum")),
    "b's own optimizer: it leaves a's stack": (spec(BASE), spec(_with(BASE, "b", 50, 8, "adam"))),
    "learning rate 0.1 -> 0.2": (spec(BASE), spec(BASE, rate=0.2)),
    "first feature's samples 16 -> 32": (
        spec(BASE),
        spec(BASE, features=[("f_a", "a", 32), ("f_b", "b", 16), ("f_c", "c", 16)]),
    ),
    "another feature's samples 16 -> 32": (
        spec(BASE),
        spec(BASE, features=[("f_a", "a", 16), ("f_b", "b", 32), ("f_c", "c", 16)]),
    ),
    "features reordered: another table is first": (
        spec(BASE),
        spec(BASE, features=[("f_b", "b", 16), ("f_a", "a", 16), ("f_c", "c", 16)]),
    ),
    "feature renamed": (
        spec(BASE),
        spec(BASE, features=[("g_a", "a", 16), ("f_b", "b", 16), ("f_c", "c", 16)]),
    ),
    "feature added on a table": (
        spec(BASE),
        spec(BASE, features=[*[(f"f_{t[0]}", t[0], 16) for t in BASE], ("g_a", "a", 16)]),
    ),
    "2 -> 4 partitions": (spec(BASE), spec(BASE, cores_per_host=4)),
    "2 -> 1 partitions": (spec(BASE), spec(BASE, cores_per_host=1)),
    "2 -> 1 partitions, SGD": (spec(BASE, "sgd"), spec(BASE, "sgd", cores_per_host=1)),
    "SparseCores per chip 4 -> 2": (spec(BASE), spec(BASE, sparse_cores=2)),
    "table stacking turned off": (spec(BASE), spec(BASE, stacking=False)),
    "table stacking turned on": (spec(BASE, stacking=False), spec(BASE)),
}


def _optimizer(setting: dict[str, Any]) -> Any:
    (name,) = [key for key in setting if key in CLASSES]
    return CLASSES[name](learning_rate=setting["learning_rate"]["constant"])


def build(setting: dict[str, Any]) -> Any:
    """The TPUEmbeddingV2 of a spec (under the stand-in strategy)."""
    tables = {
        t["name"]: u.TableConfig(
            vocabulary_size=t["vocabulary_size"],
            dim=t["dim"],
            name=t["name"],
            optimizer=_optimizer(t["optimizer"]) if "optimizer" in t else None,
        )
        for t in setting["tables"]
    }
    features = [
        u.FeatureConfig(table=tables[f["table"]], output_shape=f["output_shape"], name=f["name"])
        for f in setting["features"]
    ]
    config = tpu_embedding_v3.SparseCoreEmbeddingConfig(
        disable_table_stacking=setting["sparse_core"]["disable_table_stacking"]
    )
    return tpu_embedding_v3.TPUEmbeddingV2(
        features, _optimizer(setting["optimizer"]), sparse_core_embedding_config=config
    )


def _stand_in(setting: dict[str, Any]) -> Any:
    topology = setting["topology"]
    return tpu_strategy_standin("V2", topology["cores_per_host"], topology["sparse_cores_per_chip"])


def tables_of(embedding: Any) -> dict[tuple[str, str], Any]:
    """Each (table, variable) -- ``parameters`` and each slot -- as TensorFlow unshards it."""
    stacks: dict[str, list[Any]] = {}
    for layout in embedding.embedding_layouts.values():
        stacks.setdefault(layout.stacked_table_name, []).append(layout)
    found = {}
    for stack, layouts in stacks.items():
        layouts.sort(key=lambda layout: layout.sparse_core_shard_row_offset)
        for slot, variable in embedding._variables[stack].items():
            full = np.concatenate([shard.numpy() for shard in variable.values], axis=0)
            for layout, value in zip(
                layouts, adapter._unshard_from_sc_to_cpu(full, layouts), strict=True
            ):
                found[layout.table_name, slot] = np.asarray(value)
    return found


def save(setting: dict[str, Any], folder: Path) -> tuple[str, dict[tuple[str, str], Any]]:
    """A checkpoint of the old spec's embedding, every variable set to values of its own."""
    generator = np.random.default_rng(7)
    with _stand_in(setting):
        embedding = build(setting)
        embedding.build()
        for variables in embedding._variables.values():
            for variable in variables.values():
                for shard in variable.values:
                    shard.assign(generator.standard_normal(shard.shape).astype(np.float32) + 10)
        saved = tables_of(embedding)
        path = tf.train.Checkpoint(embedding=embedding).save(str(folder / "ckpt"))
    return path, saved


LOST: dict[str, set[str]] = {}  # per restore: the tables whose rows or slots it did not restore
STACKS: dict[str, str] = {}  # the new embedding's tables -> their stacks


def restored(setting: dict[str, Any], path: str, saved: dict[Any, Any], order: str) -> str:
    """What restoring ``path`` into the new spec's embedding in ``order`` does."""
    LOST[order] = set()
    with _stand_in(setting):
        embedding = build(setting)
        checkpoint = tf.train.Checkpoint(embedding=embedding)
        try:
            if order == "restore before build":
                checkpoint.restore(path)
                embedding.build()
            else:
                embedding.build()
                checkpoint.restore(path)
        except Exception as error:
            return f"restore-error ({type(error).__name__})"
        STACKS.update(
            {
                name: layout.stacked_table_name
                for name, layout in embedding.embedding_layouts.items()
            }
        )
        lost = []
        for key, value in tables_of(embedding).items():
            old = saved.get(key)
            if old is None:
                if key[0] in {name for name, _ in saved}:
                    lost.append(f"{key[0]}/{key[1]} fresh")  # a new slot of a restored table
                continue
            rows, columns = min(old.shape[0], value.shape[0]), min(old.shape[1], value.shape[1])
            if not np.array_equal(old[:rows, :columns], value[:rows, :columns]):
                lost.append(f"{key[0]}/{key[1]}")
        LOST[order] = {entry.split("/")[0] for entry in lost}
        return f"silent-reinit ({', '.join(sorted(lost))})" if lost else "ok"


def worse(outcomes: list[str]) -> str:
    for kind in ("restore-error", "silent-reinit"):
        if any(outcome.startswith(kind) for outcome in outcomes):
            return kind
    return "ok"


def verdict(report: dict[str, Any]) -> str:
    kinds = {change["kind"] for change in report["changes"]}
    for kind in ("restore-error", "silent-reinit"):
        if kind in kinds:
            return kind
    return "ok"


def _diff(*arguments: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["diff", "--format", "json", *arguments])
    assert result.exit_code in (0, 1), result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


@pytest.mark.parametrize("name", list(CASES))
def test_diff_says_what_tensorflow_does(name: str, tmp_path: Path) -> None:
    old, new = CASES[name]
    (tmp_path / "old.spec.json").write_text(json.dumps(old))
    (tmp_path / "new.spec.json").write_text(json.dumps(new))
    path, saved = save(old, tmp_path)
    outcomes = {order: restored(new, path, saved, order) for order in ORDERS}
    expected = worse(list(outcomes.values()))
    report = _diff(str(tmp_path / "old.spec.json"), str(tmp_path / "new.spec.json"))
    shown = [f"{c['kind']}: {c['message']}" for c in report["changes"]]
    print(f"{name}: TensorFlow {outcomes}; tpuemb {verdict(report)}")
    assert verdict(report) == expected, (outcomes, shown)
    # Every table a restore left without its rows or slots is in a stack tpuemb names (a
    # table's own change names the table, a stack's the stack).
    flagged = {
        c["table"] for c in report["changes"] if c["kind"] in ("restore-error", "silent-reinit")
    }
    for order, tables in LOST.items():
        missed = {t for t in tables if t not in flagged and STACKS.get(t) not in flagged}
        assert not missed, (order, missed, shown)
    # And where neither way raises, every stack tpuemb names lost something in one of them.
    if expected != "restore-error":
        lost = set().union(*LOST.values())
        stacks = lost | {STACKS[t] for t in lost if t in STACKS}
        assert flagged <= stacks, (flagged - stacks, outcomes, shown)
    against = _diff("--against-checkpoint", f"{path}.index", str(tmp_path / "new.spec.json"))
    assert verdict(against) == expected, (outcomes, against["changes"])
    if old == new:
        assert report["changes"] == [] and against["changes"] == []


def test_there_are_at_least_30_cases() -> None:
    assert len(CASES) >= 30


def test_this_is_tpuemb_of_the_checkout_under_test() -> None:
    import tpuemb_cli

    assert (
        Path(tpuemb_cli.__file__).resolve().parent
        == Path(__file__).resolve().parent.parent / "tpuemb_cli"
    ), os.environ.get("PYTHONPATH")
