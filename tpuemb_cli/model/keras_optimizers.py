"""Keras optimizers as Keras-RS's SparseCore conversions read them (keras-rs 0.4.0, Keras 3).

A table's optimizer is a Keras optimizer, saved as its class and config, or a name (``"sgd"``)
that ``keras.optimizers.get`` resolves. Before the table goes to the SparseCores, each backend's
conversion turns it into its library's optimizer, refusing some options and silently dropping
others:

- JAX, ``keras_to_jte_optimizer`` (keras_rs/src/layers/embedding/jax/config_conversion.py):
  SGD, Adagrad, Adam (and its subclass AdamW) and Ftrl become jax-tpu-embedding's
  ``SGDOptimizerSpec``, ``AdagradOptimizerSpec``, ``AdamOptimizerSpec``, ``FTRLOptimizerSpec``;
  it reads the learning rate and the hyperparameters the spec has, and nothing else.
- TensorFlow, ``to_tf_tpu_optimizer`` (keras_rs/src/layers/embedding/tensorflow/
  config_conversion.py): the same four become ``tf.tpu.experimental.embedding``'s SGD, Adagrad,
  Adam, FTRL, with ``weight_decay`` as ``weight_decay_factor``, ``clipvalue`` and
  ``gradient_accumulation_steps`` (as ``use_gradient_accumulation``) passed on; a name must be
  one of ``sgd``, ``adagrad``, ``adam``, ``ftrl``.

This module is the one place that knows those lists; the conversion to a spec
(``spec/keras_spec``) and the Keras rules read it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

BACKENDS = ("jax", "tensorflow")
DEFAULT_BACKEND = "jax"

# Keras 3's optimizers by the names ``keras.optimizers.get`` takes (lower case) -- the class --
# and each class's defaults (Keras 3.15.1's ``get_config()`` of a default instance; the general
# options every optimizer has, then its own). A learning rate is what Keras keeps: float32.
GENERAL: dict[str, float | None] = {
    "weight_decay": None,
    "clipnorm": None,
    "global_clipnorm": None,
    "clipvalue": None,
    "use_ema": 0.0,
    "ema_momentum": 0.99,
    "ema_overwrite_frequency": None,
    "loss_scale_factor": None,
    "gradient_accumulation_steps": None,
}
_F32_0_01 = 0.009999999776482582
_F32_0_001 = 0.0010000000474974513
CLASSES: dict[str, dict[str, float | None]] = {
    "SGD": {"learning_rate": _F32_0_01, "momentum": 0.0, "nesterov": 0.0},
    "Adagrad": {"learning_rate": _F32_0_001, "initial_accumulator_value": 0.1, "epsilon": 1e-07},
    "Adam": {
        "learning_rate": _F32_0_001,
        "beta_1": 0.9,
        "beta_2": 0.999,
        "epsilon": 1e-07,
        "amsgrad": 0.0,
    },
    "AdamW": {
        "learning_rate": _F32_0_001,
        "weight_decay": 0.004,
        "beta_1": 0.9,
        "beta_2": 0.999,
        "epsilon": 1e-07,
        "amsgrad": 0.0,
    },
    "Ftrl": {
        "learning_rate": _F32_0_001,
        "learning_rate_power": -0.5,
        "initial_accumulator_value": 0.1,
        "l1_regularization_strength": 0.0,
        "l2_regularization_strength": 0.0,
        "l2_shrinkage_regularization_strength": 0.0,
        "beta": 0.0,
    },
}
# Other classes ``keras.optimizers.get`` knows by name, which no conversion supports.
OTHER_NAMES = {
    name.lower(): name
    for name in (
        "RMSprop",
        "Adadelta",
        "Adamax",
        "Adafactor",
        "Nadam",
        "Lion",
        "Lamb",
        "LossScaleOptimizer",
        "Muon",
    )
}
# The supported class each class converts as (``isinstance``: AdamW is an Adam).
CONVERTED_AS = {"SGD": "SGD", "Adagrad": "Adagrad", "Adam": "Adam", "AdamW": "Adam", "Ftrl": "Ftrl"}
# TensorFlow's conversion takes these names only (``to_tf_tpu_optimizer``).
TF_NAMES = {"sgd": "SGD", "adagrad": "Adagrad", "adam": "Adam", "ftrl": "Ftrl"}


def class_of(name: str, by_name: bool) -> str:
    """The class an optimizer's saved ``class_name`` (or, ``by_name``, its name) stands for."""
    if not by_name:
        return name
    lowered = name.lower()
    for known in CLASSES:
        if known.lower() == lowered:
            return known
    return OTHER_NAMES.get(lowered, name)


def shown(value: float | None, boolean: bool = False, integer: bool = False) -> str:
    """An option's value as the config wrote it: ``true``/``false`` for a boolean (the config map
    holds them as 1 and 0), ``None`` for null, an integer without a fraction, else the number as
    Python's JSON writes a float (``0.0``, ``0.004``)."""
    if value is None:
        return "None"
    if boolean and value in (0.0, 1.0):
        return "true" if value else "false"
    if integer and value.is_integer():
        return str(int(value))
    return repr(value)


def shown_option(optimizer: Any, option: str, value: float | None) -> str:
    """``shown`` for an option of a model's optimizer, which says how its config wrote it."""
    return shown(value, option in optimizer.booleans, option in optimizer.integers)


