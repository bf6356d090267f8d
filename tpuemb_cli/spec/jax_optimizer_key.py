"""How jax-tpu-embedding's auto-stacking tells two tables' optimizers apart (v0.1.0,
``embedding_spec.py``): ``OptimizerSpec.__eq__`` compares their ``__hash__``, a tuple of the
learning rate and the class's hyperparameters -- not the class itself."""

from __future__ import annotations

from typing import Any

# Each optimizer class's hyperparameters in the order its ``__hash__`` takes them, after the
# learning rate (``embedding_spec.py``): auto-stacking compares optimizers by that hash alone.
HASHED_SETTINGS: dict[str, tuple[str, ...]] = {
    "SGDOptimizerSpec": (),
    "AdagradOptimizerSpec": ("initial_accumulator_value",),
    "AdamOptimizerSpec": ("beta_1", "beta_2", "epsilon"),
    "AdagradMomentumOptimizerSpec": (
        "momentum",
        "beta2",
        "epsilon",
        "exponent",
        "use_nesterov",
        "initial_accumulator_value",
        "initial_momentum_value",
    ),
    "FTRLOptimizerSpec": (
        "learning_rate_power",
        "l1_regularization_strength",
        "l2_regularization_strength",
        "beta",
        "initial_accumulator_value",
        "initial_linear_value",
        "multiply_linear_by_learning_rate",
    ),
    "LaPropOptimizerSpec": ("b1", "b2", "eps", "initial_slot_value"),
    "F2AOptimizerSpec": (
        "rho",
        "initial_accumulator_value",
        "initial_local_step_value",
        "l1_regularization_strength",
        "l2_regularization_strength",
        "max_lr_multiplier",
    ),
}


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
    fields = HASHED_SETTINGS.get(optimizer.type)
    if fields is None:
        return ("class", optimizer.type, learning_rate, tuple(sorted(optimizer.settings.items())))
    return (learning_rate, *(optimizer.settings.get(name) for name in fields))
