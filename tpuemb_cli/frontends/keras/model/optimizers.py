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

The classes, their defaults and what each conversion makes of them are the optimizer table's
Keras-RS column (``model/optimizers.KERAS_TABLE``); this module says what the conversions do with
them, for the conversion to a spec (``frontends/keras/spec/conversion``) and the Keras rules.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tpuemb_cli.model import optimizers

BACKENDS = ("jax", "tensorflow")
DEFAULT_BACKEND = "jax"

# The general options every Keras 3 optimizer has, with their defaults (Keras 3.15.1's
# ``get_config()`` of a default instance); each class's own are its row in the optimizer table.
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


def tf_names() -> dict[str, str]:
    """The names TensorFlow's conversion takes (``to_tf_tpu_optimizer``): each supported class's,
    lower case -> the class."""
    rows = optimizers.KERAS_TABLE
    return {row.keras_class.lower(): row.keras_class for row in rows if row.tf is not None}


def class_of(name: str, by_name: bool) -> str:
    """The class an optimizer's saved ``class_name`` (or, ``by_name``, its name) stands for."""
    if not by_name:
        return name
    lowered = name.lower()
    for row in optimizers.KERAS_TABLE:
        if row.keras_class.lower() == lowered:
            return row.keras_class
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
    row = optimizers.keras_class(class_name)
    values.update(row.defaults if row else {})
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


def refusals(
    backend: str, class_name: str, by_name: bool, values: dict[str, float | None]
) -> list[Refusal]:
    """What ``backend``'s conversion refuses of this optimizer, in the order it checks (the first
    is the ValueError it raises)."""
    found: list[Refusal] = []
    if by_name and backend == "tensorflow" and class_name.lower() not in tf_names():
        error = (
            f"Unknown optimizer name '{class_name}'. Please use one of 'sgd', 'adagrad', 'adam', "
            "or 'ftrl'"
        )
        return [Refusal("", None, error)]
    if by_name and backend == "tensorflow":
        return []  # a name becomes the TensorFlow class with its defaults
    as_class = optimizers.keras_converted(class_of(class_name, by_name))
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
    for option, required in (as_class.required or {}).items():
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
    as_class = optimizers.keras_converted(class_of(class_name, by_name))
    spec = optimizers.jax_class(as_class.jax) if as_class and as_class.jax else None
    if spec is None or as_class is None:
        return class_of(class_name, by_name), {}
    # The spec's hyperparameters: those Keras has from the Keras optimizer, the others (FTRL's
    # initial_linear_value, multiply_linear_by_learning_rate) left at the spec's defaults.
    return spec.spec_class, {
        each.name: float(values[each.name] or 0.0)
        if each.name in as_class.defaults
        else each.default
        for each in spec.parameters
    }
