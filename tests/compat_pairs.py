"""Pairs of embedding setups, old and new, each described once and built two ways: as specs for
tpuemb (tests/test_compat_pairs.py) and as TensorFlow objects for the oracle
(tests/test_tf_diff.py). A table's ``id`` is who it is across the pair, whatever its name."""

from __future__ import annotations

import itertools
import json
from typing import Any, NamedTuple

from tpuemb_cli.compat.compare import compare
from tpuemb_cli.compat.kinds import Placed
from tpuemb_cli.load import Document, load_bytes
from tpuemb_cli.load.encodings import get
from tpuemb_cli.spec.compiler import compile_spec

Table = dict[str, Any]
STATE_KINDS = ("restore-error", "silent-reinit", "orphaned-state")
OPTIMIZERS = ("sgd", "adagrad", "adagrad_momentum", "adam", "ftrl")


class Side(NamedTuple):
    tables: list[Table]
    features: list[tuple[str, str]]  # (feature name, table id), in flatten order
    hosts: int = 1


class Pair(NamedTuple):
    name: str
    old: Side
    new: Side
    kinds: frozenset[str] | set[str]  # every kind tpuemb reports for the pair


def table(id: str, name: str | None = None, vocab: int = 64, dim: int = 4, **more: Any) -> Table:
    return {"id": id, "name": name, "vocab": vocab, "dim": dim, "opt": "adagrad", "lr": 0.1, **more}


def _one(t: Table, **changes: Any) -> Side:
    return Side([{**t, **changes}], [("f", t["id"])])


def _pairs() -> list[Pair]:
    user = table("u", "user")
    a, b, c = table("a"), table("b"), table("c")
    named = [table("a", "alpha"), table("b", "beta", dim=8)]
    two = [("fa", "a"), ("fb", "b")]
    pairs = [
        Pair("rename", _one(user), _one(user, name="users"), {"silent-reinit", "orphaned-state"}),
        Pair(
            "insert-unnamed-same-shape",
            Side([a, b], two),
            Side([c, a, b], [("fc", "c"), *two]),
            {"silent-reinit", "training-change"},
        ),
        Pair(
            "insert-unnamed-other-shape",
            Side([a, b], two),
            Side([{**c, "dim": 8}, a, b], [("fc", "c"), *two]),
            {"restore-error", "silent-reinit", "training-change"},
        ),
        Pair(
            "swap-unnamed",
            Side([a, b], two),
            Side([b, a], list(reversed(two))),
            {"silent-reinit", "cosmetic"},
        ),
        Pair("dim", _one(user), _one(user, dim=8), {"restore-error"}),
        Pair("vocab", _one(user), _one(user, vocab=100), {"restore-error"}),
        Pair("learning-rate", _one(user), _one(user, lr=0.05), {"training-change"}),
        Pair("clipping", _one(user), _one(user, clip=1.0), {"training-change"}),
        Pair(
            "reorder-named",
            Side(named, two),
            Side(list(reversed(named)), list(reversed(two))),
            {"cosmetic"},
        ),
        Pair(
            "padding",
            _one(user, vocab=3),
            Side([{**user, "vocab": 3}], [("f", "u")], hosts=4),
            {"topology-change"},
        ),
        Pair(
            "remove-table",
            Side(named, two),
            Side(named[:1], two[:1]),
            {"orphaned-state", "training-change"},
        ),
        Pair(
            "add-table",
            Side(named[:1], two[:1]),
            Side(named, two),
            {"silent-reinit", "training-change"},
        ),
    ]
    for before, after in itertools.permutations(OPTIMIZERS, 2):
        slots_before, slots_after = set(SLOTS[before]), set(SLOTS[after])
        kinds = {"training-change"}
        if slots_after - slots_before:
            kinds.add("silent-reinit")
        if slots_before - slots_after:
            kinds.add("orphaned-state")
        pairs.append(
            Pair(f"{before}-to-{after}", _one(user, opt=before), _one(user, opt=after), kinds)
        )
    return [p._replace(kinds=frozenset(p.kinds)) for p in pairs]


# What the pairs' expectations are written from; the oracle checks them against TensorFlow.
SLOTS = {
    "sgd": (),
    "adagrad": ("accumulators",),
    "adagrad_momentum": ("accumulators", "momenta"),
    "adam": ("momenta", "velocities"),
    "ftrl": ("accumulators", "linears"),
}
PAIRS = _pairs()


def spec(side: Side) -> str:
    """The side as a YAML spec (JSON is YAML): tables in order of first use, as TensorFlow takes
    them."""
    order = []
    for _, id in side.features:
        if id not in order:
            order.append(id)
    by_id = {t["id"]: t for t in side.tables}
    tables = []
    for id in order:
        t = by_id[id]
        optimizer: dict[str, Any] = {t["opt"]: {}, "learning_rate": {"constant": t["lr"]}}
        if t.get("clip") is not None:
            optimizer["clipvalue"] = {"scalar": t["clip"]}
        entry: dict[str, Any] = {"vocabulary_size": t["vocab"], "dim": t["dim"]}
        if t["name"]:
            entry["name"] = t["name"]
        entry["optimizer"] = optimizer
        tables.append(entry)
    features = []
    for name, id in side.features:
        t = by_id[id]
        features.append({"name": name, "table": t["name"] or f"#{order.index(id)}"})
    document = {"tables": tables, "features": features, "topology": {"num_hosts": side.hosts}}
    return json.dumps(document, indent=1) + "\n"


def document(side: Side, label: str, as_config: bool = False) -> Document:
    """The side loaded as a spec (``label.yaml``), or as the config it compiles to
    (``label.pbtxt``)."""
    document = load_bytes(spec(side).encode(), f"{label}.yaml")
    assert not document.problems, document.problems
    if as_config:
        text = get("text").render(compile_spec(document.message).config)  # type: ignore[arg-type]
        document = load_bytes(text, f"{label}.pbtxt")
    return document


def diff(pair: Pair, as_configs: bool = False) -> list[Placed]:
    """tpuemb's changes for the pair: of its specs, or of the configs they compile to."""
    old, new = document(pair.old, "old", as_configs), document(pair.new, "new", as_configs)
    return compare(old, new)
