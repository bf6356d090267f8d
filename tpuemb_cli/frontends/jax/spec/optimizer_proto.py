"""A table's optimizer as jax-tpu-embedding 0.2.0 records it in its ``EmbeddingSpecProto``
(``TableSpecProto.optimizer``): ``optimizer_spec_to_proto`` in ``lib/nn/embedding_proto_utils.py``
(v0.2.0), from the spec's `JaxOptimizer`.

The library maps six classes to a type (any other class, LaProp and CustomOptimizerSpec included,
is CUSTOM, recorded without parameters), writes a constant learning rate or a schedule's tag, and
each class's float and boolean hyperparameters from its own list (``_float_params``,
``_bool_params`` in ``lib/nn/embedding_spec.py``), in that list's order."""

from __future__ import annotations

from typing import Any

from tpuemb_cli.model import optimizers
from tpuemb_cli.pb.jax.embedding_spec_pb2 import OptimizerSpecProto


def optimizer_proto(optimizer: Any) -> OptimizerSpecProto:
    """0.2.0's ``OptimizerSpecProto`` for ``optimizer`` (a spec's `JaxOptimizer`). A schedule's
    tag is the library's name for the callable, which the spec does not hold: the caller refuses
    a spec with one (`schedule_refusal`)."""
    row = optimizers.jax_class(optimizer.type)
    floats: tuple[str, ...] = ()
    bools: tuple[str, ...] = ()
    kind = OptimizerSpecProto.CUSTOM
    if optimizer.custom or row is None or row.proto_type == optimizers.JAX_CUSTOM:
        pass  # a CustomOptimizerSpec (whatever its class is called), a class 0.2.0 does not map
    else:  # the class's own lists (the optimizer table), in its order
        kind = getattr(OptimizerSpecProto, row.proto_type)
        floats = tuple(each.name for each in row.parameters if not each.boolean)
        bools = tuple(each.name for each in row.parameters if each.boolean)
    settings = optimizer.settings
    # Given to the constructor as dicts in the library's order, as the library does: the maps'
    # entries then serialize in its order.
    proto = OptimizerSpecProto(
        type=kind,
        float_params={name: settings[name] for name in floats if name in settings},
        bool_params={name: bool(settings[name]) for name in bools if name in settings},
    )
    rate = optimizer.learning_rate
    if rate.WhichOneof("value") == "constant":
        # The rate in full when spec_from_jax kept it (a double the float field rounds).
        proto.learning_rate = settings.get("learning_rate", rate.constant)
    return proto