def settings(class_name: str, config: dict[str, float]) -> dict[str, float | None]:
    """Every option of the optimizer: its class's defaults, with what its config sets. A key the
    config leaves out keeps the default; a null one is None."""
    values: dict[str, float | None] = dict(GENERAL)
    values.update(CLASSES.get(class_name, {}))
    values.update(config)
    return values


class Refusal(NamedTuple):
    """An option a conversion refuses, with the ValueError it raises."""

    option: str
    value: float | None
    error: str


class Dropped(NamedTuple):
    """An option a conversion drops without a word."""

    option: str
    value: float
    why: str


# Refused by both conversions whenever set (use_ema: when true).
_GENERAL_REFUSED = ("clipnorm", "global_clipnorm", "use_ema", "loss_scale_factor")
# Per class: option -> the value the conversion requires (the class's default).
_CLASS_REFUSED = {
    "SGD": {"nesterov": 0.0, "momentum": 0.0},
    "Adagrad": {"epsilon": 1e-07},
    "Adam": {"amsgrad": 0.0},
    "Ftrl": {"l2_shrinkage_regularization_strength": 0.0},
}


def refusals(
    backend: str, class_name: str, by_name: bool, values: dict[str, float | None]
) -> list[Refusal]:
    """What ``backend``'s conversion refuses of this optimizer, in the order it checks (the first
    is the ValueError it raises)."""
    found: list[Refusal] = []
    if by_name and backend == "tensorflow" and class_name.lower() not in TF_NAMES:
        error = (
            f"Unknown optimizer name '{class_name}'. Please use one of 'sgd', 'adagrad', 'adam', "
            "or 'ftrl'"
        )
        return [Refusal("", None, error)]
    if by_name and backend == "tensorflow":
        return []  # a name becomes the TensorFlow class with its defaults
    as_class = CONVERTED_AS.get(class_of(class_name, by_name))
    prefix = "Optimizer." if backend == "tensorflow" else ""
    for option in _GENERAL_REFUSED:
        value = values.get(option)
        if value is not None and (option != "use_ema" or value):
            error = f"Unsupported optimizer option `{prefix}{option}`."
            found.append(Refusal(option, value, error))
    if as_class is None:
        error = (
            f"Unsupported optimizer type {class_of(class_name, by_name)}. Optimizer must be one "
            "of [Adagrad, Adam, Ftrl, SGD]."
        )
        found.append(Refusal("", None, error))
        return found
    for option, required in _CLASS_REFUSED[as_class].items():
        value = values.get(option)
        if value is not None and value != required:
            error = (
                f"Unsupported optimizer option {option}."
                if backend == "tensorflow"
                else f"Unsupported optimizer option `{option}`."
            )
            found.append(Refusal(option, value, error))
    return found


def dropped(
    backend: str, class_name: str, by_name: bool, values: dict[str, float | None]
) -> list[Dropped]:
    """What ``backend``'s conversion drops of this optimizer without a word: JAX's reads the
    learning rate and the hyperparameters its spec has, so weight decay (AdamW's too), clipvalue
    and gradient accumulation are gone; TensorFlow's passes them on."""
    if backend != "jax":
        return []
    found: list[Dropped] = []
    actual = class_of(class_name, by_name)
    for option, why in (
        ("weight_decay", "no weight decay is applied"),
        ("clipvalue", "gradients are not clipped"),
        ("gradient_accumulation_steps", "gradients are applied every step"),
    ):
        value = values.get(option)
        if value is not None and not _changes_nothing(option, value):
            if option == "weight_decay" and actual == "AdamW":
                why = "AdamW becomes plain Adam: " + why
            found.append(Dropped(option, value, why))
    return found


def _changes_nothing(option: str, value: float) -> bool:
    """Whether Keras 3.15.1 trains as without the option at this value, so dropping it changes
    nothing: ``_apply_weight_decay`` subtracts ``variable * weight_decay * lr`` (nothing for 0);
    ``_clip_gradients`` clips only for ``clipvalue > 0``; and accumulation is on only for a
    truthy ``gradient_accumulation_steps`` (``_backend_apply_gradients``)."""
    if option == "weight_decay":
        return value == 0
    if option == "clipvalue":
        return value <= 0
    if option == "gradient_accumulation_steps":
        return value == 0
    return False


def jax_spec(
    class_name: str, by_name: bool, values: dict[str, float | None]
) -> tuple[str, dict[str, float]]:
    """The jax-tpu-embedding OptimizerSpec the JAX conversion makes: its class name and its
    attributes but the learning rate (what ``vars()`` of it holds). A class it refuses keeps its
    Keras name and no settings."""
    as_class = CONVERTED_AS.get(class_of(class_name, by_name))

    def take(*names: str) -> dict[str, float]:
        return {name: float(values[name] or 0.0) for name in names}

    if as_class == "SGD":
        return "SGDOptimizerSpec", {}
    if as_class == "Adagrad":
        return "AdagradOptimizerSpec", take("initial_accumulator_value")
    if as_class == "Adam":
        return "AdamOptimizerSpec", take("beta_1", "beta_2", "epsilon")
    if as_class == "Ftrl":
        found = take(
            "learning_rate_power",
            "l1_regularization_strength",
            "l2_regularization_strength",
            "beta",
            "initial_accumulator_value",
        )
        # FTRLOptimizerSpec's own attributes, which the conversion leaves at their defaults.
        found.update(initial_linear_value=0.0, multiply_linear_by_learning_rate=0.0)
        return "FTRLOptimizerSpec", found
    return class_of(class_name, by_name), {}
