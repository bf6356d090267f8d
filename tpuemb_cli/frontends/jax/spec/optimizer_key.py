"""How jax-tpu-embedding's auto-stacking tells two tables' optimizers apart (v0.1.0,
``embedding_spec.py``): ``OptimizerSpec.__eq__`` compares their ``__hash__``, a tuple of the
learning rate and the class's hyperparameters -- not the class itself."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.model import optimizers


def optimizer_key(table: Any) -> tuple[Any, ...]:
    """What auto-stacking compares a table's optimizer by: its ``__hash__``'s tuple -- the learning
    rate and the class's hashed hyperparameters, not the class; a CustomOptimizerSpec's
    function, StableHLO module (0.2.0), initializers and short name (`custom`); a class the
    library does not have is told apart by its class and every setting."""
    optimizer = table.jax.optimizer
    rate = optimizer.learning_rate
    which = rate.WhichOneof("value")
    learning_rate: Any = (
        ("schedule", rate.schedule) if which == "schedule" else rate.constant if which else None
    )
    # A rate float32 cannot tell from another table's, recorded in full (spec_from_jax).
    learning_rate = optimizer.settings.get("learning_rate", learning_rate)
    if optimizer.custom:  # a CustomOptimizerSpec: what spec_from_jax told it apart by
        return ("custom", learning_rate, optimizer.custom)
    # The class's hyperparameters in the order its ``__hash__`` takes them (the optimizer table).
    row = optimizers.jax_class(optimizer.type)
    if row is None:
        return ("class", optimizer.type, learning_rate, tuple(sorted(optimizer.settings.items())))
    return (learning_rate, *(optimizer.settings.get(each.name) for each in row.parameters))
