"""A table's optimizer as jax-tpu-embedding 0.2.0 records it in its ``EmbeddingSpecProto``
(``TableSpecProto.optimizer``): ``optimizer_spec_to_proto`` in ``lib/nn/embedding_proto_utils.py``
(v0.2.0), from the spec's `JaxOptimizer`.

The library maps six classes to a type (any other class, LaProp and CustomOptimizerSpec included,
is CUSTOM, recorded without parameters), writes a constant learning rate or a schedule's tag, and
each class's float and boolean hyperparameters from its own list (``_float_params``,
``_bool_params`` in ``lib/nn/embedding_spec.py``), in that list's order."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.pb.jax.embedding_spec_pb2 import OptimizerSpecProto

# Class name -> (type, float parameters, boolean parameters), as 0.2.0 lists them.
_CLASSES: dict[str, tuple[int, tuple[str, ...], tuple[str, ...]]] = {
    "SGDOptimizerSpec": (OptimizerSpecProto.SGD, (), ()),
    "AdagradOptimizerSpec": (OptimizerSpecProto.ADAGRAD, ("initial_accumulator_value",), ()),
    "AdamOptimizerSpec": (OptimizerSpecProto.ADAM, ("beta_1", "beta_2", "epsilon"), ()),
    "FTRLOptimizerSpec": (
        OptimizerSpecProto.FTRL,
        (
            "learning_rate_power",
            "l1_regularization_strength",
            "l2_regularization_strength",
            "beta",
            "initial_accumulator_value",
            "initial_linear_value",
        ),
        ("multiply_linear_by_learning_rate",),
    ),
    "F2AOptimizerSpec": (
        OptimizerSpecProto.F2A,
        (
            "rho",
            "initial_accumulator_value",
            "initial_local_step_value",
            "l1_regularization_strength",
            "l2_regularization_strength",
            "max_lr_multiplier",
        ),
        (),
    ),
    "AdagradMomentumOptimizerSpec": (
        OptimizerSpecProto.ADAGRAD_MOMENTUM,
        (
            "momentum",
            "beta2",
            "epsilon",
            "exponent",
            "initial_accumulator_value",
            "initial_momentum_value",
        ),
        ("use_nesterov",),
    ),
}


def optimizer_proto(optimizer: Any) -> OptimizerSpecProto:
    """0.2.0's ``OptimizerSpecProto`` for ``optimizer`` (a spec's `JaxOptimizer`). A schedule's
    tag is the library's name for the callable, which the spec does not hold: the caller refuses
    a spec with one (`schedule_refusal`)."""
    kind, floats, bools = _CLASSES.get(optimizer.type, (OptimizerSpecProto.CUSTOM, (), ()))
    if optimizer.custom:  # a CustomOptimizerSpec, whatever its class is called
        kind, floats, bools = OptimizerSpecProto.CUSTOM, (), ()
    settings = optimizer.settings
    # Given to the constructor as dicts in the library's order, as the library does: the maps'
    # entries then serialize in its order.
    proto = OptimizerSpecProto(
        type=kind,  # type: ignore[arg-type]
        float_params={name: settings[name] for name in floats if name in settings},
        bool_params={name: bool(settings[name]) for name in bools if name in settings},
    )
    rate = optimizer.learning_rate
    if rate.WhichOneof("value") == "constant":
        # The rate in full when spec_from_jax kept it (a double the float field rounds).
        proto.learning_rate = settings.get("learning_rate", rate.constant)
    return proto
