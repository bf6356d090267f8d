"""Will an Orbax checkpoint of a Keras-RS model restore the model optimizer's variables?
(``tpuemb diff --against-checkpoint CKPT model.keras``, the optimizer ``model.compile`` took.)

``JaxKeras3CheckpointManager`` saves ``model.get_state_tree()``, which keys the optimizer's
variables by the optimizer's name and each variable's own: ``('optimizer_variables', <name>,
<key>)`` (keras 3.15.1, `models/model.py
<https://github.com/keras-team/keras/blob/v3.15.1/keras/src/models/model.py>`_,
``get_state_tree``). A slot's key is the path of the variable it trains, ``/`` written ``_``,
and the slot's name (``optimizers/base_optimizer.py``, ``add_variable_from_reference``): a
default-device table ``<layer>/<table>/embeddings`` trained by Adam has
``<layer>_<table>_embeddings_momentum`` and ``..._velocity``. Orbax restores the tree strictly,
so another optimizer name (``adam`` -> ``adagrad``; Keras names optimizers after their class,
``adam_1`` for a session's second) changes every key, and another optimizer's slots (Adam's
``momentum``/``velocity`` against Adagrad's ``accumulator``) the table's: either refuses the
restore. The slots each class builds are its ``build`` (`optimizers/
<https://github.com/keras-team/keras/tree/v3.15.1/keras/src/optimizers>`_); a class not listed
(a custom optimizer, Adafactor's factored slots, Muon's per-shape ones) has its name compared,
not its slots.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from tpuemb_cli.compat.kinds import Change
from tpuemb_cli.frontends.keras.compat.default_tables import stored_tables
from tpuemb_cli.load.orbax import TREE_MISMATCH, OrbaxCheckpoint
from tpuemb_cli.model.words import printable

# What each Keras 3.15.1 optimizer's ``build`` adds per trained variable, from its config.
_SLOTS: dict[str, Callable[[Mapping[str, float]], list[str]]] = {
    "adam": lambda c: ["momentum", "velocity", *(["velocity_hat"] if c.get("amsgrad") else [])],
    "adamw": lambda c: ["momentum", "velocity", *(["velocity_hat"] if c.get("amsgrad") else [])],
    "adagrad": lambda c: ["accumulator"],
    "sgd": lambda c: ["momentum"] if c.get("momentum", 0.0) != 0 else [],
    "rmsprop": lambda c: [
        "velocity",
        *(["momentum"] if c.get("momentum", 0.0) > 0 else []),
        *(["average_gradient"] if c.get("centered") else []),
    ],
    "adamax": lambda c: ["momentum", "norm"],
    "nadam": lambda c: ["momentum", "velocity"],
    "adadelta": lambda c: ["accumulated_grad", "accumulated_delta_var"],
    "ftrl": lambda c: ["accumulator", "linear"],
    "lion": lambda c: ["momentum"],
    "lamb": lambda c: ["momentum", "velocity"],
}


def expected_slots(optimizer: Any) -> set[str] | None:
    """The slots ``optimizer`` (the KerasModel's) builds for each variable it trains; None for a
    class whose slots are not known here. Every class's base adds ``average`` with ``use_ema``
    and ``gradient_accumulator`` with ``gradient_accumulation_steps``
    (``BaseOptimizer.build``)."""
    build = _SLOTS.get(optimizer.class_name.lower())
    if build is None:
        return None
    config: Mapping[str, float] = {} if optimizer.by_name else optimizer.config
    slots = set(build(config))
    if config.get("use_ema"):
        slots.add("average")
    if config.get("gradient_accumulation_steps"):
        slots.add("gradient_accumulator")
    return slots


def _groups(checkpoint: OrbaxCheckpoint) -> dict[str, list[str]]:
    """The checkpoint's optimizer variables: each optimizer name's keys."""
    found: dict[str, list[str]] = {}
    for item in checkpoint.items:
        for array in item.arrays:
            path = array.path
            if len(path) == 3 and path[0] == "optimizer_variables":
                found.setdefault(str(path[1]), []).append(str(path[2]))
    return found


def _names(names: Iterable[str]) -> str:
    return ", ".join(f"`{printable(n)}`" for n in sorted(names)) or "none"


def optimizer_changes(
    checkpoint: OrbaxCheckpoint, model: Any, tables: Mapping[str, Sequence[Any]]
) -> Iterator[Change]:
    """What refuses the restore of the model optimizer's variables: another optimizer name, or
    a default-device table (``tables``: each layer's ``weights.layer_entries(...).default``, by
    layer name) whose slots the checkpoint holds other than the new optimizer builds. Nothing
    where the model was saved uncompiled or the checkpoint holds no optimizer variables."""
    if not model.HasField("optimizer"):
        return
    groups = _groups(checkpoint)
    optimizer = model.optimizer
    # A name `keras.optimizers.get` resolves ("adam") makes an optimizer of that name.
    name = optimizer.class_name if optimizer.by_name else optimizer.name
    if not groups or not name:
        return
    what = f"{printable(optimizer.class_name)} `{printable(name)}`"
    if name not in groups:
        yield Change(
            "restore-error",
            None,
            ("optimizer", "name"),
            ", ".join(sorted(groups)),
            name,
            f"restoring fails: the checkpoint keeps the model optimizer's variables under "
            f"{_names(groups.keys())}, the new model's optimizer is {what}: keys are "
            f"`optimizer_variables/<optimizer name>/...`, so none of them is found "
            f"({TREE_MISMATCH})",
            help="compile the new model with an optimizer of the checkpoint's name (Keras "
            "names it after its class unless `name=` says otherwise), or restore the tables "
            "without the optimizer's state",
        )
        return
    slots = expected_slots(optimizer)
    if slots is None:
        return
    keys = groups[name]
    for layer, entries in tables.items():
        stored = stored_tables(checkpoint, layer)
        for entry in entries:
            # A table the checkpoint lacks is refused as a table already (default_tables).
            if entry.shape is None or entry.name not in stored:
                continue
            prefix = f"{layer}_{entry.name}_embeddings_"
            held = {key[len(prefix) :] for key in keys if key.startswith(prefix)}
            if held == slots:
                continue
            yield Change(
                "restore-error",
                entry.name,
                ("optimizer",),
                _names(held),
                _names(slots),
                f"restoring fails: the checkpoint holds the optimizer slots {_names(held)} of "
                f"table `{printable(entry.name)}` of layer `{printable(layer)}`, the new model's "
                f"{what} builds {_names(slots)} (keys `{printable(prefix)}<slot>`) "
                f"({TREE_MISMATCH})",
            )
