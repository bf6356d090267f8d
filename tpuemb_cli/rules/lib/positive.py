"""A float field of an optimizer that TensorFlow requires to be positive, where 0 also means
"not set" (proto3 has no presence for scalars): the check several optimizer rules make."""

from __future__ import annotations

from collections.abc import Iterator

from tpuemb_cli.model.findings import Violation
from tpuemb_cli.model.words import number
from tpuemb_cli.pb.tpu.optimization_parameters_pb2 import OptimizationParameters


def not_positive(params: OptimizationParameters, algorithm: str, field: str) -> Iterator[Violation]:
    """A violation when ``params`` uses ``algorithm`` and its ``field`` is not above zero; the
    message names the optimizer's class and quotes TensorFlow's default (``model.optimizers``)."""
    if params.WhichOneof("parameters") != algorithm:
        return
    value = getattr(getattr(params, algorithm), field)
    if value <= 0:
        unset = " (or not set)" if value == 0 else ""
        from tpuemb_cli.model import optimizers  # with a finding only: its table is built on import

        yield Violation(
            (algorithm, field),
            f"{optimizers.label(algorithm)}'s {field} is {number(value)}{unset}; it must be "
            "positive",
            f"set `{field}: {optimizers.default(algorithm, field).written}` (TensorFlow's default)",
        )
