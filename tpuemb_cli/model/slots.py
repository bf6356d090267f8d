"""The slot variables each optimizer gives a table, as TensorFlow 2.21 names them.

The mid-level API creates, for a table, the variable ``<table name>`` and one variable
``<table name>/<slot>`` per name of the optimizer's ``_slot_names()``
(tensorflow/python/tpu/tpu_embedding_base.py, ``_create_variables``;
tensorflow/python/tpu/tpu_embedding_v2_utils.py, each optimizer's ``_slot_names``). A checkpoint
restores them by these names: a slot of the same name is restored whatever optimizer wrote it.
"""

from __future__ import annotations

from typing import NamedTuple


class Optimizer(NamedTuple):
    name: str  # the Python class, as users know it
    slots: tuple[str, ...]


# OptimizationParameters' `parameters` oneof field -> the mid-level API class that writes it.
OPTIMIZERS: dict[str, Optimizer] = {
    "stochastic_gradient_descent": Optimizer("SGD", ()),
    "adagrad": Optimizer("Adagrad", ("accumulators",)),
    "adagrad_momentum": Optimizer("AdagradMomentum", ("accumulators", "momenta")),
    "adam": Optimizer("Adam", ("momenta", "velocities")),
    "ftrl": Optimizer("FTRL", ("accumulators", "linears")),
}


def known(field: str | None) -> Optimizer | None:
    """The optimizer behind a oneof field; None for one the mid-level API never builds
    (``momentum``, ``rms_prop``, ...: their checkpoint layout is not the mid-level API's)."""
    if field is None:
        return None
    return OPTIMIZERS.get(field)


def label(field: str | None) -> str:
    """How a message names the optimizer: its class, or its config field."""
    if field is None:
        return "no optimizer"
    optimizer = OPTIMIZERS.get(field)
    return optimizer.name if optimizer else f"`{field}`"


# A spec's optimizer oneof -> the OptimizationParameters field it compiles to (the names differ
# only for SGD).
SPEC_FIELDS = {"sgd": "stochastic_gradient_descent"}


def of_spec(algorithm: str | None) -> Optimizer | None:
    """The optimizer behind a spec's optimizer oneof (None or unset: SGD, TensorFlow's default);
    None for one the mid-level API never builds (``custom``)."""
    algorithm = algorithm or "sgd"
    return OPTIMIZERS.get(SPEC_FIELDS.get(algorithm, algorithm))
